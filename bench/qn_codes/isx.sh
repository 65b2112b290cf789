# ISx (ParRes), a bucket sort of 2^27 random keys (maximum 2^28) split over the ranks
# (strong scaling): an MPI_Alltoall of bucket sizes, then an MPI_Alltoallv of every key;
# one timed iteration after one burn-in. Built as its Makefile's isx.strong target with
# SMPI's compiler and -O2 (its own optimized target adds -O3 -mavx).
repo=ParRes/ISx
commit=d31936a68c49415e7605125d810e13a6ec5b50b1
build() { cd MPI && make isx.strong CC=smpicc CFLAGS="-Wall -Wextra -std=c99 -O2 -DNDEBUG"; }
specs=('isx=@SRC@/MPI/bin/isx.strong 134217728 isx.log')

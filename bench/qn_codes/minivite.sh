# miniVite (ECP-ExaGraph), one phase of distributed Louvain community detection
# on a random geometric graph that it builds in memory (irregular exchanges of
# ghost-vertex communities: Isend/Irecv/Waitall with data-dependent sizes, many
# MPI_Alltoall(v)s and allreduces; the iteration count follows convergence).
# Input: 131072 vertices (-n, a power of two as its RGG generator requires), the
# distributed LCG (-l) so the graph is the same at every count. Note: generating
# the graph is a pairwise loop over each rank's vertices, O((131072/n)^2), and
# outweighs the Louvain phase up to ~8 ranks (about 14 s of 15 at 1 rank), far
# less at 64; that is the code as it is. miniVite needs OpenMP: built with
# -fopenmp and run with OMP_NUM_THREADS=1, exported here for smpirun.
repo=ECP-ExaGraph/miniVite
commit=4cbf5beb58c64c67ef3bb5b31305bb65d713b8b8
build() { smpicxx -std=c++11 -O2 -fopenmp -o miniVite main.cpp; }
export OMP_NUM_THREADS=1
specs=('minivite=@SRC@/miniVite -n 131072 -l')

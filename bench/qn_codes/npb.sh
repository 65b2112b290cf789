# Three of the NAS Parallel Benchmarks 3.4 (LLNL's GitHub copy of NPB3.4-MPI,
# Fortran, built with smpiff: smpif90 neither renames a fixed-form .f main program
# nor names its objects): FT class B (512x256x256 3-D FFT, 20 steps; slab layout,
# an MPI_Alltoall transpose a step), MG class B (256^3 V-cycle multigrid, 20
# iterations; halo exchanges at every level, coarse levels on fewer ranks) and CG
# class B (75000 rows, 75 outer x 25 CG iterations; a 2-D rank grid, reduce by
# pairwise exchange along rows, a transpose exchange, allreduces). The class fixes
# the global size, so every count solves the same problem. Class B, not A: at 64
# ranks class A's compute would be ~40 ms (FT), ~30 ms (MG), ~10 ms (CG).
# config/make.def is written by build(); bin/ is made (git keeps no empty folder);
# gfortran >= 10 needs -fallow-invalid-boz for randi8.f's X'..' constants.
repo=LLNL/NPB
commit=35cd0e4a895da7dea0316fac34b4da9ab5d7cba5
paths=(NPB3.4/NPB3.4-MPI)
build() {
  cd NPB3.4/NPB3.4-MPI && mkdir -p bin &&
    printf '%s\n' 'MPIFC = smpiff' 'FLINK = $(MPIFC)' 'FFLAGS = -O2 -fallow-invalid-boz -fallow-argument-mismatch' \
      'FLINKFLAGS = $(FFLAGS)' 'MPICC = smpicc' 'CLINK = $(MPICC)' 'CFLAGS = -O2' 'CLINKFLAGS = $(CFLAGS)' \
      'CC = gcc' 'BINDIR = ../bin' 'CONVERTFLAG = -DFORTRAN_REC_SIZE=1' 'RAND = randi8' > config/make.def &&
    make ft CLASS=B && make mg CLASS=B && make cg CLASS=B
}
specs=('npb_ft=@SRC@/NPB3.4/NPB3.4-MPI/bin/ft.B.x'
       'npb_mg=@SRC@/NPB3.4/NPB3.4-MPI/bin/mg.B.x'
       'npb_cg=@SRC@/NPB3.4/NPB3.4-MPI/bin/cg.B.x')

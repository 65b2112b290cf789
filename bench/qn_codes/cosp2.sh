# CoSP2, ExMatEx's SP2 density-matrix purification (each rank's rows go to
# every other rank, plus allreduces); its README's strong-scaling case, the
# 1024-orbital Hamiltonian padded to N 12288, M 256. Only src-mpi and data are
# exported: the mirror lacks the results/ files (outputs, never read).
repo=exmatex/CoSP2
commit=3e07ada091a74c47de810c2df9747bebc12848d5
paths=(src-mpi data)
build() {
  cd src-mpi && make -f Makefile.vanilla CC=smpicc \
    CFLAGS="-std=c99 -DPOS1 -DCONTIG_MATRIX -DDOUBLE -DDO_MPI -O3"
}
specs=('cosp2=@SRC@/bin/CoSP2-parallel --hmatName @SRC@/data/hmatrix.1024.mtx --N 12288 --M 256')

# CloverLeaf, UoB-HPC's C++ port of the 2-D Lagrangian-Eulerian hydro
# mini-app (serial kernels, MPI: halo exchanges on its own chunk grid, an
# allreduce a step): InputDecks/clover_bm_short.in cut to 480 x 480 cells and
# 20 steps (clover480.in, written by build()), its test_problem line dropped:
# the check knows no value for this size and would exit 1, stopping the recording.
repo=UoB-HPC/CloverLeaf
commit=ba256dccb033d385c23a4a02983b2d137eebeca4
build() {
  smpi_cmake_build -DMODEL=serial -DENABLE_MPI=ON &&
    sed -e 's/x_cells=.*/x_cells=480/' -e 's/y_cells=.*/y_cells=480/' -e 's/end_step=.*/end_step=20/' \
      -e '/test_problem/d' InputDecks/clover_bm_short.in > clover480.in
}
specs=('cloverleaf=@SRC@/build/serial-cloverleaf --file @SRC@/clover480.in')

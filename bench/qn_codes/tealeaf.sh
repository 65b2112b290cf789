# TeaLeaf, UoB-HPC's C++ port of the heat-conduction mini-app (serial kernels,
# MPI; conjugate gradient, two allreduces and a halo exchange an iteration):
# its tea.in with a 256 x 256 mesh and 10 steps (tea256.in, written by build()).
# tea.problems has no value for that size and the code exits 1 when its check
# fails, which stops the recording: build() adds the one-process result.
repo=UoB-HPC/TeaLeaf
commit=e70261c0be40537da75b258108ed2898f84f3c58
build() {
  smpi_cmake_build -DMODEL=serial -DENABLE_MPI=ON &&
    sed -e 's/^x_cells=.*/x_cells=256/' -e 's/^y_cells=.*/y_cells=256/' -e 's/^end_step=.*/end_step=10/' tea.in > tea256.in &&
    { cat tea.problems; echo '256 256 10 1.050809442449691e+02'; } > tea256.problems
}
specs=('tealeaf=@SRC@/build/serial-tealeaf --file @SRC@/tea256.in --problems @SRC@/tea256.problems')

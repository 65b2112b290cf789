# miniFE (Mantevo), the reference MPI version in ref/src: an implicit finite-element
# assembly on a 40^3 brick, then conjugate gradient (a 3-D halo exchange and two
# allreduces per iteration). Built with its own Makefile, SMPI's compilers and -O2
# (CXXFLAGS follows CFLAGS there).
repo=Mantevo/miniFE
commit=c79e0f7f7afdd6c8191936efce7a668316159cc3
build() { cd ref/src && make -j2 CXX=smpicxx CC=smpicc CFLAGS=-O2; }
specs=('minife=@SRC@/ref/src/miniFE.x -nx 40 -ny 40 -nz 40')

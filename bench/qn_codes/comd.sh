# CoMD (ECP proxy app), classical molecular dynamics with the EAM potential on 32,000
# copper atoms for 100 steps: a 3-D periodic decomposition, six face exchanges per halo,
# allreduces at print steps. The grid per count follows CoMD's strong-scaling script,
# extended to 64. The Makefile ships as Makefile.vanilla; double precision is its default.
repo=ECP-copa/CoMD
commit=3d48396b77ca8caa3124bc2391f9139c3ffb556c
build() { cd src-mpi && cp Makefile.vanilla Makefile && make CC=smpicc OPTFLAGS=-O2; }
comd_grid() { # n -> CoMD's -i -j -k
  case $1 in
    1) echo -i 1 -j 1 -k 1 ;; 2) echo -i 2 -j 1 -k 1 ;; 4) echo -i 2 -j 2 -k 1 ;;
    8) echo -i 2 -j 2 -k 2 ;; 16) echo -i 4 -j 2 -k 2 ;; 32) echo -i 4 -j 4 -k 2 ;;
    64) echo -i 4 -j 4 -k 4 ;; *) echo "comd_grid: no grid for $1" >&2; return 1 ;;
  esac
}
export -f comd_grid
specs=('comd=@SRC@/bin/CoMD-mpi -e $(comd_grid $n) -x 20 -y 20 -z 20 -d @SRC@/pots')

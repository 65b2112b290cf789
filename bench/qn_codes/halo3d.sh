# SST ember halo3d: the 7-point 3-D halo exchange motif as a plain MPI program
# whose computation is a nanosleep per iteration. Input: a 128^3 global grid split
# px x py x pz, 100 iterations, 1 variable, a sleep of 1 ns per local cell (2097152/n).
# SMPI simulates the sleep online, but its -trace-ti trace holds no record of it.
repo=sstsimulator/ember
commit=f47fcd9acba0a4b3787e3bc4a0e7fb96fb922141
build() {
  cd mpi/halo3d && smpicc -O3 -std=c99 -o halo3d halo3d.c
}
halo_grid() { # n -> process grid and per-rank sizes of the 128^3 grid
  local p
  case $1 in
    1) p='1 1 1' ;; 2) p='2 1 1' ;; 4) p='2 2 1' ;; 8) p='2 2 2' ;;
    16) p='4 2 2' ;; 32) p='4 4 2' ;; 64) p='4 4 4' ;; *) return 1 ;;
  esac
  set -- $p
  echo -pex $1 -pey $2 -pez $3 -nx $((128 / $1)) -ny $((128 / $2)) -nz $((128 / $3))
}
export -f halo_grid
specs=('halo3d=@SRC@/mpi/halo3d/halo3d $(halo_grid $n) -iterations 100 -vars 1 -sleep $((2097152 / n))')

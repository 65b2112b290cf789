# miniAMR (Mantevo), the reference MPI version in ref/: a 7-point stencil on blocks
# of an octree mesh that a moving sphere's surface refines and coarsens every 5
# steps (irregular, changing halo partners; RCB load balancing that moves blocks;
# checksum allreduces). Input: a 4x4x4 initial mesh of 8^3-cell blocks at every
# count (init_x = 4 / npx, ...), 3 levels of refinement, 20 variables, 20 steps of
# 10 stages, one sphere crossing the cube (the README's example object). At 64
# ranks the compute is ~60 ms against ~8 s of refinement and communication.
# max_blocks, allocated up front, is sized to the ~3500 blocks the 1-rank run
# reaches. Built with its Makefile, SMPI's compiler and -O2.
repo=Mantevo/miniAMR
commit=635fef2f83558f09805725428daf366c32428d0c
build() { cd ref && make CC=smpicc LD=smpicc CFLAGS=-O2; }
miniamr_grid() { # n -> process grid and initial blocks per rank of the 4x4x4 mesh
  local p
  case $1 in
    1) p='1 1 1' ;; 2) p='2 1 1' ;; 4) p='2 2 1' ;; 8) p='2 2 2' ;;
    16) p='4 2 2' ;; 32) p='4 4 2' ;; 64) p='4 4 4' ;; *) return 1 ;;
  esac
  set -- $p
  echo --npx $1 --npy $2 --npz $3 --init_x $((4 / $1)) --init_y $((4 / $2)) --init_z $((4 / $3)) \
    --max_blocks $((4000 / $1 / $2 / $3 + 500))
}
export -f miniamr_grid
specs=('miniamr=@SRC@/ref/miniAMR.x --nx 8 --ny 8 --nz 8 $(miniamr_grid $n) --num_refine 3 --num_vars 20 --num_tsteps 20 --stages_per_ts 10 --checksum_freq 10 --refine_freq 5 --num_objects 1 --object 2 0 -1.10 -1.10 -1.10 0.030 0.030 0.030 1.5 1.5 1.5 0.0 0.0 0.0 --report_perf 4')

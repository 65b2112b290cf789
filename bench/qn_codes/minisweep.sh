# minisweep, ORNL's Sn radiation-transport sweep (KBA wavefront over a PX x PY
# grid of ranks, Isend/Irecv/Waitall faces, a few allreduces): a 32^3 mesh,
# 16 groups, 16 angles, 8 z-blocks, on 1x1, 2x1, 2x2, 4x2, 4x4, 8x4, 8x8 ranks.
# Built with smpicc directly, as the study did (no cmake).
repo=wdj/minisweep
commit=b4c94312f37608223a3396b62231d0777d5dfc7a
build() {
  smpicc -DUSE_MPI -DNM_VALUE=4 -O3 -Isrc/1_base -Isrc/2_sweeper_base -Isrc/3_sweeper -Isrc/4_driver \
    src/1_base/{arguments,env,env_assert,env_cuda,env_mpi,pointer}.c \
    src/2_sweeper_base/{array_operations,dimensions}.c \
    src/3_sweeper/{faces_kba,quantities,stepscheduler_kba,sweeper,sweeper_kernels}.c \
    src/4_driver/runner.c src/4_driver/sweep.c -o sweep -lm
}
minisweep_grid() { # n -> --nproc_x PX --nproc_y PY, PX >= PY, both powers of 2
  local px=1 py=1 m=$1
  while (( m > 1 )); do if (( px == py )); then px=$((px * 2)); else py=$((py * 2)); fi; m=$((m / 2)); done
  echo "--nproc_x $px --nproc_y $py"
}
export -f minisweep_grid
specs=('minisweep=@SRC@/sweep --ncell_x 32 --ncell_y 32 --ncell_z 32 --ne 16 --na 16 --nblock_z 8 $(minisweep_grid $n)')

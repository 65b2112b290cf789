# HPCG 3.1 (hpcg-benchmark), the reference code: conjugate gradient preconditioned
# by a 4-level geometric multigrid with symmetric Gauss-Seidel smoothing on a
# 27-point problem (halo exchanges with up to 26 neighbours at every level, dot
# product allreduces). Input: a 64 x 128 x 128 global grid at every count, split
# over 1 x PY x PZ ranks (local sizes stay multiples of 8, >= 16: 64x16x16 at 64;
# the 4x4x4 split of a 64^3 grid took ~280 s to record at 64 ranks, 26 neighbours
# a halo). --rt=0 is HPCG's QuickPath: one call of each timed block and a single
# CG set, so the work never follows measured (simulated) time. Built with smpicxx
# directly, MPI on, OpenMP off.
repo=hpcg-benchmark/hpcg
commit=114602d458d1034faa52b71e4c15aba9b3a17698
build() { smpicxx -O2 -DHPCG_NO_OPENMP -o xhpcg src/*.cpp; }
hpcg_grid() { # n -> 1 x PY x PZ ranks and local sizes of the 64 x 128 x 128 grid
  local py=1 pz=1 m=$1
  while (( m > 1 )); do if (( py == pz )); then py=$((py * 2)); else pz=$((pz * 2)); fi; m=$((m / 2)); done
  echo --nx=64 --ny=$((128 / py)) --nz=$((128 / pz)) --npx=1 --npy=$py --npz=$pz
}
export -f hpcg_grid
specs=('hpcg=@SRC@/xhpcg $(hpcg_grid $n) --rt=0')

# HPGMG-FV: finite-volume geometric multigrid (F-cycles, GSRB smoother,
# BiCGStab bottom solver). Input: 64 boxes of 16^3 (a 64^3 domain) at every
# count. -DTEST_ERROR skips the timed loop (its solve count follows measured
# time), keeping 3 fixed solves; --no-fv-subcomm keeps collectives on WORLD.
repo=hpgmg/hpgmg
commit=a93ff2376fbcd01a0939f03bf8c77b9800d45a50
build() {
  python3 ./configure --CC=smpicc --CFLAGS=-O2 --CPPFLAGS=-DTEST_ERROR --no-fv-subcomm && make -C build -j2
}
specs=('hpgmg=@SRC@/build/bin/hpgmg-fv 4 $((64 / n))')

# miniXyce, Mantevo's circuit-simulation mini-app (GMRES on the circuit's
# matrix; three barriers and one send/receive pair a step): a 40,000-stage RC
# ladder from its own tests/RC_ladder.pl, 1,000 steps of 1e-8 s (GMRES settings
# as its tests/default_params.txt, which it reads from the cwd). Its Makefile
# copies the timer source in while running and then misses it: copied first.
repo=Mantevo/miniXyce
commit=ef1acf2645bcafc701d714564517eb4227483a21
build() {
  (cd ref/src && ./get_common_files && make CXX=smpicxx LINKER=smpicxx) &&
    perl tests/RC_ladder.pl 40000 > rc40000.net
}
specs=('minixyce=@SRC@/ref/src/miniXyce.x -c @SRC@/rc40000.net -ti 0 -h 1e-8 -tf 1e-5 -tol 1e-8 -k 10 --max_restarts 20')

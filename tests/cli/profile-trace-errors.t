# profile, trace, phases and probe on input they cannot use: what was expected, a non-zero exit.
$ perfcast profile $OUT/no-such-run
! error: $OUT/no-such-run: not a trace directory
? 1
$ mkdir $OUT/empty && perfcast profile $OUT/empty
! error: $OUT/empty: no rank trace (rank-0.txt, ...): was the program an MPI program, run through mpirun?
? 1
$ perfcast trace -o $OUT/run
! error: perfcast trace: command is required; 'perfcast trace --help' lists its options
? 2
$ perfcast phases predict --runs $OUT/none --db examples/kernels/kernels-2procs.db --size 100
! error: perfcast phases predict: unknown option '--runs' (did you mean '--run'?); 'perfcast phases predict --help' lists its options
? 2
$ perfcast probe --what nothing -o $OUT/p.json
! error: perfcast probe: unknown option '--what'; 'perfcast probe --help' lists its options
? 2

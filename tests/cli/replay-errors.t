# Bad input to replay: the file and line, what was expected, a non-zero exit.
$ perfcast replay examples/traces/stencil16 -p no-such-platform.xml
! error: no-such-platform.xml: cannot open platform file
? 1
$ printf '0 init\n0 compute lots\n0 finalize\n' > $OUT/t.txt && perfcast replay $OUT/t.txt -p examples/platforms/cluster16.xml
! error: $OUT/t.txt:2: 'compute' argument 1 (flops): expected a non-negative number, got 'lots'
? 1
$ perfcast replay examples/traces/stencil16 -p examples/platforms/cluster16.xml --net nosuch
! error: --net: unknown network model 'nosuch' (expected one of: smpi, loggp)
? 1

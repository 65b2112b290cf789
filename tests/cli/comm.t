# The communication of a parallel version of a sequential 2-D heat code, from its value flow: built with
# perfcast-cc, run, reported, and written as a 16-process trace that the replay takes.
$ perfcast-cc -O2 examples/comm/heat2d/heat2d_seq.c -o $OUT/heat && echo built
> built
$ perfcast comm run --procs 2..16:x2 --region step -o $OUT/r -- $OUT/heat 32 5
> heat2d_seq n=32 steps=5 sum=2271.616000
> heat2d_seq n=32 steps=5 sum=2271.616000
> program: $OUT/heat 32 5
> region: step (5 calls; figures per call)
> values: 7432 created, 0 copies, 0 inputs, 2304 graph vertices, 10240 edges
> singletons: 0 broadcast, 0 allreduce, 0 reduce
>
>  procs          bytes      p2p_bytes     coll_bytes   messages    colls
>      2          512.0          512.0            0.0        2.0      0.0
>      4         1024.0         1024.0            0.0        8.0      0.0
>      8         2048.0         2048.0            0.0       20.0      0.0
>     16         3072.0         3072.0            0.0       48.0      0.0
$ perfcast comm report $OUT/r
> program: $OUT/heat 32 5
> region: step (5 calls; figures per call)
> values: 7432 created, 0 copies, 0 inputs, 2304 graph vertices, 10240 edges
> singletons: 0 broadcast, 0 allreduce, 0 reduce
>
>  procs          bytes      p2p_bytes     coll_bytes   messages    colls
>      2          512.0          512.0            0.0        2.0      0.0
>      4         1024.0         1024.0            0.0        8.0      0.0
>      8         2048.0         2048.0            0.0       20.0      0.0
>     16         3072.0         3072.0            0.0       48.0      0.0
$ perfcast comm synth $OUT/r --procs 16 --flops-per-value 1e4 -o $OUT/t && perfcast replay $OUT/t -p examples/platforms/cluster16.xml --summary
> wrote $OUT/t/trace.txt: 16 processes, 5 region calls
> makespan: 0.001357 s   (16 ranks, 672 actions, network model smpi)
>
> over the 16 ranks (--per-rank prints a row per rank):
>                         min     rank             mean              max     rank
> finish_s           0.001357        0         0.001357         0.001357        0
> compute_s          0.000320        0         0.000320         0.000320        0
> comm_s             0.001037        0         0.001037         0.001037        0
> wait_s             0.000000        0         0.000000         0.000000        0
> sleep_s            0.000000        0         0.000000         0.000000        0
> msgs_out                 10        0             15.0               20        5
> bytes_out               640        0            960.0             1280        5
> msgs_in                  10        0             15.0               20        5
> bytes_in                640        0            960.0             1280        5

# A 64-rank imbalanced trace coarsened to 16 ranks, and the load balancers on a load database.
$ perfcast aggregate examples/traces/imbalance64 -o $OUT/c16 --ranks 16 && perfcast replay $OUT/c16 -p examples/platforms/cluster16.xml --summary
> aggregated 64 ranks into 16 (100 iterations): 22400 messages, 9600 inside groups (gone), 4400 merged messages written; trace $OUT/c16/trace.txt
> makespan: 0.815970 s   (16 ranks, 26004 actions, network model smpi)
> compute phases between collectives on every rank: 101; each phase's slowest rank computes 2.260 x the mean
>
> over the 16 ranks (--per-rank prints a row per rank):
>                         min     rank             mean              max     rank
> finish_s           0.814990        1         0.815346         0.815970        6
> compute_s          0.235779       13         0.320674         0.546719        1
> comm_s             0.042424       15         0.054743         0.064801        1
> wait_s             0.203470        1         0.439929         0.528777        7
> sleep_s            0.000000        0         0.000000         0.000000        0
> msgs_out                300        1            462.5              700        8
> bytes_out            128800        1         206300.0           233600        8
> msgs_in                 300        1            462.5             1700        0
> bytes_in             128800        1         206300.0           231200        2
$ perfcast lb decide --balancer greedy-refine:tolerance=1.05 tests/data/lb/five-on-one.json
> balancer: greedy-refine:tolerance=1.05   (3 PEs, 5 objects)
>
>    pe available   speed     before_s      after_s objs_bef objs_aft
>     0       yes   1.000    15.500000     5.500000        5        1
>     1       yes   1.000     0.250000     5.250000        0        2
>     2       yes   1.000     0.000000     5.000000        0        2
>
> max/avg load: before 2.9524 (15.500000 / 5.250000 s), after 1.0476 (5.500000 / 5.250000 s)
> migrations: 4 of 5 objects, 3840 bytes moved
$ perfcast lb decide --balancer greedy tests/data/lb/five-on-one.json --json
> {
>   "assignment": [
>     2,
>     1,
>     0,
>     0,
>     1
>   ],
>   "balancer": "greedy",
>   "bytes_moved": 6400,
>   "max_avg_after": 1.0476190476190477,
>   "max_avg_before": 2.9523809523809526,
>   "migrations": 3,
>   "pes": [
>     {
>       "id": 0,
>       "load_after_s": 5.5,
>       "load_before_s": 15.5,
>       "objects_after": 2,
>       "objects_before": 5
>     },
>     {
>       "id": 1,
>       "load_after_s": 5.25,
>       "load_before_s": 0.25,
>       "objects_after": 2,
>       "objects_before": 0
>     },
>     {
>       "id": 2,
>       "load_after_s": 5.0,
>       "load_before_s": 0.0,
>       "objects_after": 1,
>       "objects_before": 0
>     }
>   ]
> }

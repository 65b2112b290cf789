# The replay's table, its summary and JSON, on the bundled 16-rank stencil (recorded with smpirun).
$ perfcast replay examples/traces/stencil16 -p examples/platforms/cluster16.xml
> makespan: 0.063775 s   (16 ranks, 7232 actions, network model smpi)
> compute phases between collectives on every rank: 51; each phase's slowest rank computes 1.000 x the mean
>
>  rank host                 finish_s    compute_s       comm_s       wait_s  msgs_out    bytes_out   msgs_in     bytes_in
>     0 node-0               0.062959     0.001638     0.021297     0.040023       300       206400       850       210800
>     1 node-1               0.063163     0.001638     0.024073     0.037451       200       307600       200       307600
>     2 node-2               0.063163     0.001638     0.022228     0.039296       250       308000       200       307600
>     3 node-3               0.063367     0.001638     0.022654     0.039074       150       205200       150       205200
>     4 node-4               0.063163     0.001638     0.024073     0.037451       300       308400       200       307600
>     5 node-5               0.063367     0.001638     0.024074     0.037655       250       410000       250       410000
>     6 node-6               0.063367     0.001638     0.022679     0.039050       300       410400       250       410000
>     7 node-7               0.063571     0.001638     0.022679     0.039254       200       307600       200       307600
>     8 node-8               0.063163     0.001638     0.022213     0.039312       350       308800       200       307600
>     9 node-9               0.063367     0.001638     0.022678     0.039051       250       410000       250       410000
>    10 node-10              0.063367     0.001638     0.021287     0.040442       300       410400       250       410000
>    11 node-11              0.063571     0.001638     0.021267     0.040665       200       307600       200       307600
>    12 node-12              0.063367     0.001638     0.022678     0.039051       250       206000       150       205200
>    13 node-13              0.063571     0.001638     0.022666     0.039266       200       307600       200       307600
>    14 node-14              0.063571     0.001638     0.021271     0.040661       250       308000       200       307600
>    15 node-15              0.063775     0.001638     0.021271     0.040865       150       205200       150       205200
$ perfcast replay examples/traces/stencil16 -p examples/platforms/cluster16.xml --summary --net loggp
> makespan: 0.032812 s   (16 ranks, 7232 actions, network model loggp)
> compute phases between collectives on every rank: 51; each phase's slowest rank computes 1.000 x the mean
>
> over the 16 ranks (--per-rank prints a row per rank):
>                         min     rank             mean              max     rank
> finish_s           0.032407        0         0.032610         0.032812       15
> compute_s          0.001638        1         0.001638         0.001638        0
> comm_s             0.010935        0         0.010935         0.010935        0
> wait_s             0.019834        0         0.020036         0.020238       15
> sleep_s            0.000000        0         0.000000         0.000000        0
> msgs_out                150        3            243.8              350        8
> bytes_out            205200        3         307950.0           410400        6
> msgs_in                 150        3            243.8              850        0
> bytes_in             205200        3         307950.0           410000        5
$ perfcast replay examples/traces/collectives8 -p examples/platforms/hetero8.xml --placement block --json --summary
> {
>   "actions": 416,
>   "compute_phases": {
>     "mean_flops": 50000000.0,
>     "phases": 46,
>     "slowest_flops": 50000000.0
>   },
>   "makespan_s": 0.045050131828170324,
>   "message_sizes": [
>     {
>       "bytes": 0,
>       "max_bytes": 0,
>       "messages": 70,
>       "min_bytes": 0
>     },
>     {
>       "bytes": 560,
>       "max_bytes": 15,
>       "messages": 70,
>       "min_bytes": 8
>     },
>     {
>       "bytes": 645120,
>       "max_bytes": 2047,
>       "messages": 630,
>       "min_bytes": 1024
>     },
>     {
>       "bytes": 1146880,
>       "max_bytes": 16383,
>       "messages": 140,
>       "min_bytes": 8192
>     }
>   ],
>   "network": "smpi",
>   "rank_summary": {
>     "bytes_in": {
>       "max": 681240.0,
>       "max_rank": 0,
>       "mean": 224070.0,
>       "min": 158760.0,
>       "min_rank": 1
>     },
>     "bytes_out": {
>       "max": 353400.0,
>       "max_rank": 0,
>       "mean": 224070.0,
>       "min": 158760.0,
>       "min_rank": 1
>     },
>     "comm_s": {
>       "max": 0.021390645782696935,
>       "max_rank": 7,
>       "mean": 0.019623281194746205,
>       "min": 0.017682663237693533,
>       "min_rank": 0
>     },
>     "compute_s": {
>       "max": 0.005208333333333336,
>       "max_rank": 0,
>       "mean": 0.005208333333333336,
>       "min": 0.005208333333333336,
>       "min_rank": 0
>     },
>     "finish_s": {
>       "max": 0.045050131828170324,
>       "max_rank": 1,
>       "mean": 0.04502455180681473,
>       "min": 0.044845491657325584,
>       "min_rank": 0
>     },
>     "msgs_in": {
>       "max": 245.0,
>       "max_rank": 0,
>       "mean": 113.75,
>       "min": 95.0,
>       "min_rank": 1
>     },
>     "msgs_out": {
>       "max": 185.0,
>       "max_rank": 0,
>       "mean": 113.75,
>       "min": 95.0,
>       "min_rank": 1
>     },
>     "sleep_s": {
>       "max": 0.0,
>       "max_rank": 0,
>       "mean": 0.0,
>       "min": 0.0,
>       "min_rank": 0
>     },
>     "wait_s": {
>       "max": 0.021954495086298716,
>       "max_rank": 0,
>       "mean": 0.02019293727873519,
>       "min": 0.018451152712140054,
>       "min_rank": 7
>     }
>   }
> }

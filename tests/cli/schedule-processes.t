# Processes on two 2-core computers under placement policies: listed processes (CPU, disk, memory), a generated
# workload with a seed, and the busy-cores plot.
$ perfcast schedule -p tests/cli/data/pair.json -w tests/cli/data/processes.json --policy round-robin --per-process
> 5 processes on 2 computers, policy round-robin, makespan 5 s
>
>                      mean          p50          p90          p99          max
> response_s           2.73            3            4            4            4
> waiting_s            0.25         0.25         0.75         0.75         0.75
> slowdown          1.18333      1.08333        1.625        1.625        1.625
>
>         id computer          arrival_s       finish_s   response_s    waiting_s   slowdown
>          0 c1                 0.000000       3.250000     3.250000     0.250000     1.0833
>          1 c2                 0.500000       3.500000     3.000000     0.000000     1.0000
>          2 c1                 1.000000       2.450000     1.450000     0.250000     1.2083
>          3 c2                 1.000000       5.000000     4.000000     0.000000     1.0000
>          4 c1                 1.500000       3.450000     1.950000     0.750000     1.6250
$ perfcast schedule -p tests/cli/data/pair.json -w tests/cli/data/processes.json --policy least-work --json
> {
>   "makespan_s": 5.4,
>   "migrations": 0,
>   "per_process": [
>     {
>       "arrival_s": 0.0,
>       "computer": "c1",
>       "finish_s": 3.4000000000000004,
>       "id": 0,
>       "migrations": 0,
>       "response_s": 3.4000000000000004,
>       "slowdown": 1.1333333333333335,
>       "waiting_s": 0.40000000000000036
>     },
>     {
>       "arrival_s": 0.5,
>       "computer": "c2",
>       "finish_s": 3.5,
>       "id": 1,
>       "migrations": 0,
>       "response_s": 3.0,
>       "slowdown": 1.0,
>       "waiting_s": 0.0
>     },
>     {
>       "arrival_s": 1.0,
>       "computer": "c1",
>       "finish_s": 2.5999999999999996,
>       "id": 2,
>       "migrations": 0,
>       "response_s": 1.5999999999999996,
>       "slowdown": 1.333333333333333,
>       "waiting_s": 0.3999999999999997
>     },
>     {
>       "arrival_s": 1.0,
>       "computer": "c1",
>       "finish_s": 5.4,
>       "id": 3,
>       "migrations": 0,
>       "response_s": 4.4,
>       "slowdown": 1.1,
>       "waiting_s": 0.40000000000000036
>     },
>     {
>       "arrival_s": 1.5,
>       "computer": "c2",
>       "finish_s": 2.7,
>       "id": 4,
>       "migrations": 0,
>       "response_s": 1.2000000000000002,
>       "slowdown": 1.0000000000000002,
>       "waiting_s": 2.220446049250313e-16
>     }
>   ],
>   "policy": "least-work",
>   "processes": 5,
>   "response_s": {
>     "max": 4.4,
>     "mean": 2.7200000000000006,
>     "p50": 3.0,
>     "p90": 4.4,
>     "p99": 4.4
>   },
>   "slowdown": {
>     "max": 1.333333333333333,
>     "mean": 1.1133333333333333,
>     "p50": 1.1,
>     "p90": 1.333333333333333,
>     "p99": 1.333333333333333
>   },
>   "waiting_s": {
>     "max": 0.40000000000000036,
>     "mean": 0.2400000000000001,
>     "p50": 0.3999999999999997,
>     "p90": 0.40000000000000036,
>     "p99": 0.40000000000000036
>   }
> }
$ perfcast schedule -p tests/cli/data/pair.json -w tests/cli/data/generated.json --policy balance:period=1 --seed 3 --utilisation $OUT/busy.svg && grep -c '<path\|<polyline\|<rect' $OUT/busy.svg
> 200 processes on 2 computers, policy balance:period=1, makespan 75.9276 s, 6 migrations
>
>                      mean          p50          p90          p99          max
> response_s        1.96392       1.2741      4.63612      9.41851      14.4201
> waiting_s        0.881067     0.249781      2.65918      5.16566      9.18897
> slowdown          1.81629          1.5      3.01427          3.5      3.62859
>
> utilisation plot written to $OUT/busy.svg
> 5
$ perfcast schedule -p tests/cli/data/pair.json -w tests/cli/data/generated.json --policy lowest --json | head -32
> {
>   "makespan_s": 75.92760362060449,
>   "migrations": 0,
>   "per_process": [
>     {
>       "arrival_s": 0.1127408112127075,
>       "computer": "c1",
>       "finish_s": 0.1647699521714317,
>       "id": 0,
>       "migrations": 0,
>       "response_s": 0.0520291409587242,
>       "slowdown": 0.9999999999999999,
>       "waiting_s": 0.0
>     },
>     {
>       "arrival_s": 0.9695595051086602,
>       "computer": "c1",
>       "finish_s": 1.083945991772327,
>       "id": 1,
>       "migrations": 0,
>       "response_s": 0.11438648666366691,
>       "slowdown": 1.0000000000000007,
>       "waiting_s": 8.326672684688674e-17
>     },
>     {
>       "arrival_s": 1.7523880094114994,
>       "computer": "c1",
>       "finish_s": 5.231947918010334,
>       "id": 2,
>       "migrations": 0,
>       "response_s": 3.479559908598835,
>       "slowdown": 1.2003740348220127,
$ perfcast schedule -p tests/cli/data/pair.json -w tests/cli/data/processes.json --policy easy
! error: tests/cli/data/processes.json: holds processes, and policy 'easy' schedules rigid parallel jobs (expected an SWF log or a "jobs" workload, or a placement policy such as lowest)
? 1

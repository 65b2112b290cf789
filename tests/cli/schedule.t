# Rigid jobs under the batch policies on the 4-node Table-1 platform (32 cores): the second job waits for the
# first; EASY lets the later small ones go first, FCFS does not.
$ perfcast schedule -p examples/platforms/table1-4nodes.json -w tests/cli/data/jobs.json --policy fcfs --per-process
> 4 jobs on 4 computers, policy fcfs, makespan 900 s
>
>                      mean          p50          p90          p99          max
> response_s          697.5          620          890          890          890
> waiting_s             435          570          590          590          590
> slowdown          5.79167      2.96667         12.4         12.4         12.4
> (slowdown of a job: response over max(run time, 10 s))
>
>         id computer          arrival_s       finish_s   response_s    waiting_s   slowdown
>          1 e5620-0            0.000000     600.000000   600.000000     0.000000     1.0000
>          2 e5620-0           10.000000     900.000000   890.000000   590.000000     2.9667
>          3 e5620-2           20.000000     700.000000   680.000000   580.000000     6.8000
>          4 e5620-3           30.000000     650.000000   620.000000   570.000000    12.4000
$ perfcast schedule -p examples/platforms/table1-4nodes.json -w tests/cli/data/jobs.json --policy easy --per-process
> 4 jobs on 4 computers, policy easy, makespan 900 s
>
>                      mean          p50          p90          p99          max
> response_s          432.5          140          890          890          890
> waiting_s             170            0          590          590          590
> slowdown          1.94167            1      2.96667      2.96667      2.96667
> (slowdown of a job: response over max(run time, 10 s))
>
>         id computer          arrival_s       finish_s   response_s    waiting_s   slowdown
>          1 e5620-0            0.000000     600.000000   600.000000     0.000000     1.0000
>          2 e5620-0           10.000000     900.000000   890.000000   590.000000     2.9667
>          3 e5620-3           20.000000     120.000000   100.000000     0.000000     1.0000
>          4 e5620-3           30.000000     170.000000   140.000000    90.000000     2.8000
$ perfcast schedule -p examples/platforms/table1-4nodes.json -w tests/cli/data/jobs.json --policy conservative --json
> {
>   "jobs": 4,
>   "makespan_s": 900.0,
>   "per_job": [
>     {
>       "arrival_s": 0.0,
>       "computer": "e5620-0",
>       "finish_s": 600.0,
>       "id": 1,
>       "procs": 24,
>       "response_s": 600.0,
>       "slowdown": 1.0,
>       "start_s": 0.0,
>       "waiting_s": 0.0
>     },
>     {
>       "arrival_s": 10.0,
>       "computer": "e5620-0",
>       "finish_s": 900.0,
>       "id": 2,
>       "procs": 16,
>       "response_s": 890.0,
>       "slowdown": 2.966666666666667,
>       "start_s": 600.0,
>       "waiting_s": 590.0
>     },
>     {
>       "arrival_s": 20.0,
>       "computer": "e5620-3",
>       "finish_s": 120.0,
>       "id": 3,
>       "procs": 8,
>       "response_s": 100.0,
>       "slowdown": 1.0,
>       "start_s": 20.0,
>       "waiting_s": 0.0
>     },
>     {
>       "arrival_s": 30.0,
>       "computer": "e5620-3",
>       "finish_s": 170.0,
>       "id": 4,
>       "procs": 8,
>       "response_s": 140.0,
>       "slowdown": 2.8,
>       "start_s": 120.0,
>       "waiting_s": 90.0
>     }
>   ],
>   "policy": "conservative",
>   "response_s": {
>     "max": 890.0,
>     "mean": 432.5,
>     "p50": 140.0,
>     "p90": 890.0,
>     "p99": 890.0
>   },
>   "skipped_unknown_run_time": 0,
>   "slowdown": {
>     "max": 2.966666666666667,
>     "mean": 1.9416666666666667,
>     "p50": 1.0,
>     "p90": 2.966666666666667,
>     "p99": 2.966666666666667
>   },
>   "waiting_s": {
>     "max": 590.0,
>     "mean": 170.0,
>     "p50": 0.0,
>     "p90": 590.0,
>     "p99": 590.0
>   }
> }
$ perfcast schedule -p examples/platforms/table1-4nodes.json -w tests/cli/data/nosuch.json
! error: tests/cli/data/nosuch.json: cannot open workload file
? 1

# The 64-rank imbalanced trace as virtual processors on 16 cores under Charm++'s balancers.
$ perfcast lb replay examples/traces/imbalance64 -p examples/platforms/cluster16.xml --cores 16 --balancer greedy --period 10
> 64 VPs on 16 cores (block mapping), balancer greedy every 10 migration points
>
> makespan without balancing:     0.819495 s
> makespan with balancing:        0.779081 s   (speedup 1.052)
> balancing steps: 10, migrations: 589 (61502480 bytes), time in balancing steps: 0.069798 s
>
>  core host                   compute_s_none     compute_s_lb vps_start   vps_end
>     0 node-0                       0.545543         0.261142         4         1
>     1 node-1                       0.546719         0.217253         4         1
>     2 node-2                       0.247046         0.332240         4         1
>     3 node-3                       0.256366         0.297196         4         2
>     4 node-4                       0.252505         0.277640         4         2
>     5 node-5                       0.263884         0.259967         4         2
>     6 node-6                       0.250649         0.300176         4         3
>     7 node-7                       0.241807         0.282400         4         4
>     8 node-8                       0.260428         0.393405         4         5
>     9 node-9                       0.254331         0.339705         4         5
>    10 node-10                      0.252424         0.404704         4         7
>    11 node-11                      0.253879         0.350098         4         7
>    12 node-12                      0.249651         0.330450         4         6
>    13 node-13                      0.235779         0.358237         4         6
>    14 node-14                      0.524365         0.354626         4         6
>    15 node-15                      0.495399         0.371539         4         6
$ perfcast lb replay examples/traces/imbalance64 -p examples/platforms/cluster16.xml --cores 16 --balancer refine --period 10 --json | head -30
> {
>   "balancer": "refine",
>   "balancing_s": 0.04068125373924367,
>   "balancing_steps": 10,
>   "bytes_migrated": 8776480,
>   "core_list": [
>     {
>       "compute_s": 0.3538115724280008,
>       "compute_without_balancing_s": 0.5455434775919996,
>       "core": 0,
>       "host": "node-0"
>     },
>     {
>       "compute_s": 0.36943803634700045,
>       "compute_without_balancing_s": 0.5467193746599982,
>       "core": 1,
>       "host": "node-1"
>     },
>     {
>       "compute_s": 0.3524283731850007,
>       "compute_without_balancing_s": 0.2470463293319996,
>       "core": 2,
>       "host": "node-2"
>     },
>     {
>       "compute_s": 0.34789943465499984,
>       "compute_without_balancing_s": 0.25636631304599966,
>       "core": 3,
>       "host": "node-3"
>     },

# What `perfcast list` names: network models, collective algorithms, placements, balancers, policies.
$ perfcast list
> network models (--net):
>   smpi     SimGrid 3.32's SMPI model: piecewise latency/bandwidth factors, max-min sharing, TCP window cap, cross-traffic
>   loggp    contention-free LogGP: T = L + 2o + bytes * G, parameters settable
>
> collective algorithms (--coll NAME=ALGORITHM; 'default' follows SimGrid 3.32):
>   allgather  linear, ring
>   allreduce  reduce-bcast, recursive-doubling, ring, rabenseifner
>   alltoall   ompi, linear, pairwise, bruck
>   barrier    linear, dissemination
>   bcast      binomial, linear
>   reduce     linear, binomial
>
> placement policies (--placement): round-robin, block, or HOST,HOST,... (HOST:COUNT repeats)
>
> load balancers (perfcast lb decide --balancer NAME[:key=value,...]):
>   greedy  -  7.x Greedy (src/ck-ldb/greedy.h); 6.x GreedyLB.C is the same in double  heaviest object first onto the least-loaded PE
>   refine  -  7.x RefineA (src/ck-ldb/refine.h), what RefineLB means since 7.0  binary search on a max-load threshold from greedy's max load, moves from PEs above it
>   refine-classic  -  6.x (commit 57ea1f2, before 7.0 removed it) RefineLB.C + Refiner.C  moves from PEs above f x average, f = 1.05 + 0.01 k searched by multirefine
>   greedy-refine  tolerance=1.0 (factor over greedy's max load (>= 1))  7.x GreedyRefine (src/ck-ldb/greedy.h)  greedy, but an object stays home while its PE stays within tolerance x greedy's max load
>   rotate  -  6.x (commit 57ea1f2, before 7.0 removed it) RotateLB.C; 7.x Rotate  every migratable object to the next available PE
>   random  seed=20160101 (seed of the 64-bit Mersenne Twister)  6.x (commit 57ea1f2, before 7.0 removed it) RandCentLB.C; 7.x Random, but seeded  every migratable object to a uniformly drawn available PE
>   none  -  7.x Dummy  keeps every object where it is
>
> scheduling policies (perfcast schedule --policy NAME[:key=value,...]):
>   balance:period=10,probes=2  place like lowest; every P seconds move one running process from the computer with the most CPU jobs per core to the one with the fewest when its remaining time drops by more than the migration cost
>   least-work  least CPU work left per core
>   lowest:probes=2  probe L computers at random, take the one with fewest processes per core
>   most-free-memory  the computer with the most main memory free
>   random  a computer drawn uniformly
>   round-robin  computers in turn
>   threshold:probes=3,limit=1  probe up to L computers at random, take the first under T processes per core, else the least loaded probed
>   conservative  conservative backfilling: a later job starts early if it delays no queued job (rigid jobs)
>   easy  EASY backfilling: a later job starts early if it does not delay the first queued job (rigid jobs)
>   fcfs  rigid jobs in submit order; the first that does not fit waits, and so do the rest (rigid jobs)
>
> distributions (workload generators, NAME:key=value,...):
>   exp:mean=...  exponential with the given mean (> 0)
>   fixed:value=...  always value
>   hyperexp:p=...,mean1=...,mean2=...  exponential of mean1 with probability p (0..1), else of mean2
>   lognormal:mu=...,sigma=...  exp of a normal of mean mu, deviation sigma >= 0
>   uniform:min=...,max=...  uniform on [min, max], min <= max
>   weibull:shape=...,scale=...  Weibull, shape k > 0 and scale lambda > 0

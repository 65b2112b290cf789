# The main job on the bundled collectives traces at 1 to 8 ranks (examples/apps/collectives.c, 5 iterations,
# 4096 elements, 2e8 flops a rank and iteration, recorded with smpirun on cluster16); its real runs at 16, 32
# and 64 replay to 0.214188, 0.31288 and 0.49385 s there.
$ perfcast forecast examples/traces/collectives-scaling/1 examples/traces/collectives-scaling/2 examples/traces/collectives-scaling/4 examples/traces/collectives-scaling/8 -p examples/platforms/cluster16.xml --procs 16,32,64 -q
> forecast on examples/platforms/cluster16.xml (spread placement) from runs at 1, 2, 4, 8 processes
> answer: extrapolated replay, off by at most 0.0% per doubling of the processes in 1 forward validation (laws learned on 1, 2, 4 processes, the structure on every run: 0.0% at 8): the first of the methods, by what they model, within 15% (queueing network 4.3%, Amdahl's law 11.3%)
>
>   procs  predicted_s                      band_s  method              
>      16     0.214188        [0.214188, 0.214188]  extrapolated-replay 
>      32      0.31288          [0.31288, 0.31288]  extrapolated-replay 
>      64      0.49385          [0.49385, 0.49385]  extrapolated-replay 
>
> methods (validated forward: learned on the smaller runs, predicting the larger; error: at the largest run; /doubling: the worst error per doubling of the processes)
>   method                validated    error  /doubling    16 procs    32 procs    64 procs
>   extrapolated-replay        at 8     0.0%       0.0%     0.21419     0.31288     0.49385
>   queueing-network           at 8     4.3%       4.3%     0.21464     0.42738     0.57297
>   amdahl                     at 8    11.3%      11.3%     0.16365     0.16586     0.16697
> note: 16 hosts at the platform's speed, in the traces' own unit (examples/traces/collectives-scaling/1 has no tracer header saying what rate its computation was counted at)
$ perfcast forecast examples/traces/collectives-scaling/1 examples/traces/collectives-scaling/2 examples/traces/collectives-scaling/4 examples/traces/collectives-scaling/8 -p examples/platforms/cluster16.xml --procs 16,32,64 -q --json
> {
>   "methods": [
>     {
>       "applicable": true,
>       "method": "extrapolated-replay",
>       "predicted_s": [
>         0.2141882129614665,
>         0.31288022814508976,
>         0.49384969402078194
>       ],
>       "validated": true,
>       "validation": {
>         "checks": [
>           {
>             "error": 0.0,
>             "learned_on": [
>               1,
>               2,
>               4
>             ],
>             "predicted_s": 0.16852133868006175,
>             "procs": 8,
>             "rate_per_doubling": 0.0,
>             "truth_s": 0.16852133868006175
>           }
>         ],
>         "error": 0.0,
>         "note": "laws learned on 1, 2, 4 processes, the structure on every run",
>         "predicted_s": 0.16852133868006175,
>         "procs": 8,
>         "rate_per_doubling": 0.0
>       }
>     },
>     {
>       "applicable": true,
>       "method": "queueing-network",
>       "predicted_s": [
>         0.21463989559699204,
>         0.4273780886505424,
>         0.5729736930130753
>       ],
>       "validated": true,
>       "validation": {
>         "checks": [
>           {
>             "error": 0.04333099964669004,
>             "learned_on": [
>               1,
>               2,
>               4
>             ],
>             "predicted_s": 0.17582353674686724,
>             "procs": 8,
>             "rate_per_doubling": 0.04333099964668996,
>             "truth_s": 0.16852133868006175
>           }
>         ],
>         "error": 0.04333099964669004,
>         "note": "learned on 1, 2, 4 processes",
>         "predicted_s": 0.17582353674686724,
>         "procs": 8,
>         "rate_per_doubling": 0.04333099964668996
>       }
>     },
>     {
>       "applicable": true,
>       "method": "amdahl",
>       "predicted_s": [
>         0.16365196317080727,
>         0.16586075145767049,
>         0.16696514560110212
>       ],
>       "validated": true,
>       "validation": {
>         "checks": [
>           {
>             "error": 0.11316916662007324,
>             "learned_on": [
>               1,
>               2,
>               4
>             ],
>             "predicted_s": 0.14944991922394005,
>             "procs": 8,
>             "rate_per_doubling": 0.11316916662007315,
>             "truth_s": 0.16852133868006175
>           },
>           {
>             "error": 0.018447342762772878,
>             "learned_on": [
>               1,
>               2
>             ],
>             "predicted_s": 0.1443060203364145,
>             "procs": 4,
>             "rate_per_doubling": 0.018447342762772934,
>             "truth_s": 0.14169217619533592
>           },
>           {
>             "error": 0.09987448327161214,
>             "learned_on": [
>               1,
>               2
>             ],
>             "predicted_s": 0.15169035705915024,
>             "procs": 8,
>             "rate_per_doubling": 0.04874900871066967,
>             "truth_s": 0.16852133868006175
>           }
>         ],
>         "error": 0.11316916662007324,
>         "note": "learned on 1, 2, 4 processes",
>         "predicted_s": 0.14944991922394005,
>         "procs": 8,
>         "rate_per_doubling": 0.11316916662007315
>       }
>     }
>   ],
>   "notes": [
>     "16 hosts at the platform's speed, in the traces' own unit (examples/traces/collectives-scaling/1 has no tracer header saying what rate its computation was counted at)"
>   ],
>   "placement": "spread",
>   "platform": "examples/platforms/cluster16.xml",
>   "predictions": [
>     {
>       "band_s": [
>         0.2141882129614665,
>         0.2141882129614665
>       ],
>       "method": "extrapolated-replay",
>       "predicted_s": 0.2141882129614665,
>       "procs": 16,
>       "warnings": []
>     },
>     {
>       "band_s": [
>         0.31288022814508976,
>         0.31288022814508976
>       ],
>       "method": "extrapolated-replay",
>       "predicted_s": 0.31288022814508976,
>       "procs": 32,
>       "warnings": []
>     },
>     {
>       "band_s": [
>         0.49384969402078194,
>         0.49384969402078194
>       ],
>       "method": "extrapolated-replay",
>       "predicted_s": 0.49384969402078194,
>       "procs": 64,
>       "warnings": []
>     }
>   ],
>   "recommended": "extrapolated-replay",
>   "runs": [
>     {
>       "procs": 1,
>       "replay_s": 0.1,
>       "trace": "examples/traces/collectives-scaling/1"
>     },
>     {
>       "procs": 2,
>       "replay_s": 0.12953734689094298,
>       "trace": "examples/traces/collectives-scaling/2"
>     },
>     {
>       "procs": 4,
>       "replay_s": 0.14169217619533592,
>       "trace": "examples/traces/collectives-scaling/4"
>     },
>     {
>       "procs": 8,
>       "replay_s": 0.16852133868006175,
>       "trace": "examples/traces/collectives-scaling/8"
>     }
>   ],
>   "speeds": {
>     "hosts_at_platform_speed": 16,
>     "rules": [],
>     "spread": 0.0,
>     "traced_rate": 0.0,
>     "uncertainty": 0.0,
>     "unit": null
>   },
>   "why": "extrapolated replay, off by at most 0.0% per doubling of the processes in 1 forward validation (laws learned on 1, 2, 4 processes, the structure on every run: 0.0% at 8): the first of the methods, by what they model, within 15% (queueing network 4.3%, Amdahl's law 11.3%)"
> }
# The bundled stencil traces at 1 to 8 ranks (examples/apps/stencil2d.c, 12 iterations, 64x64 blocks, 5 flops a
# cell, recorded with smpirun on cluster16); its real runs at 16, 32 and 64 replay to 0.0150031, 0.0175528 and
# 0.0202437 s there.
$ perfcast forecast examples/traces/stencil2d-scaling/1 examples/traces/stencil2d-scaling/2 examples/traces/stencil2d-scaling/4 examples/traces/stencil2d-scaling/8 -p examples/platforms/cluster16.xml --procs 16,32,64 -q
> forecast on examples/platforms/cluster16.xml (spread placement) from runs at 1, 2, 4, 8 processes
> answer: extrapolated replay, off by at most 0.0% per doubling of the processes in 1 forward validation (laws learned on 1, 2, 4 processes, the structure on every run: 0.0% at 8): the first of the methods, by what they model, within 15% (queueing network 27.5%, Amdahl's law 10.9%)
>
>   procs  predicted_s                      band_s  method              
>      16    0.0150031      [0.0150031, 0.0150031]  extrapolated-replay 
>      32    0.0175528      [0.0175528, 0.0175528]  extrapolated-replay 
>      64    0.0202437      [0.0202437, 0.0202437]  extrapolated-replay 
>
> methods (validated forward: learned on the smaller runs, predicting the larger; error: at the largest run; /doubling: the worst error per doubling of the processes)
>   method                validated    error  /doubling    16 procs    32 procs    64 procs
>   extrapolated-replay        at 8     0.0%       0.0%    0.015003    0.017553    0.020244
>   queueing-network           at 8    27.5%      27.5%    0.017428    0.017889    0.019399
>   amdahl                     at 8     3.7%      10.9%    0.013167    0.013602     0.01382
> note: 16 hosts at the platform's speed, in the traces' own unit (examples/traces/stencil2d-scaling/1 has no tracer header saying what rate its computation was counted at)
> note: the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does
> note: some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis

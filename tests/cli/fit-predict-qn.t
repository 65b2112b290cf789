# The queueing model fitted on the bundled stencil runs, its predictions, and leave-one-out accuracy.
$ perfcast fit qn examples/runs/stencil2d-4nodes.csv -p examples/platforms/table1-4nodes.json -o $OUT/m.json
> queueing-network model fitted on 7 runs (converged; 5 iterations; 5 degrees of freedom)
>   W (computation)       5.29762e+09 flop  (standard error 2.2%)
>   Net_Constant          1.60043  (standard error 3.0%)
>   V_comp / V_comm       0.9405 / 0.0595
>   network               2 queues (full duplex, a transfer holds both at once) per node, route latency as a delay
>   customers             one class per node (its processes use its own CPU and send queue)
>   lockstep              a node's processes are one customer: its CPU phase the slowest rank's (1 x the mean rank's work), its transfers all of theirs, an exchange as long as the busiest link it uses
>   s(n) sends/process    106.791 + -137.811 / n (inverse)
>   m(n) message bytes    8204.67 n^-0.432104 (power)
>   B(n) bytes per run    337190 n^0.84815 (power); m(n) = B(n) / (n s(n))
>   Amdahl baseline       T(n) = 0.0379174 + 0.471834 / n
>
>  procs   measured_s     fitted_s   error_%  run
>      2     0.278849     0.277713     -0.41  examples/runs/stencil2d-4nodes.csv:3
>      4     0.150265     0.151096      0.55  examples/runs/stencil2d-4nodes.csv:4
>      8     0.088207    0.0892401      1.17  examples/runs/stencil2d-4nodes.csv:5
>     16     0.061644     0.061566     -0.13  examples/runs/stencil2d-4nodes.csv:6
>     24     0.057316     0.055257     -3.59  examples/runs/stencil2d-4nodes.csv:7
>     32     0.055889    0.0541836     -3.05  examples/runs/stencil2d-4nodes.csv:8
>     48      0.05983    0.0628011      4.97  examples/runs/stencil2d-4nodes.csv:9
>
> held-out runs (next count and leave-one-out): queueing model off by 3.7%, Amdahl by 10.3%: trusted
>
> model written to $OUT/m.json
$ perfcast predict tests/golden/qn-stencil2d-4nodes.model.json -p examples/platforms/table1-4nodes.json --procs 2..64:x2 --best-group 2
>  procs    predicted_s     amdahl_s    recommended   speedup  bottleneck (utilisation)
>      2       0.277713     0.273834    0.2777 +-4%      1.00  e5620-0.cpu (96%)
>      4       0.151096     0.155876    0.1511 +-4%      1.84  e5620-0.cpu (90%)
>      8      0.0892401    0.0968966   0.08924 +-4%      3.11  e5620-0.cpu (77%)
>     16       0.061566     0.067407   0.06157 +-4%      4.51  e5620-0.cpu (56%)
>     32      0.0541836    0.0526622   0.05418 +-4%      5.13  e5620-0.net-out (38%)
>     64      0.0708755    0.0452898   0.07088 +-7%      3.92  e5620-0.net-out (52%)
>
> turning point: 32 processes (the next step gains less than 5%)
> best group of 2 servers for 64 processes: e5620-0, e5620-1 (0.124837 s)
$ perfcast predict tests/golden/qn-stencil2d-4nodes.model.json -p examples/platforms/table1-4nodes.json --procs 2..64:x2 --best-group 2 --json
> {
>   "best_group": {
>     "exhaustive": true,
>     "predicted_s": 0.1248371124235657,
>     "procs": 64,
>     "servers": [
>       "e5620-0",
>       "e5620-1"
>     ]
>   },
>   "predictions": [
>     {
>       "amdahl_s": 0.27383421476907455,
>       "band_s": [
>         0.26733624716704557,
>         0.28809062831108534
>       ],
>       "bottleneck": "e5620-0.cpu",
>       "bottleneck_utilization": 0.9639564465298559,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.5,
>         "latency_factor": 1.0,
>         "messages_per_process": 37.88513745559135,
>         "per_byte_factor": 1.0,
>         "run_bytes": 607006.9709049227
>       },
>       "predicted_s": 0.2777134377390655,
>       "procs": 2,
>       "recommended_s": 0.2777134377390655,
>       "speedup": 1.0,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     },
>     {
>       "amdahl_s": 0.1558757840466926,
>       "band_s": [
>         0.14545008125396622,
>         0.15674195228068155
>       ],
>       "bottleneck": "e5620-0.cpu",
>       "bottleneck_utilization": 0.8994637452703361,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.25,
>         "latency_factor": 1.0,
>         "messages_per_process": 72.33790077821013,
>         "per_byte_factor": 1.0,
>         "run_bytes": 1092728.4353128243
>       },
>       "predicted_s": 0.1510960167673239,
>       "procs": 4,
>       "recommended_s": 0.1510960167673239,
>       "speedup": 1.8379931098165385,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     },
>     {
>       "amdahl_s": 0.09689656868550164,
>       "band_s": [
>         0.08590545972862564,
>         0.09257464384583888
>       ],
>       "bottleneck": "e5620-0.cpu",
>       "bottleneck_utilization": 0.7672125145264996,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.125,
>         "latency_factor": 1.0,
>         "messages_per_process": 89.5642824395195,
>         "per_byte_factor": 1.0,
>         "run_bytes": 1967119.8035190965
>       },
>       "predicted_s": 0.08924005178723227,
>       "procs": 8,
>       "recommended_s": 0.08924005178723227,
>       "speedup": 3.111982032475674,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     },
>     {
>       "amdahl_s": 0.06740696100490616,
>       "band_s": [
>         0.05926550052436278,
>         0.06386651815519057
>       ],
>       "bottleneck": "e5620-0.cpu",
>       "bottleneck_utilization": 0.5581227388697586,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.0625,
>         "latency_factor": 1.0,
>         "messages_per_process": 98.1774732701742,
>         "per_byte_factor": 1.0,
>         "run_bytes": 3541191.202084202
>       },
>       "predicted_s": 0.06156600933977668,
>       "procs": 16,
>       "recommended_s": 0.06156600933977668,
>       "speedup": 4.51082408486788,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     },
>     {
>       "amdahl_s": 0.05266215716460842,
>       "band_s": [
>         0.05215893739426754,
>         0.05620824413145801
>       ],
>       "bottleneck": "e5620-0.net-out",
>       "bottleneck_utilization": 0.37658857420854736,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.03125,
>         "latency_factor": 1.0,
>         "messages_per_process": 102.48406868550154,
>         "per_byte_factor": 1.0,
>         "run_bytes": 6374820.235801065
>       },
>       "predicted_s": 0.05418359076286278,
>       "procs": 32,
>       "recommended_s": 0.05418359076286278,
>       "speedup": 5.125415902288433,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     },
>     {
>       "amdahl_s": 0.04528975524445955,
>       "band_s": [
>         0.06569320472220685,
>         0.07605786219149786
>       ],
>       "bottleneck": "e5620-0.net-out",
>       "bottleneck_utilization": 0.5182712847354779,
>       "collectives": "",
>       "exact_mva": true,
>       "if_periodic_s": null,
>       "inputs": {
>         "busiest_receive_share": 0.015625,
>         "latency_factor": 1.0,
>         "messages_per_process": 104.63736639316522,
>         "per_byte_factor": 1.0,
>         "run_bytes": 11475893.483204372
>       },
>       "predicted_s": 0.07087553345685237,
>       "procs": 64,
>       "recommended_s": 0.07087553345685237,
>       "speedup": 3.9183258903882816,
>       "structure": "no process grid (point-to-point traffic in the curves s(n), B(n))",
>       "unseen_classes": [],
>       "warning": ""
>     }
>   ],
>   "reliability": {
>     "amdahl_error": 0.10269132485453626,
>     "method": "next count and leave-one-out",
>     "queueing_error": 0.0373665410521838,
>     "recommended_model": "queueing-network",
>     "trusted": true,
>     "warning": ""
>   },
>   "turning_point": {
>     "procs": 32,
>     "threshold": 0.05
>   },
>   "warnings": []
> }
$ perfcast predict tests/golden/qn-stencil2d-4nodes.model.json -p examples/platforms/table1-4nodes.json --procs 2..64:x2 --measured examples/runs/stencil2d-4nodes.csv --svg $OUT/p.svg && diff tests/golden/predict-qn.svg $OUT/p.svg
>  procs    predicted_s     amdahl_s    recommended   speedup  bottleneck (utilisation)
>      2       0.277713     0.273834    0.2777 +-4%      1.00  e5620-0.cpu (96%)
>      4       0.151096     0.155876    0.1511 +-4%      1.84  e5620-0.cpu (90%)
>      8      0.0892401    0.0968966   0.08924 +-4%      3.11  e5620-0.cpu (77%)
>     16       0.061566     0.067407   0.06157 +-4%      4.51  e5620-0.cpu (56%)
>     32      0.0541836    0.0526622   0.05418 +-4%      5.13  e5620-0.net-out (38%)
>     64      0.0708755    0.0452898   0.07088 +-7%      3.92  e5620-0.net-out (52%)
>
> turning point: 32 processes (the next step gains less than 5%)
$ perfcast compare examples/runs/stencil2d-4nodes.csv -p examples/platforms/table1-4nodes.json
> leave-one-out over 7 runs
>
> model                accuracy_%       CV
> queueing-network          96.26    0.051
> amdahl                    89.73    0.125
>
>  procs   measured_s   queueing_s     amdahl_s  run
>      2     0.278849     0.266452     0.250739  examples/runs/stencil2d-4nodes.csv:3
>      4     0.150265     0.151827     0.157282  examples/runs/stencil2d-4nodes.csv:4
>      8     0.088207     0.089549    0.0983771  examples/runs/stencil2d-4nodes.csv:5
>     16     0.061644    0.0616653    0.0686902  examples/runs/stencil2d-4nodes.csv:6
>     24     0.057316    0.0547651    0.0576439  examples/runs/stencil2d-4nodes.csv:7
>     32     0.055889    0.0534526    0.0517712  examples/runs/stencil2d-4nodes.csv:8
>     48      0.05983    0.0659958    0.0441347  examples/runs/stencil2d-4nodes.csv:9
>
> extrapolation: fitted on runs of at most 8 processes, predicting the 4 others
>
> model                accuracy_%       CV
> queueing-network          82.61    0.185
> amdahl                    74.53    0.280

# phases predict on a recorded series (tests/data/phases) with the bundled kernel database: the table, the
# JSON's shape, the SVG, and the errors of a series too short and of a size that is not positive.
$ perfcast phases predict tests/data/phases/two-phase-series --size 1200 --kernels examples/kernels/kernels-2procs.db
> spread of the repeated runs per small size: 0.0%, 0.0%, 0.0% (median 0.0%: scores closer than this are not told apart)
> phase square (small sizes 320, 512, 819.2):
>   kernel         AbsAM    RMSE  StdDev    sFCV      avSF   SF_size PredDev    K_size
>   bt           5411.096 9373.368 9373.906   0.428     43.29     91.06   1.104     27.72  beyond range (supported to 16.9)
>   cg            21.638  38.343  38.769   0.392   0.04295   0.08642   1.012 2.794e+04
>   deposit      4552.838 7886.812 7887.344   0.425     17.32     36.31   1.097      69.3  beyond range (supported to 44.52)
>   fft            0.089   0.402   0.480   0.248     15.06     5.858   0.611     79.66  beyond range (supported to 64)
>   gemm         110.915 193.024 193.478   0.404     5.161     10.54   1.043     232.5  beyond range (supported to 128.4)
>   gemv         218.771 379.873 380.347   0.409     2.058     4.227   1.054       583  beyond range (supported to 357.6)
>   is             0.132   0.663   0.796   0.234   0.05659   0.05031   0.111 2.121e+04  <- chosen
>   lu           35823.016 62048.384 62048.935   0.435     7.142     15.15   1.122       168  beyond range (supported to 102.5)
>   mg            23.683  41.894  42.323   0.394     21.89     44.12   1.016     54.83
>   ptran        793.115 1374.756 1375.275   0.423     3.201     6.691   1.090     374.8  beyond range (supported to 252.3)
>   push          52.137  91.221  91.676   0.406     6.467     13.24   1.048     185.6  beyond range (supported to 125.7)
>   sp           10190.597 17651.708 17652.246   0.427        34     71.46   1.101     35.29  beyond range (supported to 19.69)
>   spmv           5.501  10.310  10.679   0.360   0.05989    0.1155   0.928 2.004e+04  beyond range (supported to 1.638e+04)
>   symm         3521.957 6101.258 6101.783   0.423     4.213     8.811   1.092     284.9  beyond range (supported to 160.6)
>   trmm         2172.508 3763.922 3764.436   0.421     2.654     5.535   1.086     452.1  beyond range (supported to 256)
>   cascade: is: ranks 1 (RMSE), 1 (StdDev), 1 (sFCV) among 1 eligible kernel(s), in the top 5 of all three; fft follows the small runs best, but at this target its PredDev is 0.611 (not below 0.5) and the target maps to size 79.66, past the 64 it was measured to
>   own fit 4.22e-07 n^2: n^2: the simplest of 1 form(s) within 0.38% (one standard error) of the best leave-one-out SMAPE, 1.2% (n^2); the constant not admitted: the series grows 569% over the sizes, beyond its noise 0.468%; the forms within it give 0.6077 to 0.6077 s at 1200 (the phase's own spread 0.0%)
>   predicted 0.6077 s (trend); share 11.7%; not validated: kernel is (leave-one-out SMAPE 87.8%, 3.309 s) and own fit 4.22e-07 n^2 (leave-one-out SMAPE not validated, 0.6077 s); its measured trend answers
>   not validated: 0.6077 to 0.6207 s at 1200 as the small sizes' growth carries it
> phase cubic (small sizes 320, 512, 819.2):
>   kernel         AbsAM    RMSE  StdDev    sFCV      avSF   SF_size PredDev    K_size
>   bt           3888.018 6735.297 6735.823   0.411     42.23     87.05   1.061     28.42  beyond range (supported to 16.9)
>   cg            13.889  24.897  25.307   0.362   0.04092   0.07911   0.933 2.933e+04
>   deposit      3319.566 5750.696 5751.216   0.409     16.88     34.69   1.055      71.1  beyond range (supported to 44.52)
>   fft            0.009   0.583   0.713   0.572     11.31    -4.294   1.379     106.1  beyond range (supported to 64)
>   gemm          80.628 140.532 140.970   0.379     4.957     9.806   0.978     242.1  beyond range (supported to 128.4)
>   gemv         159.881 277.850 278.314   0.386     1.984      3.96   0.996     604.8  beyond range (supported to 357.6)
>   is             1.204   1.630   1.345   0.223   0.04153   0.03816   0.081 2.889e+04
>   lu           23942.482 41470.689 41471.235   0.423     7.008     14.65   1.090     171.2  beyond range (supported to 102.5)
>   mg            15.186  27.151  27.566   0.364     20.87     40.47   0.939      57.5
>   ptran        560.764 972.278 972.781   0.402     3.107     6.332   1.038     386.2  beyond range (supported to 252.3)
>   push          36.514  64.104  64.530   0.376     6.189     12.18   0.969     193.9  beyond range (supported to 125.7)
>   sp           7483.007 12962.000 12962.525   0.412      33.2      68.5   1.063     36.15  beyond range (supported to 19.69)
>   spmv           3.763   7.269   7.616   0.315   0.05581    0.1011   0.811  2.15e+04  beyond range (supported to 1.638e+04)
>   symm         2583.982 4476.608 4477.118   0.407     4.102     8.408   1.050     292.5  beyond range (supported to 160.6)
>   trmm         1595.442 2764.392 2764.895   0.404     2.581     5.269   1.042       465  beyond range (supported to 256)
>   cascade: no kernel has AbsAM < 0.5 and PredDev < 0.5 within its measured range; fft follows the small runs best, but at this target its PredDev is 1.38 (not below 0.5) and the target maps to size 106.1, past the 64 it was measured to
>   own fit 7.541e-10 n^2.75 log2(n): n^2.75 log2(n): the simplest of 3 form(s) within 2.8% (one standard error) of the best leave-one-out SMAPE, 4.9% (n^2.75 log2(n)); the constant not admitted: the series grows 1.5e+03% over the sizes, beyond its noise 3.27%; the forms within it give 2.077 to 2.265 s at 1200 (the phase's own spread 0.0%)
>   predicted 2.265 s (trend); share 88.3%; not validated: no kernel (no kernel has AbsAM < 0.5 and PredDev < 0.5 within its measured range; fft follows the small runs best, but at this target its PredDev is 1.38 (not below 0.5) and the target maps to size 106.1, past the 64 it was measured to) and own fit 7.541e-10 n^2.75 log2(n) (leave-one-out SMAPE not validated, 2.265 s); its measured trend answers
>   not validated: 2.077 to 2.395 s at 1200 as the small sizes' growth carries it
> predicted run at size 1200: 2.872 s per rank
>   from the phases by linear-shares (phases' shares add up to 1.001); leave-one-out SMAPE of the run: linear-shares 0.0%, ratio-power not validated, remainder-fit not validated
! warning: phase square: neither method validated within 20% (kernel is (leave-one-out SMAPE 87.8%, 3.309 s); own fit 4.22e-07 n^2 (leave-one-out SMAPE not validated, 0.6077 s)): 0.6077 s is its measured trend, 0.6077 to 0.6207 s as the small sizes' growth carries it; a fourth small size would let forward validation judge the own fit
! warning: phase cubic: neither method validated within 20% (no kernel (no kernel has AbsAM < 0.5 and PredDev < 0.5 within its measured range; fft follows the small runs best, but at this target its PredDev is 1.38 (not below 0.5) and the target maps to size 106.1, past the 64 it was measured to); own fit 7.541e-10 n^2.75 log2(n) (leave-one-out SMAPE not validated, 2.265 s)): 2.265 s is its measured trend, 2.077 to 2.395 s as the small sizes' growth carries it; a fourth small size would let forward validation judge the own fit
$ perfcast phases predict tests/data/phases/two-phase-series --size 1200 --kernels examples/kernels/kernels-2procs.db --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(sorted(j)); print([(p["name"], p["kernel"], p["method"]) for p in j["phases"]])'
> ['choice', 'converged_at', 'kernels', 'phases', 'predicted_s', 'run', 'size', 'size_dim', 'sizes_compared', 'small_sizes', 'small_spreads', 'spread', 'total', 'warnings']
> [('square', 'is', 'trend'), ('cubic', None, 'trend')]
$ perfcast phases predict tests/data/phases/two-phase-series --size 1200 --kernels examples/kernels/kernels-2procs.db --svg $OUT/p.svg >/dev/null && head -c 200 $OUT/p.svg | head -3
> <?xml version="1.0" encoding="UTF-8"?>
> <!-- generator: perfcast -->
> <svg xmlns="http://www.w3.org/2000/svg" width="760" height="546" font-family="sans-serif" font-size="12">
! warning: phase square: neither method validated within 20% (kernel is (leave-one-out SMAPE 87.8%, 3.309 s); own fit 4.22e-07 n^2 (leave-one-out SMAPE not validated, 0.6077 s)): 0.6077 s is its measured trend, 0.6077 to 0.6207 s as the small sizes' growth carries it; a fourth small size would let forward validation judge the own fit
! warning: phase cubic: neither method validated within 20% (no kernel (no kernel has AbsAM < 0.5 and PredDev < 0.5 within its measured range; fft follows the small runs best, but at this target its PredDev is 1.38 (not below 0.5) and the target maps to size 106.1, past the 64 it was measured to); own fit 7.541e-10 n^2.75 log2(n) (leave-one-out SMAPE not validated, 2.265 s)): 2.265 s is its measured trend, 2.077 to 2.395 s as the small sizes' growth carries it; a fourth small size would let forward validation judge the own fit
$ perfcast phases predict tests/data/phases/two-phase-series --size 0 --kernels examples/kernels/kernels-2procs.db
! error: --size 0 (expected a positive target size)
? 1
$ mkdir $OUT/short && sed 's/"used": \[/"used": [320.0], "was": [/' tests/data/phases/two-phase-series/phases.json > $OUT/short/phases.json && perfcast phases predict $OUT/short --size 1200 --kernels examples/kernels/kernels-2procs.db
! error: $OUT/short/phases.json: 1 size(s) after convergence (expected at least 3: run perfcast phases run to the end)
? 1

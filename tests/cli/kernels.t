# The bundled kernel database as a table and as JSON, and a file that is not one.
$ perfcast kernels list examples/kernels/kernels-2procs.db
> kernel database examples/kernels/kernels-2procs.db (machine shared-dev-2core, 2 processes), format version 1
>
> kernel         size  runs       mean_s      model_s
> bt       size: grid points a side (K^3 points)
> bt                8     1   2.5468e-04   2.5468e-04
> bt               10     1   3.1608e-04   3.1608e-04
> bt               13     1   2.8030e-01   2.8030e-01
> cg       size: matrix rows (K^1 points)
> cg             1024     1   3.5775e-04   3.5775e-04
> cg             2048     1   5.0572e-04   5.0572e-04
> cg             4096     1   5.3299e-04   5.3299e-04
> cg             8192     1   1.3788e-03   1.3788e-03
> cg            16384     1   3.4629e+00   3.4629e+00
> deposit  size: grid points a side (K^2 points)
> deposit          16     1   2.6971e-05   2.6971e-05
> deposit          23     1   3.9034e-05   3.9034e-05
> deposit          32     1   1.7983e-01   1.7983e-01
> fft      size: grid points a side (power of two) (K^3 points)
> fft               8     1   3.2354e-04   3.2354e-04
> fft              16     1   3.6024e-02   3.6024e-02
> fft              32     1   9.5420e-02   9.5420e-02
> gemm     size: matrix order (K^2 points)
> gemm             32     1   2.9777e-05   2.3410e-05
> gemm             40     1   1.8405e-05   2.3410e-05
> gemm             51     1   6.9372e-05   6.9372e-05
> gemm             64     1   4.6930e-02   1.6530e-03
> gemm             81     1   5.8221e-05   1.6530e-03
> gemm            102     1   7.0854e-02   7.0854e-02
> gemv     size: matrix order (K^2 points)
> gemv             64     1   2.9997e-05   2.9045e-05
> gemv             90     1   2.8124e-05   2.9045e-05
> gemv            127     1   6.4683e-05   6.4683e-05
> gemv            179     1   1.0493e-04   1.0493e-04
> gemv            253     1   5.3536e-02   5.3536e-02
> is       size: keys (K^1 points)
> is             4096     1   9.4069e-05   9.4069e-05
> is             8192     1   3.9078e-01   1.9347e-01
> is            16384     1   9.5780e-02   1.9347e-01
> lu       size: matrix order (K^2 points)
> lu               32     1   3.6931e-01   7.0471e-04
> lu               40     1   4.8762e-05   7.0471e-04
> lu               51     1   1.1299e-04   7.0471e-04
> lu               64     1   1.2120e-04   7.0471e-04
> lu               81     1   8.5534e-01   8.5534e-01
> mg       size: grid intervals a side (power of two) (K^3 points)
> mg                8     1   4.8151e-04   4.8151e-04
> mg               16     1   1.2117e-03   1.2117e-03
> mg               32     1   3.4751e+00   3.4751e+00
> ptran    size: matrix order (K^2 points)
> ptran            64     1   3.2307e-04   2.8896e-04
> ptran            90     1   4.1791e-04   2.8896e-04
> ptran           127     1   1.7870e-04   2.8896e-04
> ptran           179     1   3.8239e-01   3.8239e-01
> push     size: grid points a side (K^2 points)
> push             16     1   1.2170e+00   2.2924e-03
> push             23     1   2.6866e-04   2.2924e-03
> push             32     1   2.9386e-04   2.2924e-03
> push             45     1   5.8586e-04   2.2924e-03
> push             63     1   1.1247e-03   2.2924e-03
> push             89     1   3.0604e-01   3.0604e-01
> sp       size: grid points a side (K^3 points)
> sp                8     1   9.9790e-05   9.9790e-05
> sp               10     1   1.4609e-03   3.5112e-04
> sp               13     1   8.4391e-05   3.5112e-04
> sp               16     1   1.0837e-01   1.0837e-01
> spmv     size: matrix rows (K^1 points)
> spmv           1024     1   2.8854e-05   2.8854e-05
> spmv           2048     1   7.0485e-05   7.0485e-05
> spmv           4096     1   9.0342e-05   9.0342e-05
> spmv           8192     1   5.0196e-02   5.0196e-02
> symm     size: matrix order (K^2 points)
> symm             32     1   2.8675e-05   2.8675e-05
> symm             40     1   6.8525e-02   3.0656e-04
> symm             51     1   9.7296e-05   3.0656e-04
> symm             64     1   5.0347e-05   3.0656e-04
> symm             81     1   8.4902e-05   3.0656e-04
> symm            102     1   9.5000e-05   3.0656e-04
> symm            128     1   8.8576e-02   8.8576e-02
> trmm     size: matrix order (K^2 points)
> trmm             32     1   9.7280e-06   9.7280e-06
> trmm             40     1   3.6709e-05   3.1484e-05
> trmm             51     1   2.7002e-05   3.1484e-05
> trmm             64     1   5.6517e-05   5.6517e-05
> trmm             81     1   5.7278e-05   5.7278e-05
> trmm            102     1   6.5224e-05   6.5224e-05
> trmm            128     1   1.0094e-04   1.0094e-04
> trmm            161     1   3.5791e-04   3.5791e-04
> trmm            203     1   8.8279e-02   8.8279e-02
$ perfcast kernels list examples/kernels/kernels-2procs.db --json | head -40
> {
>   "database": "examples/kernels/kernels-2procs.db",
>   "kernels": [
>     {
>       "mean_s": [
>         0.000254684,
>         0.000316082,
>         0.280300254
>       ],
>       "model_s": [
>         0.000254684,
>         0.0003160819999999999,
>         0.280300254
>       ],
>       "name": "bt",
>       "runs": [
>         1,
>         1,
>         1
>       ],
>       "size_counts": "grid points a side",
>       "size_dim": 3,
>       "sizes": [
>         8.0,
>         10.0,
>         13.0
>       ]
>     },
>     {
>       "mean_s": [
>         0.000357751,
>         0.000505721,
>         0.000532994,
>         0.001378752,
>         3.462858326
>       ],
>       "model_s": [
>         0.0003577509999999999,
>         0.0005057210000000002,
>         0.000532994,
$ perfcast kernels list examples/platforms/cluster16.xml
! error: examples/platforms/cluster16.xml: not a perfcast kernel database (expected an SQLite file with format perfcast-kernels)
? 1

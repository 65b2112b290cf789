# The application model of the bundled stencil traces at 1 to 8 ranks: built, shown, extrapolated, predicted.
$ perfcast model build examples/traces/stencil2d-scaling/1 examples/traces/stencil2d-scaling/2 examples/traces/stencil2d-scaling/4 examples/traces/stencil2d-scaling/8 -o $OUT/app.json -q
$ perfcast model show $OUT/app.json
> application model learned at 1, 2, 4, 8 processes
> process grid: MPI_Dims_create's 2-D grid, smallest side first (detected from the partners)
> every rank, at n processes (laws of n; A: the share of the cross-section a grid offset crosses):
>   init
>   loop x 12
>     irecv (0,-1) bytes 512   [where its partners exist]
>     irecv (0,+1) bytes 512   [where its partners exist]
>     irecv (-1,0) bytes 512   [where its partners exist]
>     irecv (+1,0) bytes 512   [where its partners exist]
>     isend (0,-1) bytes 512   [where its partners exist]
>     isend (0,+1) bytes 512   [where its partners exist]
>     isend (-1,0) bytes 512   [where its partners exist]
>     isend (+1,0) bytes 512   [where its partners exist]
>     waitall
>     compute 20480
>     allreduce bytes 8
>   finalize
> note: the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does
> note: some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis
$ perfcast extrapolate $OUT/app.json --procs 16 -o $OUT/t16 && head -3 $OUT/t16/index.txt && head -12 $OUT/t16/rank-5.txt
> wrote the trace at 16 processes (grid 4x4): 1760 actions, $OUT/t16/index.txt
> rank-0.txt
> rank-1.txt
> rank-2.txt
> 5 init
> 5 irecv 1 0 512 6
> 5 irecv 9 0 512 6
> 5 irecv 4 0 512 6
> 5 irecv 6 0 512 6
> 5 isend 1 0 512 6
> 5 isend 9 0 512 6
> 5 isend 4 0 512 6
> 5 isend 6 0 512 6
> 5 waitall 8
> 5 compute 20480
> 5 allreduce 8 0 6
! warning: the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does
! warning: some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis
$ perfcast predict $OUT/app.json -p examples/platforms/cluster16.xml --procs 16,64,1024
>    procs  predicted_s        low_s       high_s  grid
>       16    0.0150031    0.0150031    0.0150031  4x4
>       64    0.0202437    0.0202437    0.0202437  8x8
>     1024    0.0778227    0.0778227    0.0778227  32x32
> (extrapolated replay: the model's trace at each count replayed; the band replays every law at the ends of its forward-validation error)
! warning: the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does
! warning: some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis
$ perfcast predict $OUT/app.json -p examples/platforms/cluster16.xml --procs 64 --json
> {
>   "notes": [
>     "the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does",
>     "some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis"
>   ],
>   "predictions": [
>     {
>       "actions": 7808,
>       "band_s": [
>         0.020243669422039017,
>         0.020243669422039017
>       ],
>       "grid": "8x8",
>       "method": "extrapolated-replay",
>       "predicted_s": 0.020243669422039017,
>       "procs": 64,
>       "warnings": []
>     }
>   ]
> }
! warning: the training grids cannot tell whether the process grid wraps around (no side longer than 2 carries a wrap): assumed not periodic; give --grid dims_create:2:periodic:transposed if it does
! warning: some actions were never seen together on one rank at the training counts (a rank with neighbours on both sides of an axis, say): their order is assumed, the negative direction first along an axis

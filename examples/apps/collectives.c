/* A program heavy on collectives: each iteration broadcasts parameters,
 * computes, reduces a vector to the root, allreduces a norm, exchanges blocks
 * all-to-all, gathers and scatters, then meets at a barrier.
 * usage: collectives [iterations] [elements] [flops_per_iteration] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef SMPI_NO_REAL_COMPUTE
#include <smpi/smpi.h>
#endif

static void work(double flops, double *v, int n)
{
#ifdef SMPI_NO_REAL_COMPUTE
  (void)v; (void)n;
  smpi_execute_flops(flops);
#else
  for (long k = 0; k < (long)(flops / (2.0 * n)) + 1; k++)
    for (int i = 0; i < n; i++)
      v[i] = v[i] * 0.999 + 0.001;
#endif
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 5;
  int n = argc > 2 ? atoi(argv[2]) : 1024;
  double flops = argc > 3 ? atof(argv[3]) : 1e7;
  double *v = calloc((size_t)n, sizeof(double));
  double *w = calloc((size_t)n, sizeof(double));
  double *all = calloc((size_t)n * size, sizeof(double));
  double *all2 = calloc((size_t)n * size, sizeof(double));
  int block = n / size > 0 ? n / size : 1;
  for (int it = 0; it < iterations; it++) {
    MPI_Bcast(v, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    work(flops, v, n);
    MPI_Reduce(v, w, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double local = v[0], global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(v, w, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(all, block, MPI_DOUBLE, all2, block, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Gather(v, block, MPI_DOUBLE, all, block, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, block, MPI_DOUBLE, v, block, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(v, block, MPI_DOUBLE, all2, block, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("collectives: %d ranks, %d iterations, %d elements\n", size, iterations, n);
  free(v); free(w); free(all); free(all2);
  MPI_Finalize();
  return 0;
}

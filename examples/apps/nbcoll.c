/* Non-blocking collectives overlapped with computation, then waited:
 * iallreduce, ibcast, igather, iscatter, ialltoallv, ibarrier.
 * usage: nbcoll [iterations] [elements] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 3;
  int n = argc > 2 ? atoi(argv[2]) : 256;
  double *a = calloc((size_t)n * size, sizeof(double)), *b = calloc((size_t)n * size, sizeof(double));
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  for (int i = 0; i < size; i++) {
    counts[i] = n;
    displs[i] = i * n;
  }
  for (int it = 0; it < iterations; it++) {
    MPI_Request r[6];
    MPI_Iallreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Ibcast(a + n, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
    double x = 0;
    for (int k = 0; k < 100000; k++)
      x += k * 1e-9;
    a[0] = x;
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Igather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    MPI_Iscatter(b, n, MPI_DOUBLE, a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Ialltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, &r[4]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[5]);
    MPI_Waitall(3, r + 3, MPI_STATUSES_IGNORE);
  }
  if (rank == 0)
    printf("nbcoll: %d ranks, %d iterations\n", size, iterations);
  free(a); free(b); free(counts); free(displs);
  MPI_Finalize();
  return 0;
}

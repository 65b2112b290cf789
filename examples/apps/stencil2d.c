/* 2-D five-point stencil with halo exchange (non-blocking) and a residual
 * allreduce every iteration. Ranks form a px x py grid; each owns an
 * nx x ny block of doubles.
 * usage: stencil2d [iterations] [block_edge] [flops_per_cell]
 * Under SimGrid, computation is injected with smpi_execute_flops so traces
 * are deterministic; under real MPI the kernel itself runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef SMPI_NO_REAL_COMPUTE
#include <smpi/smpi.h>
#endif

static void grid_dims(int size, int *px, int *py)
{
  int best = 1;
  for (int d = 1; d * d <= size; d++)
    if (size % d == 0)
      best = d;
  *px = best;
  *py = size / best;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 10;
  int edge = argc > 2 ? atoi(argv[2]) : 256;
  double flops_per_cell = argc > 3 ? atof(argv[3]) : 5.0;

  int px, py;
  grid_dims(size, &px, &py);
  int cx = rank % px, cy = rank / px;
  int north = cy > 0 ? rank - px : MPI_PROC_NULL;
  int south = cy < py - 1 ? rank + px : MPI_PROC_NULL;
  int west = cx > 0 ? rank - 1 : MPI_PROC_NULL;
  int east = cx < px - 1 ? rank + 1 : MPI_PROC_NULL;

  int n = edge + 2;
  double *u = calloc((size_t)n * n, sizeof(double));
  double *v = calloc((size_t)n * n, sizeof(double));
  double *sendbuf = malloc(4 * (size_t)edge * sizeof(double));
  double *recvbuf = malloc(4 * (size_t)edge * sizeof(double));
  for (int i = 0; i < n * n; i++)
    u[i] = (double)(rank + 1);

  for (int it = 0; it < iterations; it++) {
    MPI_Request req[8];
    int nreq = 0;
    int nbrs[4] = {north, south, west, east};
    for (int k = 0; k < 4; k++) {
      if (nbrs[k] == MPI_PROC_NULL)
        continue;
      MPI_Irecv(recvbuf + k * edge, edge, MPI_DOUBLE, nbrs[k], 0, MPI_COMM_WORLD, &req[nreq++]);
    }
    for (int k = 0; k < 4; k++) {
      if (nbrs[k] == MPI_PROC_NULL)
        continue;
      for (int i = 0; i < edge; i++)
        sendbuf[k * edge + i] = u[(i + 1) * n + 1];
      MPI_Isend(sendbuf + k * edge, edge, MPI_DOUBLE, nbrs[k], 0, MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

    double local = 0.0;
#ifdef SMPI_NO_REAL_COMPUTE
    smpi_execute_flops(flops_per_cell * edge * edge);
    local = 1.0;
#else
    for (int i = 1; i <= edge; i++)
      for (int j = 1; j <= edge; j++) {
        double x = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        local += (x - u[i * n + j]) * (x - u[i * n + j]);
        v[i * n + j] = x;
      }
    double *t = u; u = v; v = t;
#endif
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("stencil2d: %d ranks (%dx%d), %d iterations, block %d\n", size, px, py, iterations, edge);
  free(u); free(v); free(sendbuf); free(recvbuf);
  MPI_Finalize();
  return 0;
}

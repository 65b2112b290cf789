/* Two ranks post N non-blocking sends and N receives each, then wait for all
 * 2N at once: N outstanding requests of each kind in the tracer's table.
 * usage: many_requests N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 4100;
  int peer = (rank + 1) % size;
  int *out = calloc((size_t)n, sizeof *out), *in = calloc((size_t)n, sizeof *in);
  MPI_Request *requests = malloc(sizeof *requests * 2 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    out[i] = i;
    MPI_Irecv(&in[i], 1, MPI_INT, peer, i % 32768, MPI_COMM_WORLD, &requests[i]);
  }
  for (int i = 0; i < n; ++i)
    MPI_Isend(&out[i], 1, MPI_INT, peer, i % 32768, MPI_COMM_WORLD, &requests[n + i]);
  MPI_Waitall(2 * n, requests, MPI_STATUSES_IGNORE);
  long long sum = 0;
  for (int i = 0; i < n; ++i)
    sum += in[i];
  if (rank == 0)
    printf("many_requests: %d requests of each kind, sum %lld\n", n, sum);
  free(out);
  free(in);
  free(requests);
  MPI_Finalize();
  return sum == (long long)n * (n - 1) / 2 ? 0 : 1;
}

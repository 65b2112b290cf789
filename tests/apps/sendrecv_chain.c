/* A non-periodic chain: five times, every rank MPI_Sendrecv's 100 doubles to
 * its right neighbour and from its left one. The ends name MPI_PROC_NULL,
 * which sends and receives nothing, so rank 0 only sends and the last rank
 * only receives. */
#include <mpi.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double out[100] = {0}, in[100];
  int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  for (int i = 0; i < 5; i++)
    MPI_Sendrecv(out, 100, MPI_DOUBLE, right, 0, in, 100, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}

/* Ping-pong between ranks 0 and 1 over a range of message sizes; other ranks
 * idle. Used to check single uncontended messages against closed forms.
 * usage: pingpong [repetitions] [max_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  int max_bytes = argc > 2 ? atoi(argv[2]) : 1 << 20;
  char *buf = calloc((size_t)max_bytes, 1);
  for (int bytes = 1; bytes <= max_bytes; bytes *= 4)
    for (int r = 0; r < reps; r++) {
      if (rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
  if (rank == 0)
    printf("pingpong: sizes 1..%d bytes, %d repetitions\n", max_bytes, reps);
  free(buf);
  MPI_Finalize();
  return 0;
}

/* The link between two AMPI PEs, for bench/lb_ampi_validation.sh: ranks 0
 * and 1 (run with +p2 +vp2, so one VP per PE) ping-pong 8 bytes and 1 MiB.
 * Prints "latency_s=L bandwidth_Bps=B": L is half the small round trip, B the
 * large message's bytes over (half its round trip - L). Built with ampicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double round_trip(int rank, char *buf, int bytes, int reps)
{
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int r = 0; r < reps; r++) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / reps;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int large = 1 << 20;
  char *buf = calloc(large, 1);
  if (size < 2 || !buf)
    MPI_Abort(MPI_COMM_WORLD, 2);
  round_trip(rank, buf, large, 3); /* warm up both paths */
  double small_s = round_trip(rank, buf, 8, 2000);
  double large_s = round_trip(rank, buf, large, 30);
  if (rank == 0) {
    double latency = small_s / 2;
    printf("latency_s=%.9g bandwidth_Bps=%.6g\n", latency, large / (large_s / 2 - latency));
  }
  free(buf);
  MPI_Finalize();
  return 0;
}

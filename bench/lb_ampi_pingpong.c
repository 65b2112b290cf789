/* AMPI's messages, for bench/lb_ampi_probe.sh: ranks 0 and 1 ping-pong 8
 * bytes and 1 MiB. Run with +p2 +vp2 (one VP per PE: the link between PEs) or
 * +p1 +vp2 (both VPs on one PE: every step of the round trip is the PE's CPU).
 * Prints "round_trip_s=R latency_s=L bandwidth_Bps=B stream_s=C": R is the
 * small round trip, L half of it, B the large message's bytes over (half its
 * round trip - L), C the time per message of a stream of small messages.
 * Built with ampicc. */
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

/* rank 0 sends n small messages back to back, rank 1 receives them and
 * acknowledges the last: the time per message is the CPU the busier side
 * spends on one message (the latency is paid once, not per message) */
static double stream(int rank, char *buf, int n)
{
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; i++) {
    if (rank == 0)
      MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 1)
    MPI_Send(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
  else if (rank == 0)
    MPI_Recv(buf, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return (MPI_Wtime() - t0) / n;
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
  double per_message_s = stream(rank, buf, 20000);
  if (rank == 0) {
    double latency = small_s / 2;
    printf("round_trip_s=%.9g latency_s=%.9g bandwidth_Bps=%.6g stream_s=%.9g\n", small_s, latency,
           large / (large_s / 2 - latency), per_message_s);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}

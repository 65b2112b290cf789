/* MPI_THREAD_MULTIPLE: two threads per rank exchange messages with the other
 * rank at the same time, each on its own tag; thread t of rank r sends N
 * messages of 8 bytes (Isend, blocking Recv, Wait) and receives N.
 * usage: threads_multiple N */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int n_messages;
static int rank, peer;

static void *exchange(void *arg)
{
  int tag = (int)(long)arg;
  for (int i = 0; i < n_messages; ++i) {
    double out = i, in = 0;
    MPI_Request request;
    MPI_Isend(&out, 1, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &request);
    MPI_Recv(&in, 1, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "threads_multiple: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = (rank + 1) % size;
  n_messages = argc > 1 ? atoi(argv[1]) : 1000;
  pthread_t threads[2];
  for (long t = 0; t < 2; ++t)
    pthread_create(&threads[t], NULL, exchange, (void *)t);
  for (int t = 0; t < 2; ++t)
    pthread_join(threads[t], NULL);
  MPI_Finalize();
  return 0;
}

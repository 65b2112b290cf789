/* Master/worker task farm. Rank 0 deals tasks one at a time; a worker returns
 * a result and gets the next task. The master receives results from
 * MPI_ANY_SOURCE, so faster workers do more tasks.
 * usage: master_worker [tasks] [flops_per_task] [task_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef SMPI_NO_REAL_COMPUTE
#include <smpi/smpi.h>
#endif

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static double work(double flops)
{
#ifdef SMPI_NO_REAL_COMPUTE
  smpi_execute_flops(flops);
  return flops;
#else
  double x = 0.0;
  for (long i = 0; i < (long)(flops / 2); i++)
    x = x * 0.999999 + 1.0;
  return x;
#endif
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int tasks = argc > 1 ? atoi(argv[1]) : 32;
  double flops = argc > 2 ? atof(argv[2]) : 1e8;
  int task_bytes = argc > 3 ? atoi(argv[3]) : 1024;
  char *buf = calloc((size_t)task_bytes, 1);

  if (rank == 0) {
    int sent = 0, done = 0;
    for (int w = 1; w < size && sent < tasks; w++, sent++)
      MPI_Send(buf, task_bytes, MPI_BYTE, w, TAG_TASK, MPI_COMM_WORLD);
    while (done < sent) {
      MPI_Status st;
      double result;
      MPI_Recv(&result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
      done++;
      if (sent < tasks) {
        MPI_Send(buf, task_bytes, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        sent++;
      }
    }
    for (int w = 1; w < size; w++)
      MPI_Send(buf, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);
    printf("master_worker: %d tasks on %d workers\n", tasks, size - 1);
  } else {
    for (;;) {
      MPI_Status st;
      MPI_Recv(buf, task_bytes, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == TAG_STOP)
        break;
      double result = work(flops);
      MPI_Send(&result, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}

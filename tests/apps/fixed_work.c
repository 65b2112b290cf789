/* The same computation on every rank, whatever the rank count, for
 * tests/tracer_cpu_time_test.cpp: `iterations` rounds of `chain` dependent
 * multiply-adds, each round ending in an allreduce.
 * usage: fixed_work [iterations=20] [chain=4000000] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int iterations = argc > 1 ? atoi(argv[1]) : 20;
  long chain = argc > 2 ? atol(argv[2]) : 4000000;
  double x = 1.0, sum = 0;
  for (int it = 0; it < iterations; it++) {
    for (long k = 0; k < chain; k++)
      x = x * 0.99999999 + 1e-9;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf("fixed_work: %.9f\n", sum);
  MPI_Finalize();
  return 0;
}

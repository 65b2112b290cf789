/* Two loops of the same body with a 3:1 work ratio: heavy() should hold 75%
 * of the loop time and light() 25% in any faithful profile. Built with
 * TWO_LOOPS_MPI it is an MPI program (an MPI_Allreduce after every round) for
 * perfcast trace --functions. */
#include <stdio.h>
#include <stdlib.h>
#ifdef TWO_LOOPS_MPI
#include <mpi.h>
#endif

static volatile double sink;

__attribute__((noinline)) static void heavy(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++) s += (double)i * 1e-9 * (double)(i & 7);
  sink += s;
}

__attribute__((noinline)) static void light(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++) s += (double)i * 1e-9 * (double)(i & 7);
  sink += s;
}

int main(int argc, char **argv)
{
#ifdef TWO_LOOPS_MPI
  MPI_Init(&argc, &argv);
#endif
  const long n = argc > 1 ? atol(argv[1]) : 100000000;
  for (int round = 0; round < 20; round++) {
    heavy(3 * n / 80);
    light(n / 80);
#ifdef TWO_LOOPS_MPI
    double local = sink, sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  }
  printf("%g\n", sink);
#ifdef TWO_LOOPS_MPI
  MPI_Finalize();
#endif
  return 0;
}

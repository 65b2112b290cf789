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

/* Both functions start on a 64-byte boundary, so their loops sit at the same
 * offset in the instruction cache lines: on an AMD EPYC host the same loop
 * placed 0x70 bytes further ran 1.23 times slower per iteration (heavy held
 * 78.7% of the time, a faithful profile of unequal loops, not 75%); aligned
 * alike, the two run within 1% of each other. */

__attribute__((noinline, aligned(64))) static void heavy(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++) s += (double)i * 1e-9 * (double)(i & 7);
  sink += s;
}

__attribute__((noinline, aligned(64))) static void light(long n)
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

/* A program whose one phase depends on the parity of its input size n: an
 * even n runs even_work() alone, an odd n odd_work() alone, so two
 * neighbouring sizes never share a phase (a series of small runs that cannot
 * converge, whatever the samples). Used by the phase tests. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void even_work(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k < n; k++) s += (double)(i ^ j) * 1e-9 + (double)k * 1e-12;
  sink += s;
}

__attribute__((noinline)) static void odd_work(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k < n; k++) s += (double)(i + j) * 1e-9 - (double)k * 1e-12;
  sink += s;
}

int main(int argc, char **argv)
{
  if (argc < 2 || atol(argv[1]) < 1) {
    fprintf(stderr, "usage: %s N (N > 0)\n", argv[0]);
    return 2;
  }
  const long n = atol(argv[1]);
  if (n % 2 == 0)
    even_work(n);
  else
    odd_work(n);
  printf("%g\n", sink);
  return 0;
}

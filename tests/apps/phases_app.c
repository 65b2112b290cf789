/* A program with two phases that grow at different rates with its input
 * size n: cubic() does n^3 multiply-adds, square() 200 n^2, so cubic's share
 * of the run grows with n. Used by the phase tests. */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void cubic(long n)
{
  double s = 0;
  for (long i = 0; i < n; i++)
    for (long j = 0; j < n; j++)
      for (long k = 0; k < n; k++) s += (double)(i ^ j) * 1e-9 + (double)k * 1e-12;
  sink += s;
}

__attribute__((noinline)) static void square(long n)
{
  double s = 0;
  for (long r = 0; r < 200 * n; r++)
    for (long j = 0; j < n; j++) s += (double)(r ^ j) * 1e-9 + (double)j * 1e-12;
  sink += s;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s N\n", argv[0]);
    return 2;
  }
  const long n = atol(argv[1]);
  if (n < 1) {
    fprintf(stderr, "N must be positive\n");
    return 2;
  }
  cubic(n);
  square(n);
  printf("%g\n", sink);
  return 0;
}

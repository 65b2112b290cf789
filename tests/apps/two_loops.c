/* Two loops of the same body with a 3:1 work ratio: heavy() should hold 75%
 * of the loop time and light() 25% in any faithful profile. */
#include <stdio.h>
#include <stdlib.h>

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
  const long n = argc > 1 ? atol(argv[1]) : 100000000;
  for (int round = 0; round < 20; round++) {
    heavy(3 * n / 80);
    light(n / 80);
  }
  printf("%g\n", sink);
  return 0;
}

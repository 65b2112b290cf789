/* A gather-scatter chain for the comm tests: each call zeroes the sums f with
 * memset, every element e adds x[e] into f[e] and f[e + 1], and x is rebuilt
 * from the sums. Usage: scatter N CALLS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sweep(double* x, double* f, int n)
{
  memset(f, 0, sizeof(double) * (size_t)(n + 1));
  for (int e = 0; e < n; ++e) {
    f[e] += x[e];
    f[e + 1] += x[e];
  }
  for (int i = 0; i < n; ++i)
    x[i] = 0.5 * f[i] + 0.25 * f[i + 1];
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int calls = argc > 2 ? atoi(argv[2]) : 3;
  double* x = malloc(sizeof(double) * (size_t)n);
  double* f = malloc(sizeof(double) * (size_t)(n + 1));
  for (int i = 0; i < n; ++i)
    x[i] = (double)(i % 5);
  for (int c = 0; c < calls; ++c)
    sweep(x, f, n);
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += x[i];
  printf("scatter n=%d sum=%.6f\n", n, sum);
  free(x);
  free(f);
  return 0;
}

/* Dense matrix multiply, sequential: C = A B for n x n matrices filled by a
 * formula. multiply() is the region perfcast comm analyses (perfcast comm
 * run --region multiply); the program calls it once.
 * Usage: matmul_seq N */
#include <stdio.h>
#include <stdlib.h>

static void multiply(int n, const double* a, const double* b, double* c)
{
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k < n; ++k)
        sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 64;
  if (n < 1) {
    fprintf(stderr, "usage: matmul_seq N\n");
    return 1;
  }
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n * n);
  double* c = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      a[i * n + j] = (double)((i * 7 + j * 3) % 11) / 11.0 - 0.5;
      b[i * n + j] = (double)((i * 5 + j * 2) % 13) / 13.0;
    }
  multiply(n, a, b, c);
  double sum = 0;
  for (int i = 0; i < n * n; ++i)
    sum += c[i];
  printf("matmul_seq n=%d sum=%.6f\n", n, sum);
  free(a);
  free(b);
  free(c);
  return 0;
}

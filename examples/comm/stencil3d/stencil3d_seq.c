/* 3-D 7-point stencil, sequential: heat diffusion on an n x n x n grid with
 * a fixed boundary (hot on the plane z = 0), two arrays swapped each step.
 * step() is the region perfcast comm analyses (--region step).
 * Usage: stencil3d_seq N STEPS */
#include <stdio.h>
#include <stdlib.h>

#define AT(i, j, k) (((size_t)(i) * w + (size_t)(j)) * w + (size_t)(k))

static void step(const double* u, double* v, int n, double alpha)
{
  size_t w = (size_t)n + 2;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k)
        v[AT(i, j, k)] = u[AT(i, j, k)] + alpha * (u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] +
                                                   u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)] -
                                                   6.0 * u[AT(i, j, k)]);
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 32;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 1 || steps < 1) {
    fprintf(stderr, "usage: stencil3d_seq N STEPS\n");
    return 1;
  }
  size_t w = (size_t)n + 2;
  double* u = malloc(sizeof(double) * w * w * w);
  double* v = malloc(sizeof(double) * w * w * w);
  for (size_t i = 0; i < w; ++i)
    for (size_t j = 0; j < w; ++j)
      for (size_t k = 0; k < w; ++k) {
        double t = i == 0 ? 100.0 : 0.0;
        u[AT(i, j, k)] = t;
        v[AT(i, j, k)] = t;
      }
  for (int s = 0; s < steps; ++s) {
    step(u, v, n, 0.1);
    double* t = u;
    u = v;
    v = t;
  }
  double sum = 0;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k)
        sum += u[AT(i, j, k)];
  printf("stencil3d_seq n=%d steps=%d sum=%.6f\n", n, steps, sum);
  free(u);
  free(v);
  return 0;
}

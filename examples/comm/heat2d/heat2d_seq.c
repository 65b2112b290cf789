/* 2-D heat diffusion, sequential: an n x n grid with a fixed boundary, a
 * 5-point stencil, two arrays swapped each step. The main loop's body is
 * step(), the region perfcast comm analyses (perfcast comm run --region step).
 * Usage: heat2d_seq N STEPS */
#include <stdio.h>
#include <stdlib.h>

static void step(const double* u, double* v, int n, double alpha)
{
  int w = n + 2;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      v[i * w + j] = u[i * w + j] +
                     alpha * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1] -
                              4.0 * u[i * w + j]);
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 1 || steps < 1) {
    fprintf(stderr, "usage: heat2d_seq N STEPS\n");
    return 1;
  }
  int w = n + 2;
  double* u = malloc(sizeof(double) * w * w);
  double* v = malloc(sizeof(double) * w * w);
  for (int i = 0; i < w; ++i)
    for (int j = 0; j < w; ++j) {
      /* hot top edge, cold elsewhere; the boundary is the same in both arrays */
      double t = i == 0 ? 100.0 : 0.0;
      u[i * w + j] = t;
      v[i * w + j] = t;
    }
  for (int s = 0; s < steps; ++s) {
    step(u, v, n, 0.2);
    double* t = u;
    u = v;
    v = t;
  }
  double sum = 0;
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      sum += u[i * w + j];
  printf("heat2d_seq n=%d steps=%d sum=%.6f\n", n, steps, sum);
  free(u);
  free(v);
  return 0;
}

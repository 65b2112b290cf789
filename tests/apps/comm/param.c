/* A parameter read everywhere: alpha is set once before the loop and read by
 * every cell update of a 1-D 3-point sweep; the analysis must see it as a
 * singleton with only outgoing edges, a broadcast. The sweep reads u[i] too:
 * without it even and odd cells never meet and the chain is two halves that
 * need no messages at all.
 * Usage: param ALPHA N STEPS */
#include <stdio.h>
#include <stdlib.h>

static double alpha;

static void sweep(const double* u, double* v, int n)
{
  for (int i = 1; i <= n; ++i)
    v[i] = alpha * (u[i - 1] + u[i] + u[i + 1]);
}

int main(int argc, char** argv)
{
  if (argc < 4)
    return 2;
  alpha = atof(argv[1]);
  int n = atoi(argv[2]), steps = atoi(argv[3]);
  double* u = calloc(n + 2, sizeof(double));
  double* v = calloc(n + 2, sizeof(double));
  u[0] = v[0] = 1.0;
  for (int s = 0; s < steps; ++s) {
    sweep(u, v, n);
    double* t = u;
    u = v;
    v = t;
  }
  printf("param %g\n", u[1]);
  free(u);
  free(v);
  return 0;
}

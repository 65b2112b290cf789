/* A register-only reduction: the sum of squares stays in a register until
 * one store writes the norm, which every element then reads. The analysis
 * must see the norm as a singleton with incoming and outgoing edges, an
 * allreduce. Usage: norm N STEPS */
#include <stdio.h>
#include <stdlib.h>

static double* x;
static double norm_value;

static void iterate(int n)
{
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  norm_value = s;
  for (int i = 0; i < n; ++i)
    x[i] = x[i] / norm_value;
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int steps = argc > 2 ? atoi(argv[2]) : 3;
  x = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i)
    x[i] = i + 1;
  for (int s = 0; s < steps; ++s)
    iterate(n);
  printf("norm %g\n", norm_value);
  free(x);
  return 0;
}

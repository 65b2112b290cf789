/* Sparse matrix-vector product in CSR, sequential: x <- A x repeated STEPS
 * times (two vectors swapped each step). A is an n x n banded matrix with
 * nonzeros at column offsets 0, +-1, +-4 and +-9 (cut off at the edges), its
 * rows scaled to sum to 1. spmv() is the region perfcast comm analyses.
 * Usage: spmv_seq N STEPS */
#include <stdio.h>
#include <stdlib.h>

static const int kOffsets[] = {-9, -4, -1, 0, 1, 4, 9};
#define NOFFSETS 7

static void spmv(int n, const int* rowptr, const int* col, const double* val, const double* x, double* y)
{
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; ++k)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}

int main(int argc, char** argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int steps = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 1 || steps < 1) {
    fprintf(stderr, "usage: spmv_seq N STEPS\n");
    return 1;
  }
  int* rowptr = malloc(sizeof(int) * (n + 1));
  int* col = malloc(sizeof(int) * n * NOFFSETS);
  double* val = malloc(sizeof(double) * n * NOFFSETS);
  double* x = malloc(sizeof(double) * n);
  double* y = malloc(sizeof(double) * n);
  int nnz = 0;
  for (int i = 0; i < n; ++i) {
    rowptr[i] = nnz;
    double total = 0;
    for (int d = 0; d < NOFFSETS; ++d) {
      int j = i + kOffsets[d];
      if (j < 0 || j >= n)
        continue;
      col[nnz] = j;
      val[nnz] = 1.0 + (double)((i + 3 * j) % 5);
      total += val[nnz];
      ++nnz;
    }
    for (int k = rowptr[i]; k < nnz; ++k)
      val[k] /= total;
    x[i] = (double)(i % 17) / 17.0;
  }
  rowptr[n] = nnz;
  for (int s = 0; s < steps; ++s) {
    spmv(n, rowptr, col, val, x, y);
    double* t = x;
    x = y;
    y = t;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += x[i] * (double)(i % 7);
  printf("spmv_seq n=%d steps=%d sum=%.6f\n", n, steps, sum);
  free(rowptr);
  free(col);
  free(val);
  free(x);
  free(y);
  return 0;
}

/* perfcast-kernel-gemv SIZE: matrix-vector products and a matrix addition
 * (Polybench's gemver) of order SIZE: A1 = A + u v^T, x = A1^T y + z,
 * w = A1 x. Rows of A are split over the ranks; A1^T y is summed over the
 * ranks (allreduce), so every rank then holds all of x for A1 x.
 * Check: x and w against the same products taken through A and the rank-one
 * term separately, x = A^T y + v (u . y) + z and w = A x + u (v . x). */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>

enum { kRepeats = 4 };
static long n, lo, hi;
static double *a, *a1, *u, *v, *y, *z, *x, *xpart, *w;

static void gemver(void)
{
  for (int rep = 0; rep < kRepeats; ++rep) {
    for (long j = 0; j < n; ++j) xpart[j] = 0;
    for (long i = 0; i < hi - lo; ++i) {
      const double ui = u[lo + i], yi = y[lo + i];
      double* row = a1 + i * n;
      const double* a0 = a + i * n;
      for (long j = 0; j < n; ++j) {
        row[j] = a0[j] + ui * v[j];
        xpart[j] += row[j] * yi;
      }
    }
    MPI_Allreduce(xpart, x, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (long j = 0; j < n; ++j) x[j] += z[j];
    for (long i = 0; i < hi - lo; ++i) {
      double sum = 0;
      for (long j = 0; j < n; ++j) sum += a1[i * n + j] * x[j];
      w[i] = sum;
    }
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "gemv", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  const size_t local = (size_t)((hi - lo) * n);
  a = kc_alloc(sizeof(double) * local);
  a1 = kc_alloc(sizeof(double) * local);
  double** vectors[] = {&u, &v, &y, &z, &x, &xpart, &w};
  for (int k = 0; k < 7; ++k) *vectors[k] = kc_alloc(sizeof(double) * (size_t)n);
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j < n; ++j) a[(i - lo) * n + j] = kc_unit((uint64_t)(i * n + j)) - 0.5;
  for (long j = 0; j < n; ++j) {
    u[j] = kc_unit((uint64_t)(n * n + j)) - 0.5;
    v[j] = kc_unit((uint64_t)(n * n + n + j)) - 0.5;
    y[j] = kc_unit((uint64_t)(n * n + 2 * n + j)) - 0.5;
    z[j] = kc_unit((uint64_t)(n * n + 3 * n + j)) - 0.5;
  }
  double seconds = kc_time(gemver);
  if (kc_corrupt()) x[0] += 1;

  /* x: A^T y summed over the ranks, plus v (u . y) + z */
  double uy = 0, worst = 0;
  for (long j = 0; j < n; ++j) uy += u[j] * y[j];
  for (long j = 0; j < n; ++j) xpart[j] = 0;
  for (long i = 0; i < hi - lo; ++i)
    for (long j = 0; j < n; ++j) xpart[j] += a[i * n + j] * y[lo + i];
  double* expected = kc_alloc(sizeof(double) * (size_t)n);
  MPI_Allreduce(xpart, expected, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double vx = 0;
  for (long j = 0; j < n; ++j) {
    worst = fmax(worst, fabs(x[j] - (expected[j] + v[j] * uy + z[j])));
    vx += v[j] * x[j];
  }
  for (long i = 0; i < hi - lo; ++i) {
    double ax = 0;
    for (long j = 0; j < n; ++j) ax += a[i * n + j] * x[j];
    worst = fmax(worst, fabs(w[i] - (ax + u[lo + i] * vx)));
  }
  const double tolerance = 1e-13 * (double)n * (double)n + 1e-12;
  char why[160];
  snprintf(why, sizeof why, "x or w off by %.3e from the rank-one identity (expected below %.3e)", worst, tolerance);
  return kc_finish(seconds, worst <= tolerance, why);
}

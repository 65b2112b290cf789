/* perfcast-kernel-gemm SIZE: dense matrix multiply C = A B of order SIZE.
 * A and C are split into blocks of rows over the ranks, B is held whole by
 * every rank (HPCC's star DGEMM: no communication in the product).
 * Check (Freivalds): C x must equal A (B x) for a pseudo-random x, to within
 * the rounding of sums of n products of numbers below 1. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static long n, lo, hi;
static double *a, *b, *c;

static void multiply(void)
{
  for (long i = 0; i < hi - lo; ++i) {
    double* ci = c + i * n;
    for (long j = 0; j < n; ++j) ci[j] = 0;
    for (long k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      const double* bk = b + k * n;
      for (long j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "gemm", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  a = kc_alloc(sizeof(double) * (size_t)((hi - lo) * n));
  b = kc_alloc(sizeof(double) * (size_t)(n * n));
  c = kc_alloc(sizeof(double) * (size_t)((hi - lo) * n));
  for (long i = lo; i < hi; ++i)
    for (long k = 0; k < n; ++k) a[(i - lo) * n + k] = kc_unit((uint64_t)(i * n + k)) - 0.5;
  for (long k = 0; k < n * n; ++k) b[k] = kc_unit((uint64_t)(k + n * n)) - 0.5;
  double seconds = kc_time(multiply);
  if (kc_corrupt() && hi > lo)
    for (long j = 0; j < n; ++j) c[j] += 1;

  double* x = kc_alloc(sizeof(double) * (size_t)n);
  double* bx = kc_alloc(sizeof(double) * (size_t)n);
  for (long j = 0; j < n; ++j) x[j] = kc_unit((uint64_t)(j + 3 * n * n));
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j) bx[k] += b[k * n + j] * x[j];
  double worst = 0;
  for (long i = 0; i < hi - lo; ++i) {
    double cx = 0, abx = 0;
    for (long j = 0; j < n; ++j) {
      cx += c[i * n + j] * x[j];
      abx += a[i * n + j] * bx[j];
    }
    worst = fmax(worst, fabs(cx - abx));
  }
  const double tolerance = 1e-13 * (double)n * (double)n + 1e-12;
  char why[160];
  snprintf(why, sizeof why, "|C x - A (B x)| = %.3e (expected below %.3e)", worst, tolerance);
  return kc_finish(seconds, worst <= tolerance, why);
}

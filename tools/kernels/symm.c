/* perfcast-kernel-symm SIZE: symmetric matrix multiply C = alpha A B + beta C
 * (BLAS symm, as in Polybench) of order SIZE, where only the lower triangle
 * of A is read: a(i,k) for k > i is taken from a(k,i). Rows of C are split
 * over the ranks; A and B are held whole by every rank.
 * Check (Freivalds): C x must equal alpha A (B x) + beta C0 x for a
 * pseudo-random x, A applied through the same symmetry. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double alpha = 1.5, beta = 0.5;
static long n, lo, hi;
static double *a, *b, *c, *c0;

static void multiply(void)
{
  memcpy(c, c0, sizeof(double) * (size_t)((hi - lo) * n));
  for (long i = lo; i < hi; ++i) {
    double* ci = c + (i - lo) * n;
    for (long j = 0; j < n; ++j) ci[j] *= beta;
    for (long k = 0; k < n; ++k) {
      const double aik = alpha * (k <= i ? a[i * n + k] : a[k * n + i]);
      const double* bk = b + k * n;
      for (long j = 0; j < n; ++j) ci[j] += aik * bk[j];
    }
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "symm", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  a = kc_alloc(sizeof(double) * (size_t)(n * n));
  b = kc_alloc(sizeof(double) * (size_t)(n * n));
  c = kc_alloc(sizeof(double) * (size_t)((hi - lo) * n));
  c0 = kc_alloc(sizeof(double) * (size_t)((hi - lo) * n));
  for (long i = 0; i < n; ++i) /* the upper triangle holds values the kernel must never read */
    for (long k = 0; k < n; ++k) a[i * n + k] = k <= i ? kc_unit((uint64_t)(i * n + k)) - 0.5 : 1e6;
  for (long k = 0; k < n * n; ++k) b[k] = kc_unit((uint64_t)(k + n * n)) - 0.5;
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j < n; ++j) c0[(i - lo) * n + j] = kc_unit((uint64_t)(i * n + j + 2 * n * n)) - 0.5;
  double seconds = kc_time(multiply);
  if (kc_corrupt() && hi > lo) c[n - 1] += 1;

  double* x = kc_alloc(sizeof(double) * (size_t)n);
  double* bx = kc_alloc(sizeof(double) * (size_t)n);
  for (long j = 0; j < n; ++j) x[j] = kc_unit((uint64_t)(j + 3 * n * n)) + 0.5;
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j) bx[k] += b[k * n + j] * x[j];
  double worst = 0;
  for (long i = lo; i < hi; ++i) {
    double cx = 0, expected = 0;
    for (long j = 0; j < n; ++j) {
      cx += c[(i - lo) * n + j] * x[j];
      const double aij = j <= i ? a[i * n + j] : a[j * n + i];
      expected += alpha * aij * bx[j] + beta * c0[(i - lo) * n + j] * x[j];
    }
    worst = fmax(worst, fabs(cx - expected));
  }
  const double tolerance = 1e-13 * (double)n * (double)n + 1e-12;
  char why[160];
  snprintf(why, sizeof why, "|C x - (alpha A B x + beta C0 x)| = %.3e (expected below %.3e)", worst, tolerance);
  return kc_finish(seconds, worst <= tolerance, why);
}

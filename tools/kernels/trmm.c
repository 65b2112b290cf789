/* perfcast-kernel-trmm SIZE: triangular matrix multiply B := alpha L B (BLAS
 * trmm, as in Polybench) of order SIZE with L lower triangular with a unit
 * diagonal. Row i costs i multiply-adds per column, so rows are dealt to the
 * ranks cyclically (row i to rank i mod P) to balance the work; L and the
 * input B are held whole by every rank.
 * Check (Freivalds): B x must equal alpha L (B0 x) for a pseudo-random x. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>

static const double alpha = 0.75;
static long n, rows;
static double *l, *b0, *b;

static void multiply(void)
{
  for (long r = 0; r < rows; ++r) {
    const long i = kc_rank + r * kc_procs;
    double* bi = b + r * n;
    const double* b0i = b0 + i * n;
    for (long j = 0; j < n; ++j) bi[j] = b0i[j]; /* unit diagonal */
    for (long k = 0; k < i; ++k) {
      const double lik = l[i * n + k];
      const double* bk = b0 + k * n;
      for (long j = 0; j < n; ++j) bi[j] += lik * bk[j];
    }
    for (long j = 0; j < n; ++j) bi[j] *= alpha;
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "trmm", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  rows = (n - kc_rank + kc_procs - 1) / kc_procs;
  l = kc_alloc(sizeof(double) * (size_t)(n * n));
  b0 = kc_alloc(sizeof(double) * (size_t)(n * n));
  b = kc_alloc(sizeof(double) * (size_t)(rows * n));
  for (long i = 0; i < n; ++i) /* the diagonal and upper triangle hold values the kernel must never read */
    for (long k = 0; k < n; ++k) l[i * n + k] = k < i ? kc_unit((uint64_t)(i * n + k)) - 0.5 : 1e6;
  for (long k = 0; k < n * n; ++k) b0[k] = kc_unit((uint64_t)(k + n * n)) - 0.5;
  double seconds = kc_time(multiply);
  if (kc_corrupt() && rows > 0) b[rows * n - 1] += 1;

  double* x = kc_alloc(sizeof(double) * (size_t)n);
  double* bx = kc_alloc(sizeof(double) * (size_t)n);
  for (long j = 0; j < n; ++j) x[j] = kc_unit((uint64_t)(j + 3 * n * n)) + 0.5;
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j) bx[k] += b0[k * n + j] * x[j];
  double worst = 0;
  for (long r = 0; r < rows; ++r) {
    const long i = kc_rank + r * kc_procs;
    double got = 0, expected = bx[i];
    for (long j = 0; j < n; ++j) got += b[r * n + j] * x[j];
    for (long k = 0; k < i; ++k) expected += l[i * n + k] * bx[k];
    worst = fmax(worst, fabs(got - alpha * expected));
  }
  const double tolerance = 1e-13 * (double)n * (double)n + 1e-12;
  char why[160];
  snprintf(why, sizeof why, "|B x - alpha L (B0 x)| = %.3e (expected below %.3e)", worst, tolerance);
  return kc_finish(seconds, worst <= tolerance, why);
}

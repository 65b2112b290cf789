/* perfcast-kernel-lu SIZE: dense LU factorisation A = L U of order SIZE
 * without pivoting (the generated matrix is diagonally dominant, so no pivot
 * is needed), rows dealt to the ranks cyclically (row i to rank i mod P) so
 * that the shrinking trailing matrix stays balanced. At step k the owner of
 * row k broadcasts it and every rank eliminates its rows below it.
 * Check (Freivalds): L (U x) must equal A x for a pseudo-random x. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static long n, rows;
static double *a0, *a, *pivot_row;

static double element(long i, long j) { return kc_unit((uint64_t)(i * n + j)) - 0.5 + (i == j ? (double)n : 0); }

static void factor(void)
{
  memcpy(a, a0, sizeof(double) * (size_t)(rows * n));
  for (long k = 0; k < n; ++k) {
    const int owner = (int)(k % kc_procs);
    if (owner == kc_rank) memcpy(pivot_row + k, a + (k / kc_procs) * n + k, sizeof(double) * (size_t)(n - k));
    MPI_Bcast(pivot_row + k, (int)(n - k), MPI_DOUBLE, owner, MPI_COMM_WORLD);
    const double inverse = 1.0 / pivot_row[k];
    /* my first row below k */
    long r = (k + 1 - kc_rank + kc_procs - 1) / kc_procs;
    for (; r < rows; ++r) {
      double* row = a + r * n;
      const double factor = row[k] * inverse;
      row[k] = factor;
      for (long j = k + 1; j < n; ++j) row[j] -= factor * pivot_row[j];
    }
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "lu", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  rows = (n - kc_rank + kc_procs - 1) / kc_procs;
  a0 = kc_alloc(sizeof(double) * (size_t)(rows * n));
  a = kc_alloc(sizeof(double) * (size_t)(rows * n));
  pivot_row = kc_alloc(sizeof(double) * (size_t)n);
  for (long r = 0; r < rows; ++r)
    for (long j = 0; j < n; ++j) a0[r * n + j] = element(kc_rank + r * kc_procs, j);
  double seconds = kc_time(factor);
  if (kc_corrupt() && rows > 0) a[n - 1] += 1;

  double* x = kc_alloc(sizeof(double) * (size_t)n);
  double* ux_part = kc_alloc(sizeof(double) * (size_t)n);
  double* ux = kc_alloc(sizeof(double) * (size_t)n);
  for (long j = 0; j < n; ++j) x[j] = kc_unit((uint64_t)(j + 2 * n * n)) + 0.5;
  for (long r = 0; r < rows; ++r) {
    const long i = kc_rank + r * kc_procs;
    for (long j = i; j < n; ++j) ux_part[i] += a[r * n + j] * x[j];
  }
  MPI_Allreduce(ux_part, ux, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double worst = 0;
  for (long r = 0; r < rows; ++r) {
    const long i = kc_rank + r * kc_procs;
    double lux = ux[i], ax = 0;
    for (long k = 0; k < i; ++k) lux += a[r * n + k] * ux[k];
    for (long j = 0; j < n; ++j) ax += a0[r * n + j] * x[j];
    worst = fmax(worst, fabs(lux - ax) / (double)n);
  }
  const double tolerance = 1e-13 * (double)n * (double)n + 1e-12;
  char why[160];
  snprintf(why, sizeof why, "|L U x - A x| / n = %.3e (expected below %.3e)", worst, tolerance);
  return kc_finish(seconds, worst <= tolerance, why);
}

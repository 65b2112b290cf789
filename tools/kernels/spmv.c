/* perfcast-kernel-spmv SIZE: ten sparse matrix-vector products y = A x with a
 * generated matrix of order SIZE in compressed sparse rows: row i holds 4 to
 * 16 entries at pseudo-random columns, so x is read irregularly. Rows are
 * split over the ranks; x is held whole by every rank.
 * Check: the sum of y over all rows must equal c . x, where c holds the
 * column sums of A, accumulated while the matrix was generated (1^T A x =
 * (A^T 1)^T x), to within the rounding of the sums. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>

enum { kRepeats = 10 };
static long n, lo, hi;
static long *row_start, *column;
static double *value, *x, *y;

static void multiply(void)
{
  for (int rep = 0; rep < kRepeats; ++rep)
    for (long i = 0; i < hi - lo; ++i) {
      double sum = 0;
      for (long e = row_start[i]; e < row_start[i + 1]; ++e) sum += value[e] * x[column[e]];
      y[i] = sum;
    }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "spmv", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  const long m = hi - lo;
  row_start = kc_alloc(sizeof(long) * (size_t)(m + 1));
  column = kc_alloc(sizeof(long) * (size_t)(m * 16));
  value = kc_alloc(sizeof(double) * (size_t)(m * 16));
  x = kc_alloc(sizeof(double) * (size_t)n);
  y = kc_alloc(sizeof(double) * (size_t)m);
  double* column_sum_local = kc_alloc(sizeof(double) * (size_t)n);
  double* column_sum = kc_alloc(sizeof(double) * (size_t)n);
  long e = 0;
  for (long i = lo; i < hi; ++i) {
    row_start[i - lo] = e;
    const long entries = 4 + (long)(kc_hash((uint64_t)i) % 13);
    for (long k = 0; k < entries; ++k, ++e) {
      column[e] = (long)(kc_hash((uint64_t)(i * 16 + k + n)) % (uint64_t)n);
      value[e] = kc_unit((uint64_t)(i * 16 + k + 17 * n)) - 0.25;
      column_sum_local[column[e]] += value[e];
    }
  }
  row_start[m] = e;
  for (long j = 0; j < n; ++j) x[j] = kc_unit((uint64_t)(j + 33 * n)) + 0.5;
  MPI_Allreduce(column_sum_local, column_sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double seconds = kc_time(multiply);
  if (kc_corrupt() && m > 0) y[m - 1] += 0.5;

  double local = 0, total = 0, expected = 0, scale = 0;
  for (long i = 0; i < m; ++i) local += y[i];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (long j = 0; j < n; ++j) {
    expected += column_sum[j] * x[j];
    scale += fabs(column_sum[j] * x[j]);
  }
  const double tolerance = 1e-12 * (scale + 16.0 * (double)n);
  char why[160];
  snprintf(why, sizeof why, "sum of y %.12e, column sums . x %.12e (expected equal to %.1e)", total, expected,
           tolerance);
  return kc_finish(seconds, fabs(total - expected) <= tolerance, why);
}

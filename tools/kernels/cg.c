/* perfcast-kernel-cg SIZE: 25 iterations of the conjugate gradient method on
 * a generated sparse symmetric positive definite matrix of order SIZE, as NPB
 * CG does with its random matrix. Row i couples to rows i +- d for six
 * pseudo-random distances d (short and long range, so the access pattern is
 * irregular), with weights in (0, 1) shared by both ends; the diagonal is
 * 12 plus twice the row's off-diagonal sum s (s < 12), so the eigenvalues lie
 * in [12 + s, 12 + 3s] within [12, 48] (Gershgorin): condition number <= 4.
 * Rows are split over the ranks; each iteration gathers the search direction
 * (allgatherv) and sums two dot products (allreduce).
 * Check: b = A 1, so x must approach the vector of ones; with a condition
 * number of at most 4, CG gains at least a factor (2 - 1) / (2 + 1) = 1/3 per
 * iteration, so after 25 the error is near 1e-12, far below the 1e-6 required. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>

enum { kIterations = 25, kDistances = 6 };
static long n, lo, hi, m;
static long *row_start, *column;
static double *value, *b, *x, *r, *p, *p_local, *q;
static int *counts, *displs;

static double dot(const double* u, const double* v)
{
  double local = 0, total = 0;
  for (long i = 0; i < m; ++i) local += u[i] * v[i];
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

static void solve(void)
{
  for (long i = 0; i < m; ++i) {
    x[i] = 0;
    r[i] = b[i];
    p_local[i] = b[i];
  }
  double rho = dot(r, r);
  for (int it = 0; it < kIterations; ++it) {
    MPI_Allgatherv(p_local, (int)m, MPI_DOUBLE, p, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    for (long i = 0; i < m; ++i) {
      double sum = 0;
      for (long e = row_start[i]; e < row_start[i + 1]; ++e) sum += value[e] * p[column[e]];
      q[i] = sum;
    }
    const double alpha = rho / dot(p_local, q);
    for (long i = 0; i < m; ++i) {
      x[i] += alpha * p_local[i];
      r[i] -= alpha * q[i];
    }
    const double rho_next = dot(r, r);
    for (long i = 0; i < m; ++i) p_local[i] = r[i] + rho_next / rho * p_local[i];
    rho = rho_next;
  }
}

static double weight(long i, long j) { return kc_unit((uint64_t)((i < j ? i : j) * n + (i < j ? j : i))); }

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "cg", 8);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  m = hi - lo;
  long distance[kDistances];
  const int distances = n / 2 < kDistances ? (int)(n / 2) : kDistances;
  for (int k = 0, tries = 0; k < distances; ++tries) { /* distinct distances in [1, n/2] */
    long d = 1 + (long)(kc_hash((uint64_t)(n * 131 + tries)) % (uint64_t)(n / 2));
    int seen = 0;
    for (int e = 0; e < k; ++e) seen |= distance[e] == d;
    if (!seen) distance[k++] = d;
  }
  row_start = kc_alloc(sizeof(long) * (size_t)(m + 1));
  column = kc_alloc(sizeof(long) * (size_t)(m * (2 * kDistances + 1)));
  value = kc_alloc(sizeof(double) * (size_t)(m * (2 * kDistances + 1)));
  double** vectors[] = {&b, &x, &r, &p_local, &q};
  for (int k = 0; k < 5; ++k) *vectors[k] = kc_alloc(sizeof(double) * (size_t)m);
  p = kc_alloc(sizeof(double) * (size_t)n);
  long e = 0;
  for (long i = lo; i < hi; ++i) {
    row_start[i - lo] = e;
    const long diagonal = e++;
    double off = 0;
    for (int k = 0; k < distances; ++k)
      for (int side = -1; side <= 1; side += 2) {
        const long j = i + side * distance[k];
        if (j < 0 || j >= n) continue;
        column[e] = j;
        value[e] = weight(i, j);
        off += value[e++];
      }
    column[diagonal] = i;
    value[diagonal] = 2.0 * kDistances + 2 * off;
    b[i - lo] = value[diagonal] + off; /* the row sum: b = A 1 */
  }
  row_start[m] = e;
  counts = kc_alloc(sizeof(int) * (size_t)kc_procs);
  displs = kc_alloc(sizeof(int) * (size_t)kc_procs);
  for (int q_rank = 0; q_rank < kc_procs; ++q_rank) {
    long r0, r1;
    kc_block(n, q_rank, kc_procs, &r0, &r1);
    counts[q_rank] = (int)(r1 - r0);
    displs[q_rank] = (int)r0;
  }
  double seconds = kc_time(solve);
  if (kc_corrupt() && m > 0) x[0] += 1e-3;

  double worst = 0;
  for (long i = 0; i < m; ++i) worst = fmax(worst, fabs(x[i] - 1));
  char why[160];
  snprintf(why, sizeof why, "max |x - 1| = %.3e after %d iterations (expected below 1e-6)", worst, kIterations);
  return kc_finish(seconds, worst < 1e-6, why);
}

/* perfcast-kernel-sp SIZE: one ADI step of scalar pentadiagonal line solves on
 * a SIZE^3 grid of five-component points, as NPB SP: every grid line along
 * x, then y, then z is a banded system with five constant, diagonally
 * dominant diagonals (its own per direction), solved by elimination for the
 * five components at once. The ranks hold z-slabs; the z sweep runs after an
 * all-to-all transpose to y-slabs, and the result is transposed back.
 * Check: the input is u0 = (Lx gx)(Ly gy)(Lz gz) w for separable profiles g
 * and weights w, so the exact result is gx(i) gy(j) gz(k) w_c; the operators
 * of different directions commute, being scalar. Every value must match to
 * 1e-10. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { kComp = 5 };
static long n, z0, z1;
static double band[3][5]; /* per direction: the diagonals at offsets -2 .. +2 */
static double *u0, *u, *t, *lower2, *lower1, *diag, *upper1, *upper2, *rhs;

/* Solves direction dir's system on the line at `first`, points `stride` doubles apart. */
static void solve_line(double* first, long stride, int dir)
{
  for (long i = 0; i < n; ++i) {
    lower2[i] = band[dir][0];
    lower1[i] = band[dir][1];
    diag[i] = band[dir][2];
    upper1[i] = band[dir][3];
    upper2[i] = band[dir][4];
    memcpy(rhs + i * kComp, first + i * stride, sizeof(double) * kComp);
  }
  for (long i = 0; i < n; ++i) { /* eliminate column i from rows i + 1 and i + 2 */
    if (i + 1 < n) {
      const double m = lower1[i + 1] / diag[i];
      diag[i + 1] -= m * upper1[i];
      upper1[i + 1] -= m * upper2[i];
      for (int c = 0; c < kComp; ++c) rhs[(i + 1) * kComp + c] -= m * rhs[i * kComp + c];
    }
    if (i + 2 < n) {
      const double m = lower2[i + 2] / diag[i];
      lower1[i + 2] -= m * upper1[i];
      diag[i + 2] -= m * upper2[i];
      for (int c = 0; c < kComp; ++c) rhs[(i + 2) * kComp + c] -= m * rhs[i * kComp + c];
    }
  }
  for (long i = n - 1; i >= 0; --i)
    for (int c = 0; c < kComp; ++c) {
      double v = rhs[i * kComp + c];
      if (i + 1 < n) v -= upper1[i] * first[(i + 1) * stride + c];
      if (i + 2 < n) v -= upper2[i] * first[(i + 2) * stride + c];
      first[i * stride + c] = v / diag[i];
    }
}

static void adi_step(void) { kc_adi_step(u, u0, t, z1 - z0, n, kComp, solve_line); }

static double profile(int dir, long i) { return i < 0 || i >= n ? 0 : 1 + kc_unit((uint64_t)(dir * n + i)); }

/* Direction dir's banded operator applied to its profile, at i. */
static double applied(int dir, long i)
{
  double sum = 0;
  for (int d = -2; d <= 2; ++d) sum += band[dir][d + 2] * profile(dir, i + d);
  return sum;
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "sp", 3);
  if (n < kc_procs) kc_bad_size("expected at least one z-plane per process");
  kc_block(n, kc_rank, kc_procs, &z0, &z1);
  for (int dir = 0; dir < 3; ++dir) {
    band[dir][2] = 1.0;
    for (int d = 0; d < 5; ++d)
      if (d != 2) band[dir][d] = (d == 1 || d == 3 ? 0.3 : 0.08) * (kc_unit((uint64_t)(dir * 5 + d)) - 0.5);
  }
  const size_t local = (size_t)((z1 - z0) * n * n * kComp);
  u0 = kc_alloc(sizeof(double) * local);
  u = kc_alloc(sizeof(double) * local);
  t = kc_alloc(sizeof(double) * local);
  double** lines[] = {&lower2, &lower1, &diag, &upper1, &upper2};
  for (int b = 0; b < 5; ++b) *lines[b] = kc_alloc(sizeof(double) * (size_t)n);
  rhs = kc_alloc(sizeof(double) * (size_t)(n * kComp));
  for (long k = z0; k < z1; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < kComp; ++c)
          u0[(((k - z0) * n + j) * n + i) * kComp + c] = applied(0, i) * applied(1, j) * applied(2, k) * (c + 1);
  double seconds = kc_time(adi_step);
  if (kc_corrupt() && z1 > z0) u[0] += 1e-6;

  double worst = 0;
  for (long k = z0; k < z1; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < kComp; ++c) {
          const double exact = profile(0, i) * profile(1, j) * profile(2, k) * (c + 1);
          worst = fmax(worst, fabs(u[(((k - z0) * n + j) * n + i) * kComp + c] - exact));
        }
  char why[160];
  snprintf(why, sizeof why, "max |u - gx gy gz w| = %.3e (expected below 1e-10)", worst);
  return kc_finish(seconds, worst < 1e-10, why);
}

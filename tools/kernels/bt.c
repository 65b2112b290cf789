/* perfcast-kernel-bt SIZE: one ADI step of block tridiagonal line solves on a
 * SIZE^3 grid of five-component points, as NPB BT: every grid line along x,
 * then y, then z is a system with constant 5x5 blocks A (below), B (on) and C
 * (above the diagonal), its own per direction, solved by block elimination
 * (Thomas's algorithm with a 5x5 factorisation at every point, as BT does).
 * The ranks hold z-slabs; the z sweep runs after an all-to-all transpose to
 * y-slabs, and the result is transposed back.
 * Check: with G = gx(i) gy(j) gz(k) w for profiles g and a vector w, the input
 * is u0 = Lx Ly Lz G = N(i) M(j) v(k), where v(k) = Az w gz(k-1) + Bz w gz(k)
 * + Cz w gz(k+1), M(j) = Ay gy(j-1) + By gy(j) + Cy gy(j+1) and N(i) likewise
 * (g is 0 outside the grid). The sweeps apply Lx^-1, Ly^-1, Lz^-1 in turn, so
 * the exact result is G; every value must match to 1e-10. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { kComp = 5, kBlock = 25 };
static long n, z0, z1;
static double blocks[3][3][kBlock]; /* per direction: A, B, C, row-major 5x5 */
static double *u0, *u, *t, *cprime, *dprime;

/* Solves m x = rhs for `columns` right-hand sides (5 x columns, row-major), m destroyed. */
static void solve5(double* m, double* rhs, int columns)
{
  for (int p = 0; p < kComp; ++p)
    for (int r = p + 1; r < kComp; ++r) {
      const double f = m[r * kComp + p] / m[p * kComp + p];
      for (int c = p; c < kComp; ++c) m[r * kComp + c] -= f * m[p * kComp + c];
      for (int c = 0; c < columns; ++c) rhs[r * columns + c] -= f * rhs[p * columns + c];
    }
  for (int r = kComp - 1; r >= 0; --r)
    for (int c = 0; c < columns; ++c) {
      double v = rhs[r * columns + c];
      for (int k = r + 1; k < kComp; ++k) v -= m[r * kComp + k] * rhs[k * columns + c];
      rhs[r * columns + c] = v / m[r * kComp + r];
    }
}

static void solve_line(double* first, long stride, int dir)
{
  const double *a = blocks[dir][0], *b = blocks[dir][1], *c = blocks[dir][2];
  for (long i = 0; i < n; ++i) {
    double m[kBlock], d[kComp];
    memcpy(m, b, sizeof m);
    memcpy(d, first + i * stride, sizeof d);
    if (i > 0) { /* m = B - A C'(i-1), d = d - A d'(i-1) */
      const double *cp = cprime + (i - 1) * kBlock, *dp = dprime + (i - 1) * kComp;
      for (int r = 0; r < kComp; ++r)
        for (int k = 0; k < kComp; ++k) {
          const double ark = a[r * kComp + k];
          for (int col = 0; col < kComp; ++col) m[r * kComp + col] -= ark * cp[k * kComp + col];
          d[r] -= ark * dp[k];
        }
    }
    double* cp = cprime + i * kBlock;
    memcpy(cp, c, sizeof(double) * kBlock);
    double factor[kBlock];
    memcpy(factor, m, sizeof factor);
    solve5(m, cp, kComp);
    solve5(factor, d, 1);
    memcpy(dprime + i * kComp, d, sizeof d);
  }
  for (long i = n - 1; i >= 0; --i) /* x(i) = d'(i) - C'(i) x(i+1) */
    for (int r = 0; r < kComp; ++r) {
      double v = dprime[i * kComp + r];
      if (i + 1 < n)
        for (int k = 0; k < kComp; ++k) v -= cprime[i * kBlock + r * kComp + k] * first[(i + 1) * stride + k];
      first[i * stride + r] = v;
    }
}

static void adi_step(void) { kc_adi_step(u, u0, t, z1 - z0, n, kComp, solve_line); }

static double profile(int dir, long i) { return i < 0 || i >= n ? 0 : 1 + kc_unit((uint64_t)(dir * n + i)); }

/* The 5x5 matrix A g(i-1) + B g(i) + C g(i+1) of direction dir. */
static void operator_at(int dir, long i, double* out)
{
  for (int e = 0; e < kBlock; ++e)
    out[e] = blocks[dir][0][e] * profile(dir, i - 1) + blocks[dir][1][e] * profile(dir, i) +
             blocks[dir][2][e] * profile(dir, i + 1);
}

static void multiply(const double* m, const double* v, double* out)
{
  for (int r = 0; r < kComp; ++r) {
    out[r] = 0;
    for (int k = 0; k < kComp; ++k) out[r] += m[r * kComp + k] * v[k];
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "bt", 2);
  if (n < kc_procs) kc_bad_size("expected at least one z-plane per process");
  kc_block(n, kc_rank, kc_procs, &z0, &z1);
  for (int dir = 0; dir < 3; ++dir)
    for (int which = 0; which < 3; ++which)
      for (int e = 0; e < kBlock; ++e) {
        const double noise = kc_unit((uint64_t)((dir * 3 + which) * kBlock + e)) - 0.5;
        blocks[dir][which][e] = which == 1 ? (e % 6 == 0 ? 4.0 : 0) + 0.4 * noise : 0.3 * noise;
      }
  const size_t local = (size_t)((z1 - z0) * n * n * kComp);
  u0 = kc_alloc(sizeof(double) * local);
  u = kc_alloc(sizeof(double) * local);
  t = kc_alloc(sizeof(double) * local);
  cprime = kc_alloc(sizeof(double) * (size_t)(n * kBlock));
  dprime = kc_alloc(sizeof(double) * (size_t)(n * kComp));
  const double w[kComp] = {1, -2, 3, -4, 5};
  for (long k = z0; k < z1; ++k) {
    double mz[kBlock], v[kComp];
    operator_at(2, k, mz);
    multiply(mz, w, v);
    for (long j = 0; j < n; ++j) {
      double my[kBlock], mv[kComp];
      operator_at(1, j, my);
      multiply(my, v, mv);
      for (long i = 0; i < n; ++i) {
        double mx[kBlock];
        operator_at(0, i, mx);
        multiply(mx, mv, u0 + (((k - z0) * n + j) * n + i) * kComp);
      }
    }
  }
  double seconds = kc_time(adi_step);
  if (kc_corrupt() && z1 > z0) u[0] += 1e-6;

  double worst = 0;
  for (long k = z0; k < z1; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < kComp; ++c) {
          const double exact = profile(0, i) * profile(1, j) * profile(2, k) * w[c];
          worst = fmax(worst, fabs(u[(((k - z0) * n + j) * n + i) * kComp + c] - exact));
        }
  char why[160];
  snprintf(why, sizeof why, "max |u - gx gy gz w| = %.3e (expected below 1e-10)", worst);
  return kc_finish(seconds, worst < 1e-10, why);
}

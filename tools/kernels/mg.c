/* perfcast-kernel-mg SIZE: eight multigrid V-cycles for the 3-D Poisson
 * equation -lap u = f on the unit cube with zero boundary values, on a grid of
 * SIZE intervals a side (a power of two), as NPB MG: weighted Jacobi
 * smoothing (two sweeps before and after, weight 6/7), full-weighting
 * restriction, trilinear prolongation, 40 sweeps on the coarsest grid. The
 * ranks hold slabs of z-planes (a power-of-two count of them); each sweep
 * exchanges one ghost plane with each neighbour, short-range communication
 * at every level.
 * Check: f = lambda s with s(x,y,z) = sin(pi x) sin(pi y) sin(pi z), an
 * eigenvector of the discrete Laplacian with eigenvalue lambda =
 * 3 (2 - 2 cos(pi h)) / h^2, so the discrete solution is s itself; after the
 * cycles u must be within 1e-3 of it everywhere (each cycle cuts the error by
 * about 4 here: 2e-5 is left at every size tried). */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kCycles = 8, kMaxLevels = 32 };
typedef struct {
  long n, planes;      /* intervals a side; z-planes owned (z0, z0 + planes] */
  long z0, side;       /* plane offset; points a side (n + 1) */
  double *u, *f, *r, *t;
} Level;
static Level level[kMaxLevels];
static int levels;

#define AT(L, z, y, x) ((((z) - (L)->z0) * (L)->side + (y)) * (L)->side + (x))

static void exchange(const Level* L, double* g)
{
  const long plane = L->side * L->side;
  const int below = kc_rank > 0 ? kc_rank - 1 : MPI_PROC_NULL, above = kc_rank + 1 < kc_procs ? kc_rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(g + plane, (int)plane, MPI_DOUBLE, below, 1, g + (L->planes + 1) * plane, (int)plane, MPI_DOUBLE, above,
               1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(g + L->planes * plane, (int)plane, MPI_DOUBLE, above, 2, g, (int)plane, MPI_DOUBLE, below, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static long last_plane(const Level* L) { return L->z0 + L->planes < L->n ? L->z0 + L->planes : L->n - 1; }

/* r = f - A u on the interior points this rank owns. */
static void residual(Level* L, double* out)
{
  const double h2 = 1.0 / (double)(L->n * L->n);
  exchange(L, L->u);
  for (long z = L->z0 + 1; z <= last_plane(L); ++z)
    for (long y = 1; y < L->n; ++y)
      for (long x = 1; x < L->n; ++x) {
        const double* u = L->u + AT(L, z, y, x);
        const long sy = L->side, sz = L->side * L->side;
        out[AT(L, z, y, x)] = L->f[AT(L, z, y, x)] - (6 * u[0] - u[-1] - u[1] - u[-sy] - u[sy] - u[-sz] - u[sz]) / h2;
      }
}

static void smooth(Level* L, int sweeps)
{
  const double h2 = 1.0 / (double)(L->n * L->n), weight = 6.0 / 7.0;
  for (int s = 0; s < sweeps; ++s) {
    residual(L, L->t);
    for (long z = L->z0 + 1; z <= last_plane(L); ++z)
      for (long y = 1; y < L->n; ++y)
        for (long x = 1; x < L->n; ++x) L->u[AT(L, z, y, x)] += weight * h2 / 6 * L->t[AT(L, z, y, x)];
  }
}

static void vcycle(int l)
{
  Level* L = &level[l];
  if (l == levels - 1) {
    smooth(L, 40);
    return;
  }
  Level* C = &level[l + 1];
  smooth(L, 2);
  residual(L, L->r);
  exchange(L, L->r);
  const double w[3] = {0.25, 0.5, 0.25};
  for (long z = C->z0 + 1; z <= last_plane(C); ++z) /* full weighting */
    for (long y = 1; y < C->n; ++y)
      for (long x = 1; x < C->n; ++x) {
        double sum = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              sum += w[dz + 1] * w[dy + 1] * w[dx + 1] * L->r[AT(L, 2 * z + dz, 2 * y + dy, 2 * x + dx)];
        C->f[AT(C, z, y, x)] = sum;
      }
  memset(C->u, 0, sizeof(double) * (size_t)((C->planes + 2) * C->side * C->side));
  vcycle(l + 1);
  exchange(C, C->u);
  for (long z = L->z0 + 1; z <= last_plane(L); ++z) /* trilinear prolongation of the correction */
    for (long y = 1; y < L->n; ++y)
      for (long x = 1; x < L->n; ++x) {
        double sum = 0;
        for (long cz = z / 2; cz <= (z + 1) / 2; ++cz)
          for (long cy = y / 2; cy <= (y + 1) / 2; ++cy)
            for (long cx = x / 2; cx <= (x + 1) / 2; ++cx) sum += C->u[AT(C, cz, cy, cx)];
        const int terms = (int)((1 + z % 2) * (1 + y % 2) * (1 + x % 2));
        L->u[AT(L, z, y, x)] += sum / terms;
      }
  smooth(L, 2);
}

static void solve(void)
{
  memset(level[0].u, 0, sizeof(double) * (size_t)((level[0].planes + 2) * level[0].side * level[0].side));
  for (int c = 0; c < kCycles; ++c) vcycle(0);
}

int main(int argc, char** argv)
{
  const long n = kc_init(&argc, &argv, "mg", 4);
  if (n & (n - 1)) kc_bad_size("expected a power of two");
  if (kc_procs & (kc_procs - 1)) kc_bad_size("expected a power-of-two process count");
  if (n < 2 * kc_procs) kc_bad_size("expected at least two z-planes per process");
  for (long nl = n; levels < kMaxLevels; nl /= 2) {
    Level* L = &level[levels++];
    L->n = nl;
    L->planes = nl / kc_procs;
    L->z0 = kc_rank * L->planes;
    L->side = nl + 1;
    const size_t points = (size_t)((L->planes + 2) * L->side * L->side);
    L->u = kc_alloc(sizeof(double) * points);
    L->f = kc_alloc(sizeof(double) * points);
    L->r = kc_alloc(sizeof(double) * points);
    L->t = kc_alloc(sizeof(double) * points);
    level[0].z0 = kc_rank * level[0].planes;
    if (L->planes % 2 || nl < 4) break;
  }
  Level* F = &level[0];
  const double pi = acos(-1.0), h = 1.0 / (double)n;
  const double lambda = 3 * (2 - 2 * cos(pi * h)) / (h * h);
  for (long z = F->z0 + 1; z <= last_plane(F); ++z)
    for (long y = 1; y < n; ++y)
      for (long x = 1; x < n; ++x)
        F->f[AT(F, z, y, x)] = lambda * sin(pi * (double)x * h) * sin(pi * (double)y * h) * sin(pi * (double)z * h);
  double seconds = kc_time(solve);
  if (kc_corrupt()) F->u[AT(F, F->z0 + 1, n / 2, n / 2)] += 1e-2;

  double worst = 0;
  for (long z = F->z0 + 1; z <= last_plane(F); ++z)
    for (long y = 1; y < n; ++y)
      for (long x = 1; x < n; ++x) {
        const double exact = sin(pi * (double)x * h) * sin(pi * (double)y * h) * sin(pi * (double)z * h);
        worst = fmax(worst, fabs(F->u[AT(F, z, y, x)] - exact));
      }
  char why[160];
  snprintf(why, sizeof why, "max |u - s| = %.3e after %d V-cycles on %d levels (expected below 1e-3)", worst, kCycles,
           levels);
  return kc_finish(seconds, worst < 1e-3, why);
}

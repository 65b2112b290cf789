/* perfcast-kernel-deposit SIZE: charge deposit of a 2-D particle-in-cell
 * skeleton, as the PIC skeleton codes' deposit step: a periodic SIZE x SIZE
 * grid, 8 unit-charge particles per cell, each spreading its charge to the
 * four nearest grid points with bilinear (cloud-in-cell) weights, four times.
 * The ranks hold strips of grid rows and the particles inside them, in a
 * shuffled order (so the grid is written irregularly, as in a real run); the
 * charge falling on the row above the strip is sent to the next rank.
 * Check: every cell holds the same 8 offsets, so each grid point receives the
 * four bilinear weights of each offset, which add up to 1: every grid point
 * must hold exactly 8 (to 1e-9). */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { kPerCell = 8, kRepeats = 4 };
static long n, row0, row1, count;
static double *px, *py, *grid, *incoming;

static void deposit(void)
{
  const long width = n, rows = row1 - row0 + 1; /* the last row is the guard row, row1 */
  for (int rep = 0; rep < kRepeats; ++rep) {
    memset(grid, 0, sizeof(double) * (size_t)(rows * width));
    for (long p = 0; p < count; ++p) {
      const long ix = (long)px[p], iy = (long)py[p];
      const double fx = px[p] - (double)ix, fy = py[p] - (double)iy;
      const long right = ix + 1 < n ? ix + 1 : 0;
      double* row = grid + (iy - row0) * width;
      row[ix] += (1 - fx) * (1 - fy);
      row[right] += fx * (1 - fy);
      row[width + ix] += (1 - fx) * fy;
      row[width + right] += fx * fy;
    }
    const int up = (kc_rank + 1) % kc_procs, down = (kc_rank + kc_procs - 1) % kc_procs;
    MPI_Sendrecv(grid + (rows - 1) * width, (int)width, MPI_DOUBLE, up, 0, incoming, (int)width, MPI_DOUBLE, down, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long x = 0; x < width; ++x) grid[x] += incoming[x];
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "deposit", 2);
  if (n < kc_procs) kc_bad_size("expected at least one grid row per process");
  kc_block(n, kc_rank, kc_procs, &row0, &row1);
  count = (row1 - row0) * n * kPerCell;
  px = kc_alloc(sizeof(double) * (size_t)count);
  py = kc_alloc(sizeof(double) * (size_t)count);
  grid = kc_alloc(sizeof(double) * (size_t)((row1 - row0 + 1) * n));
  incoming = kc_alloc(sizeof(double) * (size_t)n);
  double offset[kPerCell][2];
  for (int k = 0; k < kPerCell; ++k) {
    offset[k][0] = kc_unit((uint64_t)(2 * k));
    offset[k][1] = kc_unit((uint64_t)(2 * k + 1));
  }
  for (long p = 0; p < count; ++p) {
    const long cell = p / kPerCell;
    px[p] = (double)(cell % n) + offset[p % kPerCell][0];
    py[p] = (double)(row0 + cell / n) + offset[p % kPerCell][1];
  }
  for (long p = count - 1; p > 0; --p) { /* shuffle (Fisher-Yates, seeded by the rank) */
    const long q = (long)(kc_hash((uint64_t)(p * 7919 + kc_rank)) % (uint64_t)(p + 1));
    double tx = px[p], ty = py[p];
    px[p] = px[q];
    py[p] = py[q];
    px[q] = tx;
    py[q] = ty;
  }
  double seconds = kc_time(deposit);
  if (kc_corrupt() && count > 0) grid[0] += 0.5;

  double worst = 0;
  for (long i = 0; i < (row1 - row0) * n; ++i) worst = fmax(worst, fabs(grid[i] - kPerCell));
  char why[160];
  snprintf(why, sizeof why, "a grid point holds %.3e more or less than %d (expected below 1e-9)", worst, kPerCell);
  return kc_finish(seconds, worst < 1e-9, why);
}

/* An imbalanced iterative 2-D code, for perfcast's load-balancing study
 * (issue 9): a G x G domain split into a py x px grid of blocks, one per rank
 * (rank = row * px + column, as MPI_Cart_create numbers them).
 *
 * Each iteration a five-point stencil sweeps the block and every cell then
 * runs `cost` dependent multiply-adds, where cost is
 *   base                  everywhere,
 *   x 3 near the border   cells within G/8 of the domain's edge (boundary physics),
 *   x 5 in the front      a band G/8 wide whose column moves from the left edge
 *                         to the right one over the run (a flame or shock front).
 * Halos are exchanged with the four neighbours (non-blocking), the residual is
 * summed with MPI_Allreduce, and every `period`-th iteration ends with
 * AMPI_Migrate(AMPI_INFO_LB_SYNC), the point where AMPI balances and may move
 * the rank (perfcast_ampi.h: a no-op in plain MPI, a migration point under
 * `perfcast trace`). Trace with period 1 and let `perfcast lb replay --period K`
 * balance at every K-th point; under AMPI, period K balances as often.
 *
 * With shape `diagonal` the cost is asymmetric and its front moves along the
 * diagonal, so that no block mapping balances it (the paper's Ondes3D case):
 *   x 3 near two borders  cells within G/8 of the north or the west edge,
 *   x 5 in the front      cells whose gx + gy lies in a band G/4 wide that moves
 *                         from the north-west corner to the south-east one.
 * Block mapping gives a PE consecutive ranks, that is whole rows of blocks: the
 * north PE carries the heavy border all along and the front in the first half
 * of the run, the south PE the front in the second half.
 * With shape `hotspot` the imbalance is strong and moves slowly (the AMPI
 * ranking study of docs/lb.md):
 *   x 10 in a hot square  G/4 on a side, rows G/8 to 3G/8 (the north half), its
 *                         west edge moving from column 0 to column G/2 over the run.
 * On 2 PEs with block mapping the north PE carries the hot square all along:
 * 1.0625 against 0.5 (units of base x G^2), max/avg 1.36.
 * Shape `uniform` costs base everywhere (no imbalance: for overhead probes).
 *
 * usage: imbalance2d [iterations=100] [G=256] [base=200] [period=1] [shape=band|diagonal|hotspot|uniform]
 *        (period 0: never)
 * The same G at any rank count is the same problem: traces recorded at 64 and
 * 16 ranks describe the same work in finer and coarser pieces. Rank 0 prints
 * the wall time of the iteration loop, between two barriers (start-up and
 * shutdown excluded). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcast_ampi.h"

static void grid_dims(int size, int *py, int *px)
{
  int best = 1;
  for (int d = 1; d * d <= size; d++)
    if (size % d == 0)
      best = d;
  *py = best;
  *px = size / best;
}

enum shape { SHAPE_BAND, SHAPE_DIAGONAL, SHAPE_HOTSPOT, SHAPE_UNIFORM };

/* multiply-adds per cell at global cell (gx, gy) in iteration it of n */
static int cell_cost(enum shape shape, int gx, int gy, int g, int it, int n, int base)
{
  if (shape == SHAPE_UNIFORM)
    return base;
  if (shape == SHAPE_HOTSPOT) {
    int side = g / 4;
    int west = (int)((long)(g / 2) * it / (n > 1 ? n - 1 : 1)); /* the hot square's first column */
    if (gy >= g / 8 && gy < g / 8 + side && gx >= west && gx < west + side)
      return 10 * base;
    return base;
  }
  if (shape == SHAPE_DIAGONAL) {
    int border = g / 8, width = g / 4;
    int cost = base;
    if (gx < border || gy < border)
      cost *= 3;
    int front = (int)((long)(2 * g - 1 - width) * it / (n > 1 ? n - 1 : 1)); /* lowest gx + gy in the band */
    if (gx + gy >= front && gx + gy < front + width)
      cost *= 5;
    return cost;
  }
  int border = g / 8;
  int cost = base;
  if (gx < border || gy < border || gx >= g - border || gy >= g - border)
    cost *= 3;
  int front = (int)((long)(g - border) * it / (n > 1 ? n - 1 : 1)); /* left edge of the band */
  if (gx >= front && gx < front + border)
    cost *= 5;
  return cost;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 100;
  int g = argc > 2 ? atoi(argv[2]) : 256;
  int base = argc > 3 ? atoi(argv[3]) : 200;
  int period = argc > 4 ? atoi(argv[4]) : 1;
  const char *shape_name = argc > 5 ? argv[5] : "band";
  enum shape shape = SHAPE_BAND;
  if (strcmp(shape_name, "diagonal") == 0)
    shape = SHAPE_DIAGONAL;
  else if (strcmp(shape_name, "hotspot") == 0)
    shape = SHAPE_HOTSPOT;
  else if (strcmp(shape_name, "uniform") == 0)
    shape = SHAPE_UNIFORM;
  else if (strcmp(shape_name, "band") != 0) {
    if (rank == 0)
      fprintf(stderr, "imbalance2d: shape '%s': expected band, diagonal, hotspot or uniform\n", shape_name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int py, px;
  grid_dims(size, &py, &px);
  if (period < 0) {
    if (rank == 0)
      fprintf(stderr, "imbalance2d: period %d: expected 0 (never balance) or more\n", period);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (iterations < 1 || g % px != 0 || g % py != 0 || base < 1) {
    if (rank == 0)
      fprintf(stderr, "imbalance2d: %d ranks (%d x %d) do not split a %d x %d domain evenly\n", size, py, px, g, g);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int row = rank / px, col = rank % px;
  int nx = g / px, ny = g / py; /* block: ny rows of nx cells */
  int x0 = col * nx, y0 = row * ny;
  int north = row > 0 ? rank - px : -1, south = row < py - 1 ? rank + px : -1;
  int west = col > 0 ? rank - 1 : -1, east = col < px - 1 ? rank + 1 : -1;

  int w = nx + 2;
  double *u = malloc(sizeof(double) * (size_t)w * (ny + 2));
  double *v = malloc(sizeof(double) * (size_t)w * (ny + 2));
  int edge = nx > ny ? nx : ny;
  double *out = malloc(sizeof(double) * 4 * (size_t)edge), *in = malloc(sizeof(double) * 4 * (size_t)edge);
  if (!u || !v || !out || !in)
    MPI_Abort(MPI_COMM_WORLD, 3);
  for (int j = 0; j < ny + 2; j++)
    for (int i = 0; i < w; i++)
      u[j * w + i] = v[j * w + i] = 1.0 + 1e-3 * ((x0 + i) % 7) + 1e-4 * ((y0 + j) % 5);

  double residual = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    /* halos: north and south rows, west and east columns */
    int peer[4] = {north, south, west, east}, len[4] = {nx, nx, ny, ny};
    for (int i = 0; i < nx; i++) {
      out[0 * edge + i] = u[1 * w + 1 + i];
      out[1 * edge + i] = u[ny * w + 1 + i];
    }
    for (int j = 0; j < ny; j++) {
      out[2 * edge + j] = u[(1 + j) * w + 1];
      out[3 * edge + j] = u[(1 + j) * w + nx];
    }
    MPI_Request req[8];
    int nreq = 0;
    for (int k = 0; k < 4; k++)
      if (peer[k] >= 0)
        MPI_Irecv(in + k * edge, len[k], MPI_DOUBLE, peer[k], 0, MPI_COMM_WORLD, &req[nreq++]);
    for (int k = 0; k < 4; k++)
      if (peer[k] >= 0)
        MPI_Isend(out + k * edge, len[k], MPI_DOUBLE, peer[k], 0, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    if (north >= 0)
      for (int i = 0; i < nx; i++)
        u[1 + i] = in[0 * edge + i];
    if (south >= 0)
      for (int i = 0; i < nx; i++)
        u[(ny + 1) * w + 1 + i] = in[1 * edge + i];
    if (west >= 0)
      for (int j = 0; j < ny; j++)
        u[(1 + j) * w] = in[2 * edge + j];
    if (east >= 0)
      for (int j = 0; j < ny; j++)
        u[(1 + j) * w + nx + 1] = in[3 * edge + j];

    /* the sweep, and the cell's work */
    double local = 0;
    for (int j = 1; j <= ny; j++)
      for (int i = 1; i <= nx; i++) {
        double s = 0.25 * (u[(j - 1) * w + i] + u[(j + 1) * w + i] + u[j * w + i - 1] + u[j * w + i + 1]);
        int cost = cell_cost(shape, x0 + i - 1, y0 + j - 1, g, it, iterations, base);
        for (int k = 0; k < cost; k++)
          s = s * 0.9999999 + 1e-7;
        local += (s - u[j * w + i]) * (s - u[j * w + i]);
        v[j * w + i] = s;
      }
    double *t = u;
    u = v;
    v = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (period > 0 && (it + 1) % period == 0)
      AMPI_Migrate(AMPI_INFO_LB_SYNC);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double loop_s = MPI_Wtime() - start;
  if (rank == 0)
    printf("imbalance2d: %d ranks (%d x %d), %d iterations, residual %.6e, loop %.6f s\n", size, py, px, iterations,
           residual, loop_s);
  free(u);
  free(v);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}

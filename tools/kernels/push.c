/* perfcast-kernel-push SIZE: particle push of a 2-D particle-in-cell
 * skeleton, as the PIC skeleton codes' push step: a periodic SIZE x SIZE
 * grid, 8 particles per cell, 10 leapfrog steps per run. Each step gathers
 * the electric field at every particle from the four nearest grid points
 * (bilinear weights), updates its velocity and position, wraps it around the
 * periodic box, and sends the particles that left this rank's strip of rows
 * to the neighbouring rank.
 * Check: the field is uniform, E on every grid point, so particle id moves as
 * in closed form: after s steps (warm-up and timed run, s = 20),
 * x = x0 + s v0 + a s (s + 1) / 2 (time step 1, a = q E / m), modulo SIZE;
 * every particle must be there to 1e-8, inside its rank's strip, none lost. */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPerCell = 8, kSteps = 10, kFields = 5 };
typedef struct {
  double x, y, vx, vy, id;
} Particle;
static const double ax = 0.004, ay = -0.003; /* q E / m */
static long n, row0, row1, count, capacity;
static Particle *part, *leaving_up, *leaving_down;
static double *ex, *ey;
static int steps_done;

static Particle initial(long id)
{
  const long cell = id / kPerCell;
  Particle p = {(double)(cell % n) + kc_unit((uint64_t)(4 * id)), (double)(cell / n) + kc_unit((uint64_t)(4 * id + 1)),
                0.4 * (kc_unit((uint64_t)(4 * id + 2)) - 0.5), 0.4 * (kc_unit((uint64_t)(4 * id + 3)) - 0.5),
                (double)id};
  return p;
}

static double wrap(double v)
{
  if (v < 0) v += (double)n;
  if (v >= (double)n) v -= (double)n;
  return v;
}

static void exchange(void)
{
  long up = 0, down = 0, kept = 0;
  for (long p = 0; p < count; ++p) {
    const long iy = (long)part[p].y;
    if (iy >= row0 && iy < row1) part[kept++] = part[p];
    else if (iy == (row1 % n)) leaving_up[up++] = part[p];
    else leaving_down[down++] = part[p];
  }
  count = kept;
  const int next = (kc_rank + 1) % kc_procs, previous = (kc_rank + kc_procs - 1) % kc_procs;
  for (int way = 0; way < 2; ++way) {
    const long sending = way == 0 ? up : down;
    const int to = way == 0 ? next : previous, from = way == 0 ? previous : next;
    long receiving = 0;
    MPI_Sendrecv(&sending, 1, MPI_LONG, to, 10 + way, &receiving, 1, MPI_LONG, from, 10 + way, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (count + receiving > capacity) MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Sendrecv(way == 0 ? leaving_up : leaving_down, (int)(sending * kFields), MPI_DOUBLE, to, 20 + way,
                 part + count, (int)(receiving * kFields), MPI_DOUBLE, from, 20 + way, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    count += receiving;
  }
}

static void push(void)
{
  for (int s = 0; s < kSteps; ++s) {
    for (long p = 0; p < count; ++p) {
      Particle* q = &part[p];
      const long ix = (long)q->x, iy = (long)q->y;
      const double fx = q->x - (double)ix, fy = q->y - (double)iy;
      const long right = ix + 1 < n ? ix + 1 : 0;
      const double* rx = ex + (iy - row0) * n;
      const double* ry = ey + (iy - row0) * n;
      const double w00 = (1 - fx) * (1 - fy), w10 = fx * (1 - fy), w01 = (1 - fx) * fy, w11 = fx * fy;
      q->vx += w00 * rx[ix] + w10 * rx[right] + w01 * rx[n + ix] + w11 * rx[n + right];
      q->vy += w00 * ry[ix] + w10 * ry[right] + w01 * ry[n + ix] + w11 * ry[n + right];
      q->x = wrap(q->x + q->vx);
      q->y = wrap(q->y + q->vy);
    }
    exchange();
  }
  steps_done += kSteps;
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "push", 2);
  if (n < kc_procs) kc_bad_size("expected at least one grid row per process");
  kc_block(n, kc_rank, kc_procs, &row0, &row1);
  count = (row1 - row0) * n * kPerCell;
  capacity = 2 * count + 4 * n * kPerCell;
  part = kc_alloc(sizeof(Particle) * (size_t)capacity);
  leaving_up = kc_alloc(sizeof(Particle) * (size_t)capacity);
  leaving_down = kc_alloc(sizeof(Particle) * (size_t)capacity);
  ex = kc_alloc(sizeof(double) * (size_t)((row1 - row0 + 1) * n)); /* with the guard row above */
  ey = kc_alloc(sizeof(double) * (size_t)((row1 - row0 + 1) * n));
  for (long i = 0; i < (row1 - row0 + 1) * n; ++i) {
    ex[i] = ax;
    ey[i] = ay;
  }
  for (long p = 0; p < count; ++p) part[p] = initial(row0 * n * kPerCell + p);
  double seconds = kc_time(push);
  if (kc_corrupt() && count > 0) part[0].vx += 1, part[0].x = wrap(part[0].x + 0.5);

  const double s = steps_done;
  double worst = 0;
  long misplaced = 0, total = 0;
  for (long p = 0; p < count; ++p) {
    const Particle start = initial((long)part[p].id);
    const double dx = part[p].x - (start.x + s * start.vx + ax * s * (s + 1) / 2);
    const double dy = part[p].y - (start.y + s * start.vy + ay * s * (s + 1) / 2);
    worst = fmax(worst, fabs(dx - (double)n * round(dx / (double)n)));
    worst = fmax(worst, fabs(dy - (double)n * round(dy / (double)n)));
    misplaced += (long)part[p].y < row0 || (long)part[p].y >= row1;
  }
  MPI_Allreduce(&count, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  char why[200];
  snprintf(why, sizeof why, "a particle is %.3e from its closed-form place, %ld outside the strip, %ld of %ld kept "
           "(expected below 1e-8, none, all)", worst, misplaced, total, n * n * kPerCell);
  return kc_finish(seconds, worst < 1e-8 && misplaced == 0 && total == n * n * kPerCell, why);
}

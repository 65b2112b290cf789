/* perfcast-kernel-ptran SIZE: parallel matrix transpose and add, A := A^T + B
 * (HPCC's PTRANS) of order SIZE. Rows are split over the ranks, so the
 * transpose is an all-to-all: each rank sends rank r the columns of its rows
 * that become rank r's rows.
 * Check: with a(i,j) = i SIZE + j and b(i,j) = (i + 2 j) mod 7, integers that
 * doubles hold exactly, the result must be exactly j SIZE + i + b(i,j). */
#include "kernel_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { kRepeats = 4 };
static long n, lo, hi;
static double *a0, *a, *b, *send, *recv;
static int *counts, *displs;

static void transpose_add(void)
{
  for (int rep = 0; rep < kRepeats; ++rep) {
    memcpy(a, a0, sizeof(double) * (size_t)((hi - lo) * n));
    long offset = 0;
    for (int r = 0; r < kc_procs; ++r) { /* block (my rows, r's rows), transposed while packing */
      long r0, r1;
      kc_block(n, r, kc_procs, &r0, &r1);
      for (long j = r0; j < r1; ++j)
        for (long i = lo; i < hi; ++i) send[offset++] = a[(i - lo) * n + j];
    }
    MPI_Alltoallv(send, counts, displs, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < kc_procs; ++r) { /* from r: for my rows j, the values a(i, j) of r's rows i */
      long r0, r1;
      kc_block(n, r, kc_procs, &r0, &r1);
      const double* src = recv + displs[r];
      for (long j = lo; j < hi; ++j)
        for (long i = r0; i < r1; ++i) a[(j - lo) * n + i] = *src++ + b[(j - lo) * n + i];
    }
  }
}

int main(int argc, char** argv)
{
  n = kc_init(&argc, &argv, "ptran", 2);
  if (n < kc_procs) kc_bad_size("expected at least one row per process");
  if (n > 60000000) kc_bad_size("expected at most 60000000, so that every element is an exact double");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  const size_t local = (size_t)((hi - lo) * n);
  a0 = kc_alloc(sizeof(double) * local);
  a = kc_alloc(sizeof(double) * local);
  b = kc_alloc(sizeof(double) * local);
  send = kc_alloc(sizeof(double) * local);
  recv = kc_alloc(sizeof(double) * local);
  counts = kc_alloc(sizeof(int) * (size_t)kc_procs); /* the exchange is symmetric: same counts both ways */
  displs = kc_alloc(sizeof(int) * (size_t)kc_procs);
  for (int r = 0, offset = 0; r < kc_procs; ++r) {
    long r0, r1;
    kc_block(n, r, kc_procs, &r0, &r1);
    counts[r] = (int)((r1 - r0) * (hi - lo));
    displs[r] = offset;
    offset += counts[r];
  }
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j < n; ++j) {
      a0[(i - lo) * n + j] = (double)(i * n + j);
      b[(i - lo) * n + j] = (double)((i + 2 * j) % 7);
    }
  double seconds = kc_time(transpose_add);
  if (kc_corrupt() && hi > lo) a[0] += 1;

  long wrong = 0;
  for (long i = lo; i < hi; ++i)
    for (long j = 0; j < n; ++j)
      wrong += a[(i - lo) * n + j] != (double)(j * n + i + (i + 2 * j) % 7);
  char why[160];
  snprintf(why, sizeof why, "%ld elements differ from a(j,i) + b(i,j) (expected none)", wrong);
  return kc_finish(seconds, wrong == 0, why);
}

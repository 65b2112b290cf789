/* perfcast-kernel-is SIZE: integer sort of SIZE keys, as NPB IS: keys in
 * [0, 2^16) drawn as the mean of four uniform numbers (bell-shaped, so the
 * buckets are uneven), bucketed by value range, one range per rank, sent with
 * an all-to-all, then counting-sorted locally.
 * Check: every rank's keys are in order, each rank's last key is at most the
 * next rank's first, no key was lost (the count is SIZE) and none changed
 * (the sum of the keys is the sum before sorting, in exact integers). */
#include "kernel_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxKey = 1 << 16 };
static long lo, hi, received;
static int *keys, *sorted, *bucketed, *send_counts, *send_displs, *recv_counts, *recv_displs, *fill;
static long *histogram;

static int owner(int key) { return (int)((long)key * kc_procs / kMaxKey); }

static void sort(void)
{
  const int p = kc_procs;
  memset(send_counts, 0, sizeof(int) * (size_t)p);
  for (long i = 0; i < hi - lo; ++i) send_counts[owner(keys[i])]++;
  for (int r = 0, offset = 0; r < p; ++r) {
    send_displs[r] = offset;
    fill[r] = offset;
    offset += send_counts[r];
  }
  for (long i = 0; i < hi - lo; ++i) bucketed[fill[owner(keys[i])]++] = keys[i];
  MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
  received = 0;
  for (int r = 0; r < p; ++r) {
    recv_displs[r] = (int)received;
    received += recv_counts[r];
  }
  static int* incoming = NULL;
  static long capacity = 0;
  if (received > capacity) {
    free(incoming);
    capacity = received;
    incoming = kc_alloc(sizeof(int) * (size_t)capacity);
    free(sorted);
    sorted = kc_alloc(sizeof(int) * (size_t)capacity);
  }
  MPI_Alltoallv(bucketed, send_counts, send_displs, MPI_INT, incoming, recv_counts, recv_displs, MPI_INT,
                MPI_COMM_WORLD);
  const int first = (int)((long)kMaxKey * kc_rank / p), last = (int)((long)kMaxKey * (kc_rank + 1) / p);
  memset(histogram, 0, sizeof(long) * (size_t)(last - first));
  for (long i = 0; i < received; ++i) histogram[incoming[i] - first]++;
  long out = 0;
  for (int k = first; k < last; ++k)
    for (long c = histogram[k - first]; c > 0; --c) sorted[out++] = k;
}

int main(int argc, char** argv)
{
  const long n = kc_init(&argc, &argv, "is", 1);
  if (n < kc_procs) kc_bad_size("expected at least one key per process");
  if (n > 1L << 31) kc_bad_size("expected at most 2^31 keys");
  kc_block(n, kc_rank, kc_procs, &lo, &hi);
  keys = kc_alloc(sizeof(int) * (size_t)(hi - lo));
  bucketed = kc_alloc(sizeof(int) * (size_t)(hi - lo));
  int** tables[] = {&send_counts, &send_displs, &recv_counts, &recv_displs, &fill};
  for (int k = 0; k < 5; ++k) *tables[k] = kc_alloc(sizeof(int) * (size_t)kc_procs);
  histogram = kc_alloc(sizeof(long) * kMaxKey);
  long long key_sum = 0;
  for (long i = lo; i < hi; ++i) {
    double mean = 0;
    for (int d = 0; d < 4; ++d) mean += kc_unit((uint64_t)(4 * i + d)) / 4;
    keys[i - lo] = (int)(mean * kMaxKey);
    key_sum += keys[i - lo];
  }
  double seconds = kc_time(sort);
  if (kc_corrupt() && received > 1) sorted[0] = sorted[received - 1] + 1;

  long disorder = 0;
  long long sorted_sum = 0, total_sum = 0, sorted_total = 0;
  for (long i = 0; i < received; ++i) {
    disorder += i > 0 && sorted[i - 1] > sorted[i];
    sorted_sum += sorted[i];
  }
  /* each rank's smallest key goes to the rank before it, which compares it with its largest */
  int my_first = received ? sorted[0] : kMaxKey, next_first = kMaxKey;
  const int before = kc_rank > 0 ? kc_rank - 1 : MPI_PROC_NULL;
  const int after = kc_rank + 1 < kc_procs ? kc_rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(&my_first, 1, MPI_INT, before, 0, &next_first, 1, MPI_INT, after, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  disorder += received > 0 && sorted[received - 1] > next_first;
  long total = 0;
  MPI_Allreduce(&received, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&key_sum, &total_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&sorted_sum, &sorted_total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  char why[200];
  snprintf(why, sizeof why, "%ld keys out of order, %ld of %ld keys kept, key sum %lld of %lld (expected 0, all, equal)",
           disorder, total, n, sorted_total, total_sum);
  return kc_finish(seconds, disorder == 0 && total == n && sorted_total == total_sum, why);
}

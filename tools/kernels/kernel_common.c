/* Shared pieces of perfcast's reference kernels; see kernel_common.h. */
#include "kernel_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kc_rank = 0, kc_procs = 1;
static const char* kernel_name = "";
static long kernel_size = 0;

long kc_init(int* argc, char*** argv, const char* name, long min_size)
{
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &kc_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &kc_procs);
  kernel_name = name;
  char* end = NULL;
  errno = 0;
  long size = *argc == 2 ? strtol((*argv)[1], &end, 10) : 0;
  if (*argc != 2 || errno != 0 || end == (*argv)[1] || *end != '\0' || size < min_size) {
    if (kc_rank == 0)
      fprintf(stderr, "usage: perfcast-kernel-%s SIZE (an integer of at least %ld)\n", name, min_size);
    MPI_Finalize();
    exit(2);
  }
  kernel_size = size;
  return size;
}

void kc_bad_size(const char* why)
{
  if (kc_rank == 0)
    fprintf(stderr, "perfcast-kernel-%s: size %ld on %d processes: %s\n", kernel_name, kernel_size, kc_procs, why);
  MPI_Finalize();
  exit(2);
}

double kc_time(void (*run)(void))
{
  run();
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  run();
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - start;
}

int kc_corrupt(void)
{
  const char* which = getenv("PERFCAST_KERNEL_CORRUPT");
  return which && (strcmp(which, "all") == 0 || strcmp(which, kernel_name) == 0);
}

int kc_finish(double seconds, int ok, const char* why)
{
  double slowest = 0;
  int all_ok = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok)
    fprintf(stderr, "perfcast-kernel-%s: rank %d: size %ld: wrong result: %s\n", kernel_name, kc_rank, kernel_size,
            why);
  if (all_ok && kc_rank == 0) {
    printf("{\"kernel\": \"%s\", \"size\": %ld, \"procs\": %d, \"seconds\": %.9e}\n", kernel_name, kernel_size,
           kc_procs, slowest);
    fflush(stdout);
  }
  MPI_Finalize();
  return all_ok ? 0 : 1;
}

uint64_t kc_hash(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double kc_unit(uint64_t x) { return (double)(kc_hash(x) >> 11) * (1.0 / 9007199254740992.0); }

void kc_block(long n, int r, int p, long* lo, long* hi)
{
  *lo = n * r / p;
  *hi = n * (r + 1) / p;
}

void* kc_alloc(size_t bytes)
{
  void* p = calloc(bytes ? bytes : 1, 1);
  if (!p) {
    fprintf(stderr, "perfcast-kernel-%s: rank %d: out of memory for %zu bytes\n", kernel_name, kc_rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return p;
}

void kc_transpose(const double* in, double* out, long n, int comp)
{
  const int p = kc_procs;
  long k0, k1;
  kc_block(n, kc_rank, p, &k0, &k1);
  const long line = n * comp; /* one i-line of points */
  int* send_counts = kc_alloc(sizeof(int) * p);
  int* send_displs = kc_alloc(sizeof(int) * p);
  int* recv_counts = kc_alloc(sizeof(int) * p);
  int* recv_displs = kc_alloc(sizeof(int) * p);
  double* send = kc_alloc(sizeof(double) * (size_t)((k1 - k0) * n * line));
  double* recv = kc_alloc(sizeof(double) * (size_t)((k1 - k0) * n * line));
  long offset = 0;
  for (int r = 0; r < p; ++r) { /* pack: my k planes, rank r's j rows */
    long j0, j1;
    kc_block(n, r, p, &j0, &j1);
    send_displs[r] = (int)offset;
    for (long k = k0; k < k1; ++k)
      for (long j = j0; j < j1; ++j, offset += line)
        memcpy(send + offset, in + ((k - k0) * n + j) * line, sizeof(double) * (size_t)line);
    send_counts[r] = (int)(offset - send_displs[r]);
  }
  offset = 0;
  for (int r = 0; r < p; ++r) { /* rank r's k planes, my j rows */
    long r0, r1;
    kc_block(n, r, p, &r0, &r1);
    recv_displs[r] = (int)offset;
    recv_counts[r] = (int)((r1 - r0) * (k1 - k0) * line);
    offset += recv_counts[r];
  }
  MPI_Alltoallv(send, send_counts, send_displs, MPI_DOUBLE, recv, recv_counts, recv_displs, MPI_DOUBLE,
                MPI_COMM_WORLD);
  /* unpack: from rank r come its k planes for my rows j (my block of n, here k0..k1 names my j rows) */
  for (int r = 0; r < p; ++r) {
    long r0, r1;
    kc_block(n, r, p, &r0, &r1);
    const double* src = recv + recv_displs[r];
    for (long k = r0; k < r1; ++k)
      for (long j = k0; j < k1; ++j, src += line)
        memcpy(out + ((j - k0) * n + k) * line, src, sizeof(double) * (size_t)line);
  }
  free(send);
  free(recv);
  free(send_counts);
  free(send_displs);
  free(recv_counts);
  free(recv_displs);
}

void kc_adi_step(double* u, const double* u0, double* t, long planes, long n, int comp, kc_line_solver solve)
{
  const long line = n * comp;
  memcpy(u, u0, sizeof(double) * (size_t)(planes * n * line));
  for (long k = 0; k < planes; ++k)
    for (long j = 0; j < n; ++j) solve(u + (k * n + j) * line, comp, 0); /* along x */
  for (long k = 0; k < planes; ++k)
    for (long i = 0; i < n; ++i) solve(u + k * n * line + i * comp, line, 1); /* along y */
  kc_transpose(u, t, n, comp);
  for (long j = 0; j < planes; ++j)
    for (long i = 0; i < n; ++i) solve(t + j * n * line + i * comp, line, 2); /* along z */
  kc_transpose(t, u, n, comp);
}

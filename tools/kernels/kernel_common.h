/* Shared pieces of perfcast's reference kernels (tools/kernels): argument
 * parsing, the timed section, the result line, deterministic pseudo-random
 * numbers, block distributions and the z-slab to y-slab transpose.
 *
 * Every kernel program follows one interface: `perfcast-kernel-NAME SIZE`
 * runs its computation once as a warm-up, once more between two barriers
 * (the timed section), checks its own result, and on rank 0 prints one line
 *   {"kernel": "NAME", "size": SIZE, "procs": P, "seconds": T}
 * where T is the largest timed section over the ranks. A wrong result exits
 * with status 1, a bad size with status 2. PERFCAST_KERNEL_CORRUPT=NAME (or
 * "all") makes the kernel spoil its own result before the check, so tests can
 * show that every check can fail. */
#ifndef PERFCAST_KERNEL_COMMON_H
#define PERFCAST_KERNEL_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* This process's rank and the number of processes, set by kc_init. */
extern int kc_rank, kc_procs;

/* Starts MPI and reads SIZE from the command line; exits with status 2 and a
 * usage message when it is missing or not an integer of at least min_size. */
long kc_init(int* argc, char*** argv, const char* name, long min_size);
/* Ends the run with status 2 after a message about the size (rank 0 prints). */
void kc_bad_size(const char* why);
/* Runs `run` once as a warm-up, then once between barriers; returns the
 * timed section's length on this rank in seconds. */
double kc_time(void (*run)(void));
/* True when the environment asks this kernel to spoil its result. */
int kc_corrupt(void);
/* Reduces the ranks' checks (ok is 1 or 0, why says what failed), prints the
 * result line or the failure, ends MPI and returns the exit status. */
int kc_finish(double seconds, int ok, const char* why);

/* A deterministic hash of x (splitmix64's finaliser). */
uint64_t kc_hash(uint64_t x);
/* A number in [0, 1) drawn deterministically from x. */
double kc_unit(uint64_t x);
/* Rows [lo, hi) of n held by rank r of p (blocks differ by at most one). */
void kc_block(long n, int r, int p, long* lo, long* hi);
/* Allocates zeroed memory or aborts the run with a message. */
void* kc_alloc(size_t bytes);

/* Redistributes an n*n*n grid of `comp` doubles per point from z-slabs
 * (layout [k - z0][j][i][c], k in this rank's kc_block of n) to y-slabs
 * (layout [j - y0][k][i][c]); the same call with the roles of j and k
 * swapped brings it back, since both layouts keep i and c innermost. */
void kc_transpose(const double* in, double* out, long n, int comp);

/* Solves one line of `comp` doubles per point, points `stride` doubles apart,
 * along direction dir (0: x, 1: y, 2: z). */
typedef void (*kc_line_solver)(double* first, long stride, int dir);
/* One ADI step of bt and sp: u = u0, then every line of the rank's z-slab
 * solved along x and y, the grid transposed to y-slabs (through t), every
 * line solved along z, and transposed back. */
void kc_adi_step(double* u, const double* u0, double* t, long planes, long n, int comp, kc_line_solver solve);

#endif

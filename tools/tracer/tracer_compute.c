/* perfcast's PMPI tracer: the computation between MPI calls and the time in
 * them. Computation is counted in retired instructions when perf_event_open
 * allows it, else as the calling thread's CPU seconds between its MPI calls
 * (CLOCK_THREAD_CPUTIME_ID) times the flop rate measured at MPI_Init on the
 * same clock. CPU time, not elapsed time: ranks oversubscribed on few cores
 * record the computation each would do alone on a core, not the time they
 * waited for one. The CPU clock is a system call (about a microsecond) where
 * the monotonic clock is not, so a gap takes the smaller of the two: the
 * elapsed time for the short gaps between back-to-back calls, which would
 * otherwise count the tracer's own reading, and the CPU time whenever the
 * rank waited for a core. Each MPI call's count and elapsed seconds go to
 * the per-call statistics. */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long perf_open(void)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.size = sizeof attr;
  attr.config = PERF_COUNT_HW_INSTRUCTIONS;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.inherit = 1; /* threads the rank starts later (OpenMP) count too */
  return syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

uint64_t read_counter(void)
{
  uint64_t v = 0;
  if (T.counter_fd >= 0 && read(T.counter_fd, &v, sizeof v) != sizeof v)
    v = 0;
  return v;
}

__thread double cpu_at_leave __attribute__((tls_model("initial-exec")));
__thread double wall_at_leave __attribute__((tls_model("initial-exec")));

double thread_cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* flop/s of this core on independent multiply-add chains, best of three
 * rounds of 2 ms of CPU time; with a counter open, also its instructions per second on them */
void measure_rates(void)
{
  const char *forced = getenv("PERFCAST_FLOP_RATE");
  /* eight independent multiply-add chains, as compiled scalar loops overlap them */
  volatile double sink = 0;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, best = 0, best_ips = 0;
  for (int round = 0; round < 3; ++round) {
    uint64_t c0 = read_counter();
    double t0 = thread_cpu_now();
    long n = 0;
    while (thread_cpu_now() - t0 < 0.002) {
      for (int i = 0; i < 20000; ++i)
        for (int k = 0; k < 8; ++k)
          x[k] = x[k] * 0.999999 + 1e-7;
      n += 20000 * 8;
    }
    double elapsed = thread_cpu_now() - t0;
    double rate = 2.0 * n / elapsed;
    if (rate > best)
      best = rate;
    double ips = (double)(read_counter() - c0) / elapsed;
    if (T.counter_fd >= 0 && ips > best_ips)
      best_ips = ips;
  }
  for (int k = 0; k < 8; ++k)
    sink += x[k];
  (void)sink;
  T.flops_per_s = forced && atof(forced) > 0 ? atof(forced) : best;
  T.instructions_per_s = best_ips;
}

double pc_enter(void)
{
  double t = now();
  if (depth++ == 0 && T.active) {
    double cpu = thread_cpu_now();
    double elapsed = cpu - cpu_at_leave;
    if (t - wall_at_leave < elapsed)
      elapsed = t - wall_at_leave;
    if (elapsed < 0)
      elapsed = 0;
    int locked = pc_lock();
    T.compute_s += elapsed;
    double flops;
    if (T.counter_fd >= 0) {
      uint64_t c = read_counter();
      flops = (double)(c - T.last_counter);
      T.last_counter = c;
    } else {
      flops = elapsed * T.flops_per_s;
    }
    /* gaps under a microsecond between calls are carried over, not written one by one */
    T.pending_flops += flops;
    T.pending_s += elapsed;
    if (T.pending_s >= 1e-6 && T.pending_flops >= 1) {
      emit("%d compute %.6g\n", T.rank, T.pending_flops);
      T.pending_flops = T.pending_s = 0;
    }
    pc_unlock(locked);
  }
  return t;
}

static void count_call(const char *name, double seconds)
{
  int i = 0;
  while (i < T.ncalls && T.calls[i].name != name && strcmp(T.calls[i].name, name) != 0)
    ++i;
  if (i == T.ncalls) {
    if (T.ncalls == T.calls_capacity) {
      int bigger = T.calls_capacity ? 2 * T.calls_capacity : 64;
      struct call_stats *grown = realloc(T.calls, sizeof *grown * (size_t)bigger);
      if (!grown) {
        pc_note_failure("out of memory for the per-call statistics");
        return;
      }
      T.calls = grown;
      T.calls_capacity = bigger;
    }
    T.calls[T.ncalls++] = (struct call_stats){name, 0, 0};
  }
  T.calls[i].calls++;
  T.calls[i].seconds += seconds;
}

void pc_leave(const char *name, double t0)
{
  if (--depth > 0)
    return;
  double t = now();
  if (!T.active)
    return;
  int locked = pc_lock();
  if (T.counter_fd >= 0)
    T.last_counter = read_counter();
  if (strncmp(name, "MPI_Init", 8) != 0) /* start-up is not the application's MPI time */
    T.mpi_s += t - t0;
  if (T.active)
    count_call(name, t - t0);
  migrate_point_after(name);
  pc_unlock(locked);
  /* last, so that the next gap holds none of the tracer's work */
  cpu_at_leave = thread_cpu_now();
  wall_at_leave = now();
}

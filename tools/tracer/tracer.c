/* perfcast's PMPI tracer: the start and the end of a rank's trace.
 *
 * Each rank writes $PERFCAST_TRACE_DIR/rank-R.txt, a time-independent trace in
 * SimGrid's syntax (sizes in bytes with datatype 6) plus perfcast's documented
 * extensions (comm=N, src=K, ssend, waitany, non-blocking collectives), and at
 * MPI_Finalize rank-R.profile.json (mpiP-like counters). Lines are buffered per
 * rank and written whole. A rank that ends without MPI_Finalize (MPI_Abort, a
 * signal, exit) or whose trace cannot be written (full disk, memory exhausted)
 * ends its file with "# perfcast: incomplete (REASON)". The first line,
 * "# perfcast: header ...", says how computation is measured: retired
 * instructions when perf_event_open allows it, otherwise the elapsed time
 * times a flop rate measured at MPI_Init (docs/tracer.md lists the fields).
 */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct pc_state T = {.fd = -1, .counter_fd = -1, .provisional_at = -1};
__thread int depth __attribute__((tls_model("initial-exec")));
int threaded;
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int pc_lock(void)
{
  if (!threaded)
    return 0;
  pthread_mutex_lock(&lock);
  return 1;
}

void pc_unlock(int locked)
{
  if (locked)
    pthread_mutex_unlock(&lock);
}

/* ---- recorders */

void rec_none(void) {}

static const char *thread_level_name(int level)
{
  return level == MPI_THREAD_MULTIPLE ? "multiple" : level == MPI_THREAD_SERIALIZED ? "serialized"
         : level == MPI_THREAD_FUNNELED ? "funneled" : "single";
}

/* a file beside the trace that holds disk space for the incomplete mark */
static void make_reserve(void)
{
  if (snprintf(T.reserve_path, sizeof T.reserve_path, "%s/rank-%d.reserve", T.dir, T.rank) >=
      (int)sizeof T.reserve_path) {
    T.reserve_path[0] = 0;
    return;
  }
  int fd = open(T.reserve_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    T.reserve_path[0] = 0;
    return;
  }
  char block[RESERVE_BYTES];
  memset(block, '\n', sizeof block);
  int ok = write_all(fd, block, sizeof block) == 0;
  close(fd);
  if (!ok) {
    unlink(T.reserve_path);
    T.reserve_path[0] = 0;
  }
}

/* The host's rate: every rank on a host measured the same kernel at once, and
 * they spread by a few percent; each converts its CPU seconds at their
 * median, so that the spread is not recorded as load imbalance. Collective
 * over MPI_COMM_WORLD: a rank that does not trace passes 0 and is left out. */
static double host_rate(double own)
{
  MPI_Comm node;
  if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return own;
  int n = 0;
  PMPI_Comm_size(node, &n);
  double *rates = n > 0 ? malloc(sizeof *rates * (size_t)n) : NULL;
  double result = own;
  if (rates && PMPI_Allgather(&own, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, node) == MPI_SUCCESS) {
    int k = 0;
    for (int i = 0; i < n; ++i)
      if (rates[i] > 0)
        rates[k++] = rates[i];
    for (int i = 1; i < k; ++i) /* insertion sort: a host's ranks are few */
      for (int j = i; j > 0 && rates[j] < rates[j - 1]; --j) {
        double t = rates[j];
        rates[j] = rates[j - 1];
        rates[j - 1] = t;
      }
    if (k > 0 && own > 0)
      result = k % 2 ? rates[k / 2] : 0.5 * (rates[k / 2 - 1] + rates[k / 2]);
  }
  free(rates);
  PMPI_Comm_free(&node);
  return result;
}

/* the trace file and buffers; 0 when this rank cannot trace (a message says why) */
static int open_trace(const char *dir)
{
  if (snprintf(T.dir, sizeof T.dir, "%s", dir) >= (int)sizeof T.dir ||
      snprintf(T.path, sizeof T.path, "%s/rank-%d.txt", dir, T.rank) >= (int)sizeof T.path) {
    fprintf(stderr, "perfcast tracer: rank %d: PERFCAST_TRACE_DIR is longer than %zu bytes; not tracing\n", T.rank,
            sizeof T.path - 16);
    return 0;
  }
  T.buf = malloc(BUFFER_BYTES);
  T.comms = malloc(sizeof *T.comms * 16);
  T.fd = T.buf && T.comms ? open(T.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
  if (T.fd < 0) {
    fprintf(stderr, "perfcast tracer: rank %d: cannot write %s: %s; not tracing\n", T.rank, T.path,
            T.buf && T.comms ? strerror(errno) : "out of memory");
    free(T.buf);
    free(T.comms);
    T.buf = NULL;
    T.comms = NULL;
    return 0;
  }
  return 1;
}

/* the program's name (its executable's), with blanks as '_' for the header's key=value fields */
static void program_name(char *out, size_t size)
{
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  const char *base = strrchr(exe, '/');
  snprintf(out, size, "%s", base ? base + 1 : (exe[0] ? exe : "unknown"));
  for (char *c = out; *c; ++c)
    if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '=')
      *c = '_';
}

static void start_tracing(int thread_level)
{
  const char *dir = getenv("PERFCAST_TRACE_DIR");
  if (!dir || !*dir || T.active || T.finalized)
    return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &T.size);
  int tracing = open_trace(dir);
  if (tracing) {
    make_reserve();
    gethostname(T.host, sizeof T.host - 1);
    T.comms[0] = MPI_COMM_WORLD;
    T.ncomms = 1;
    T.comms_capacity = 16;
    T.thread_level = thread_level;
    threaded = thread_level == MPI_THREAD_MULTIPLE;
    T.counter_fd = (int)perf_open();
    if (T.counter_fd >= 0)
      ioctl(T.counter_fd, PERF_EVENT_IOC_ENABLE, 0);
    measure_rates();
  }
  /* every rank takes part, tracing or not */
  double host = host_rate(tracing ? T.flops_per_s : 0);
  if (!tracing)
    return;
  T.rank_flops_per_s = T.flops_per_s;
  T.flops_per_s = host;
  char program[256];
  program_name(program, sizeof program);
  T.last_counter = read_counter();
  T.active = 1;
  T.start = now();
  cpu_at_leave = thread_cpu_now();
  wall_at_leave = now();
  /* instructions are counted for every thread started after MPI_Init; time only for the calling one */
  emit("# perfcast: header version=2 rank=%d size=%d host=%s compute_unit=%s flops_per_s=%.6g "
       "instructions_per_s=%.6g compute_clock=%s compute_threads=%s thread_level=%s rank_flops_per_s=%.6g "
       "program=%s\n",
       T.rank, T.size, T.host, T.counter_fd >= 0 ? "instructions" : "flops", T.flops_per_s, T.instructions_per_s,
       T.counter_fd >= 0 ? "counter" : "thread_cpu", T.counter_fd >= 0 ? "all" : "calling",
       thread_level_name(thread_level), T.rank_flops_per_s, program);
  emit("%d init\n", T.rank);
  pc_signals_install();
  atexit(on_exit_handler);
  migrate_points_start(); /* last: the tracer's own buffers are not the program's heap */
}

void rec_init(void) { start_tracing(MPI_THREAD_SINGLE); }

void rec_init_thread(int provided) { start_tracing(provided); }

/* rank-R.profile.json, written whole then renamed; 0 or an errno */
static int write_profile(void)
{
  char path[4200], final_path[4200];
  snprintf(path, sizeof path, "%s/rank-%d.profile.json.tmp", T.dir, T.rank);
  snprintf(final_path, sizeof final_path, "%s/rank-%d.profile.json", T.dir, T.rank);
  FILE *f = fopen(path, "we");
  if (!f)
    return errno;
  fprintf(f, "{\n  \"format\": \"perfcast-rank-profile\",\n  \"version\": 2,\n  \"rank\": %d,\n  \"size\": %d,\n", T.rank,
          T.size);
  fprintf(f, "  \"host\": \"%s\",\n  \"wall_s\": %.9g,\n  \"compute_s\": %.9g,\n  \"mpi_s\": %.9g,\n", T.host,
          T.end - T.start, T.compute_s, T.mpi_s);
  fprintf(f, "  \"compute_unit\": \"%s\",\n", T.counter_fd >= 0 ? "instructions" : "flops");
  fprintf(f, "  \"flops_per_s\": %.9g,\n  \"rank_flops_per_s\": %.9g,\n  \"instructions_per_s\": %.9g,\n", T.flops_per_s,
          T.rank_flops_per_s, T.instructions_per_s);
  fprintf(f, "  \"messages_sent\": %llu,\n  \"bytes_sent\": %llu,\n  \"messages_received\": %llu,\n"
             "  \"bytes_received\": %llu,\n  \"collectives\": %llu,\n  \"calls\": {",
          T.msgs_sent, T.bytes_sent, T.msgs_recv, T.bytes_recv, T.collectives);
  for (int i = 0; i < T.ncalls; ++i)
    fprintf(f, "%s\n    \"%s\": {\"calls\": %llu, \"seconds\": %.9g}", i ? "," : "", T.calls[i].name,
            T.calls[i].calls, T.calls[i].seconds);
  fprintf(f, "\n  }\n}\n");
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  if (fclose(f) != 0 && !err)
    err = errno;
  if (!err && rename(path, final_path) != 0)
    err = errno;
  if (err)
    unlink(path);
  return err;
}

void rec_finalize(void)
{
  if (!T.active)
    return;
  T.end = now();
  if (T.pending_flops >= 1)
    emit("%d compute %.6g\n", T.rank, T.pending_flops);
  emit("%d finalize\n", T.rank);
  flush_buffer(0);
  if (!T.active) /* a write error ended the trace */
    return;
  int err = write_profile();
  if (err) {
    char what[4200];
    snprintf(what, sizeof what, "%s/rank-%d.profile.json", T.dir, T.rank);
    write_failed(what, err);
    return;
  }
  emit("# perfcast: complete\n");
  flush_buffer(0);
  if (!T.active)
    return;
  T.active = 0;
  T.finalized = 1;
  pc_signals_restore();
  close(T.fd);
  T.fd = -1;
  if (T.counter_fd >= 0)
    close(T.counter_fd);
  T.counter_fd = -1;
  if (T.reserve_path[0])
    unlink(T.reserve_path);
  free(T.buf);
  T.buf = NULL;
}

void rec_abort(void)
{
  T.busy++;
  end_incomplete("MPI_Abort", NULL, 1);
  T.busy--;
}

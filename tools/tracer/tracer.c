/* perfcast's PMPI tracer: the recorders behind the generated wrappers.
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
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_BYTES (1 << 20)
#define RESERVE_BYTES 8192 /* freed on a write error so the incomplete mark fits */

struct call_stats {
  const char *name;
  unsigned long long calls;
  double seconds;
};

static struct {
  int active;    /* tracing is on */
  int finalized; /* nothing more will be written */
  int rank, size;
  int fd;
  char path[4096];
  char reserve_path[4096];
  char dir[4096];
  char *buf;
  size_t used;
  off_t file_end;       /* bytes written to the file */
  off_t file_good;      /* up to its last newline */
  off_t provisional_at; /* where a provisional incomplete mark starts, or -1 */
  volatile sig_atomic_t busy; /* the buffer or the file is being changed */
  double last_leave;
  double start, end;
  double compute_s, mpi_s;
  double flops_per_s, instructions_per_s;
  double pending_flops, pending_s; /* computation too short to record yet */
  int counter_fd; /* perf_event fd for instructions, or -1 */
  uint64_t last_counter;
  int thread_level;
  unsigned long long msgs_sent, bytes_sent, msgs_recv, bytes_recv, collectives;
  struct call_stats *calls;
  int ncalls, calls_capacity;
  MPI_Comm *comms;
  int ncomms, comms_capacity;
  char host[256];
} T = {.fd = -1, .counter_fd = -1, .provisional_at = -1};

/* nested MPI calls (Fortran -> C, MPI calling MPI) record once; per thread */
static __thread int depth __attribute__((tls_model("initial-exec")));
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int threaded; /* MPI_THREAD_MULTIPLE: recording takes the lock */

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

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- output: whole lines only; the first write error stops the trace */

/* async-signal-safe: write(2) until done; -1 with errno on failure, the
 * bytes that did reach the file in *done */
static int write_some(int fd, const char *data, size_t len, size_t *done)
{
  *done = 0;
  while (*done < len) {
    ssize_t n = write(fd, data + *done, len - *done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (n == 0) {
      errno = ENOSPC;
      return -1;
    }
    *done += (size_t)n;
  }
  return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
  size_t done;
  return write_some(fd, data, len, &done);
}

static void write_text(int fd, const char *text) { (void)write_all(fd, text, strlen(text)); }

/* Ends the file with "# perfcast: incomplete (WHY[: DETAIL])" after its last
 * whole line and stops tracing. Async-signal-safe; `keep_buffer` writes the
 * whole lines still buffered first (not when the buffer may be mid-change). */
static void end_incomplete(const char *why, const char *detail, int keep_buffer)
{
  if (T.finalized || T.fd < 0)
    return;
  T.active = 0;
  T.finalized = 1;
  /* room for the mark even on a full disk */
  if (T.reserve_path[0])
    unlink(T.reserve_path);
  if (T.provisional_at >= 0) { /* a signal's provisional mark: replaced by this one */
    T.file_good = T.file_end = T.provisional_at;
    T.provisional_at = -1;
  }
  if (keep_buffer && T.used > 0 && T.file_end == T.file_good) {
    size_t whole = T.used;
    while (whole > 0 && T.buf[whole - 1] != '\n')
      --whole;
    if (whole > 0 && lseek(T.fd, T.file_good, SEEK_SET) >= 0 && write_all(T.fd, T.buf, whole) == 0)
      T.file_good += (off_t)whole;
  }
  /* drop any partly written line before the mark (a pipe cannot: the mark is appended) */
  if (ftruncate(T.fd, T.file_good) == 0)
    lseek(T.fd, T.file_good, SEEK_SET);
  write_text(T.fd, "# perfcast: incomplete (");
  write_text(T.fd, why);
  if (detail) {
    write_text(T.fd, ": ");
    write_text(T.fd, detail);
  }
  write_text(T.fd, ")\n");
  close(T.fd);
  T.fd = -1;
  T.used = 0;
}

/* the first write error: said on stderr and at the end of the trace */
static void write_failed(const char *file, int err)
{
  if (T.finalized)
    return;
  char what[4200];
  snprintf(what, sizeof what, "write error on %s", file);
  const char *reason = strerrordesc_np(err);
  if (!reason)
    reason = "unknown error";
  fprintf(stderr, "perfcast tracer: rank %d: %s: %s (errno %d); the trace stops here and is marked incomplete\n",
          T.rank, what, reason, err);
  end_incomplete(what, reason, 0);
}

void pc_note_failure(const char *why)
{
  int locked = pc_lock();
  if (!T.finalized && T.fd >= 0) {
    fprintf(stderr, "perfcast tracer: rank %d: %s; the trace stops here and is marked incomplete\n", T.rank, why);
    T.busy++;
    end_incomplete(why, NULL, 1);
    T.busy--;
  }
  pc_unlock(locked);
}

/* a signal's provisional mark is taken back before anything else is written */
static void withdraw_provisional_mark(void)
{
  if (T.provisional_at < 0)
    return;
  if (ftruncate(T.fd, T.provisional_at) == 0)
    lseek(T.fd, T.provisional_at, SEEK_SET);
  T.file_good = T.file_end = T.provisional_at;
  T.provisional_at = -1;
}

/* Appends bytes to the file; file_good follows the last newline written,
 * also when a write error cuts the bytes short. */
static void write_out(const char *data, size_t len)
{
  withdraw_provisional_mark();
  size_t done = 0;
  int rc = write_some(T.fd, data, len, &done);
  int err = errno;
  T.file_end += (off_t)done;
  for (size_t i = done; i > 0; --i)
    if (data[i - 1] == '\n') {
      T.file_good = T.file_end - (off_t)(done - i);
      break;
    }
  if (rc != 0)
    write_failed(T.path, err);
}

/* Writes the complete lines of the buffer and keeps a line still being
 * built; with `all`, that line's start goes out too (a line longer than the
 * buffer: the file is cut back to its last newline if the rank dies). */
static void flush_buffer(int all)
{
  if (T.fd < 0 || T.used == 0)
    return;
  T.busy++;
  size_t out = T.used;
  if (!all)
    while (out > 0 && T.buf[out - 1] != '\n')
      --out;
  if (out > 0)
    write_out(T.buf, out);
  if (T.active) {
    memmove(T.buf, T.buf + out, T.used - out);
    T.used -= out;
  }
  T.busy--;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
  if (!T.active)
    return;
  T.busy++;
  if (T.used > BUFFER_BYTES - 65536) {
    flush_buffer(0);
    if (T.used > BUFFER_BYTES / 2) /* one line fills half the buffer */
      flush_buffer(1);
  }
  if (T.active) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(T.buf + T.used, BUFFER_BYTES - T.used, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < BUFFER_BYTES - T.used) {
      T.used += (size_t)n;
    } else { /* a piece longer than the room left: written directly after the buffer */
      char *piece = NULL;
      va_start(ap, fmt);
      n = vasprintf(&piece, fmt, ap);
      va_end(ap);
      flush_buffer(1);
      if (n < 0)
        pc_note_failure("out of memory for a trace line");
      else if (T.active)
        write_out(piece, (size_t)n);
      free(piece);
    }
  }
  T.busy--;
}

static const char *signal_name(int sig)
{
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT"
         : sig == SIGBUS ? "SIGBUS" : "signal";
}

void pc_signal_fatal(int sig)
{
  if (!T.active || T.finalized)
    return;
  /* when the signal interrupted a change of the buffer, only the file's whole lines are kept */
  end_incomplete(signal_name(sig), NULL, T.busy == 0);
}

void pc_signal_begin(int sig)
{
  if (!T.active || T.finalized || T.busy || T.provisional_at >= 0 || T.file_end != T.file_good)
    return;
  T.busy++;
  size_t whole = T.used;
  while (whole > 0 && T.buf[whole - 1] != '\n')
    --whole;
  if (whole > 0 && write_all(T.fd, T.buf, whole) == 0) {
    T.file_good = T.file_end += (off_t)whole;
    memmove(T.buf, T.buf + whole, T.used - whole);
    T.used -= whole;
  }
  T.provisional_at = T.file_good;
  write_text(T.fd, "# perfcast: incomplete (");
  write_text(T.fd, signal_name(sig));
  write_text(T.fd, ", in the program's handler)\n");
  T.busy--;
}

void pc_signal_end(void)
{
  if (T.busy || T.finalized)
    return;
  T.busy++;
  withdraw_provisional_mark();
  T.busy--;
}

static void on_exit_handler(void)
{
  if (T.provisional_at >= 0) { /* exit() from the program's signal handler: the mark stands */
    T.provisional_at = -1;
    T.finalized = 1;
    T.active = 0;
    return;
  }
  T.busy++;
  end_incomplete("exit before MPI_Finalize", NULL, 1);
  T.busy--;
}

/* ---- computation between calls */

static long perf_open(void)
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

static uint64_t read_counter(void)
{
  uint64_t v = 0;
  if (T.counter_fd >= 0 && read(T.counter_fd, &v, sizeof v) != sizeof v)
    v = 0;
  return v;
}

/* flop/s of this core on independent multiply-add chains, best of three 2 ms
 * rounds; with a counter open, also its instructions per second on them */
static void measure_rates(void)
{
  const char *forced = getenv("PERFCAST_FLOP_RATE");
  /* eight independent multiply-add chains, as compiled scalar loops overlap them */
  volatile double sink = 0;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, best = 0, best_ips = 0;
  for (int round = 0; round < 3; ++round) {
    uint64_t c0 = read_counter();
    double t0 = now();
    long n = 0;
    while (now() - t0 < 0.002) {
      for (int i = 0; i < 20000; ++i)
        for (int k = 0; k < 8; ++k)
          x[k] = x[k] * 0.999999 + 1e-7;
      n += 20000 * 8;
    }
    double elapsed = now() - t0;
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
    int locked = pc_lock();
    double elapsed = t - T.last_leave;
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
  T.last_leave = t;
  if (T.counter_fd >= 0)
    T.last_counter = read_counter();
  if (strncmp(name, "MPI_Init", 8) != 0) /* start-up is not the application's MPI time */
    T.mpi_s += t - t0;
  if (T.active)
    count_call(name, t - t0);
  pc_unlock(locked);
}

/* ---- communicators, requests, sizes */

static int comm_handle(MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD)
    return 0;
  /* newest first: MPI reuses the handles of freed communicators */
  for (int i = T.ncomms - 1; i >= 1; --i)
    if (T.comms[i] == comm)
      return i;
  return -1; /* created by a call the tracer does not follow */
}

/* " comm=N" for a sub-communicator, "" for the world; callers hold the lock */
static const char *comm_suffix(MPI_Comm comm)
{
  static char text[32];
  int h = comm_handle(comm);
  if (h <= 0)
    return "";
  snprintf(text, sizeof text, " comm=%d", h);
  return text;
}

static long long type_bytes(int count, MPI_Datatype type)
{
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL)
    return 0;
  PMPI_Type_size(type, &size);
  return (long long)count * size;
}

static void remember(MPI_Request r, int kind, int peer, int tag, int comm, long long bytes)
{
  if (pc_requests_remember((struct pc_pending){r, kind, peer, tag, comm, bytes}) != 0)
    pc_note_failure("out of memory for the table of outstanding requests");
}

static struct pc_pending forget(MPI_Request r) { return pc_requests_forget(r); }

static int my_rank_in(MPI_Comm comm)
{
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

/* a received message: its size from the status, else the posted size */
static void count_received(MPI_Status *status, long long posted)
{
  long long n = posted;
  if (status != MPI_STATUS_IGNORE && status != NULL) {
    int got = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &got) == MPI_SUCCESS && got != MPI_UNDEFINED)
      n = got;
  }
  T.msgs_recv++;
  if (n > 0)
    T.bytes_recv += (unsigned long long)n;
}

static void emit_wait_line(const char *action, struct pc_pending p)
{
  if (p.kind == PC_REQ_FREE)
    return;
  char suffix[32] = "";
  if (p.comm > 0)
    snprintf(suffix, sizeof suffix, " comm=%d", p.comm);
  int me = p.comm > 0 ? my_rank_in(T.comms[p.comm]) : T.rank;
  if (p.kind == PC_REQ_SEND)
    emit("%d %s %d %d %d%s\n", T.rank, action, me, p.peer, p.tag, suffix);
  else if (p.kind == PC_REQ_RECV)
    emit("%d %s %d %d %d%s\n", T.rank, action, p.peer, me, p.tag, suffix);
  else
    emit("%d %s %d %d -2%s\n", T.rank, action, me, me, suffix);
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

static void start_tracing(int thread_level)
{
  const char *dir = getenv("PERFCAST_TRACE_DIR");
  if (!dir || !*dir || T.active || T.finalized)
    return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &T.size);
  if (snprintf(T.dir, sizeof T.dir, "%s", dir) >= (int)sizeof T.dir ||
      snprintf(T.path, sizeof T.path, "%s/rank-%d.txt", dir, T.rank) >= (int)sizeof T.path) {
    fprintf(stderr, "perfcast tracer: rank %d: PERFCAST_TRACE_DIR is longer than %zu bytes; not tracing\n", T.rank,
            sizeof T.path - 16);
    return;
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
    return;
  }
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
  T.last_counter = read_counter();
  T.active = 1;
  T.start = now();
  T.last_leave = T.start;
  /* instructions are counted for every thread started after MPI_Init; time only for the calling one */
  emit("# perfcast: header version=2 rank=%d size=%d host=%s compute_unit=%s flops_per_s=%.6g "
       "instructions_per_s=%.6g compute_threads=%s thread_level=%s\n",
       T.rank, T.size, T.host, T.counter_fd >= 0 ? "instructions" : "flops", T.flops_per_s, T.instructions_per_s,
       T.counter_fd >= 0 ? "all" : "calling", thread_level_name(thread_level));
  emit("%d init\n", T.rank);
  pc_signals_install();
  atexit(on_exit_handler);
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
  fprintf(f, "  \"flops_per_s\": %.9g,\n  \"instructions_per_s\": %.9g,\n", T.flops_per_s, T.instructions_per_s);
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

/* a source as the trace writes it: -1 for any source */
static int trace_source(int source) { return source == MPI_ANY_SOURCE ? -1 : source; }

/* a send of any mode; request is NULL for the blocking ones */
static void record_send(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
  if (!T.active || depth > 1 || dest == MPI_PROC_NULL)
    return;
  long long bytes = type_bytes(count, type);
  T.msgs_sent++;
  T.bytes_sent += (unsigned long long)bytes;
  emit("%d %s %d %d %lld 6%s\n", T.rank, kind, dest, tag, bytes, comm_suffix(comm));
  if (request)
    remember(*request, PC_REQ_SEND, dest, tag, comm_handle(comm) > 0 ? comm_handle(comm) : 0, bytes);
}

void rec_send(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  record_send(kind, count, type, dest, tag, comm, NULL);
}

void rec_isend(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
  record_send(kind, count, type, dest, tag, comm, request);
}

void rec_recv(int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!T.active || depth > 1 || source == MPI_PROC_NULL)
    return;
  count_received(status, type_bytes(count, type));
  int any = source == MPI_ANY_SOURCE;
  if (any && status != MPI_STATUS_IGNORE && status != NULL)
    emit("%d recv -1 %d %lld 6 src=%d%s\n", T.rank, tag == MPI_ANY_TAG ? -1 : tag, type_bytes(count, type),
         status->MPI_SOURCE, comm_suffix(comm));
  else
    emit("%d recv %d %d %lld 6%s\n", T.rank, trace_source(source), tag == MPI_ANY_TAG ? -1 : tag,
         type_bytes(count, type), comm_suffix(comm));
}

void rec_irecv(int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
  if (!T.active || depth > 1 || source == MPI_PROC_NULL)
    return;
  int peer = trace_source(source);
  emit("%d irecv %d %d %lld 6%s\n", T.rank, peer, tag == MPI_ANY_TAG ? -1 : tag, type_bytes(count, type),
       comm_suffix(comm));
  remember(*request, PC_REQ_RECV, peer, tag == MPI_ANY_TAG ? -1 : tag, comm_handle(comm) > 0 ? comm_handle(comm) : 0,
           type_bytes(count, type));
}

void rec_sendrecv(int sendcount, MPI_Datatype sendtype, int dest, int sendtag, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
  if (!T.active || depth > 1)
    return;
  (void)sendtag;
  (void)recvtag;
  long long sb = type_bytes(sendcount, sendtype);
  T.msgs_sent++;
  T.bytes_sent += (unsigned long long)sb;
  count_received(status, type_bytes(recvcount, recvtype));
  emit("%d sendRecv %lld %d %lld %d 6 6%s\n", T.rank, sb, dest, type_bytes(recvcount, recvtype),
       trace_source(source), comm_suffix(comm));
}

static void completed(struct pc_pending p, MPI_Status *status)
{
  if (p.kind == PC_REQ_RECV)
    count_received(status, p.bytes);
}

void rec_wait(MPI_Request saved, MPI_Status *status)
{
  if (!T.active || depth > 1)
    return;
  struct pc_pending p = forget(saved);
  emit_wait_line("wait", p);
  completed(p, status);
}

/* SimGrid's waitall waits for every pending request of the rank and its
 * waitany for the first of them; the program may have waited for only some
 * (a wildcard receive left posted, say). Each request is therefore written as
 * its own wait, in the order the program named them, which any replayer
 * reads with the program's meaning. */
void rec_waitall(int count, MPI_Request *saved, MPI_Status *statuses)
{
  if (!T.active || depth > 1 || !saved)
    return;
  for (int i = 0; i < count; ++i) {
    struct pc_pending p = forget(saved[i]);
    if (p.kind == PC_REQ_FREE)
      continue;
    emit_wait_line("wait", p);
    completed(p, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
  }
}

void rec_waitany(int count, MPI_Request *saved, int *index, MPI_Status *status)
{
  if (!T.active || depth > 1 || !saved || *index == MPI_UNDEFINED || *index < 0 || *index >= count)
    return;
  struct pc_pending p = forget(saved[*index]);
  if (p.kind != PC_REQ_FREE) {
    emit_wait_line("wait", p);
    completed(p, status);
  }
}

void rec_waitsome(int count, MPI_Request *saved, int *outcount, int *indices, MPI_Status *statuses)
{
  if (!T.active || depth > 1 || !saved || *outcount == MPI_UNDEFINED || *outcount <= 0)
    return;
  /* the requests that completed, each waited for */
  for (int k = 0; k < *outcount; ++k) {
    if (indices[k] < 0 || indices[k] >= count)
      continue;
    struct pc_pending p = forget(saved[indices[k]]);
    if (p.kind != PC_REQ_FREE) {
      emit_wait_line("wait", p);
      completed(p, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k]);
    }
  }
}

void rec_test(MPI_Request saved, int *flag, MPI_Status *status)
{
  if (!T.active || depth > 1 || !*flag)
    return;
  /* a test that found the request complete ends it, as a wait would */
  struct pc_pending p = forget(saved);
  emit_wait_line("test", p);
  completed(p, status);
}

void rec_testall(int count, MPI_Request *saved, int *flag, MPI_Status *statuses)
{
  if (*flag)
    rec_waitall(count, saved, statuses);
}

void rec_testany(int count, MPI_Request *saved, int *index, int *flag, MPI_Status *status)
{
  if (*flag)
    rec_waitany(count, saved, index, status);
}

/* per-rank byte counts of a v-collective; zeros where the counts are not significant (non-root) */
static void emit_counts(MPI_Comm comm, const int *counts, MPI_Datatype type, int significant)
{
  int n = 0;
  PMPI_Comm_size(comm, &n);
  for (int i = 0; i < n; ++i)
    emit(" %lld", (counts && significant) ? type_bytes(counts[i], type) : 0);
}

void rec_cancel(MPI_Request request)
{
  if (!T.active || depth > 1)
    return;
  struct pc_pending p = forget(request);
  emit_wait_line("cancel", p);
}

/* a request the program lets go of without waiting: no wait is written for it */
void rec_request_free(MPI_Request request)
{
  if (!T.active || depth > 1)
    return;
  (void)forget(request);
}

void rec_coll(const char *name, MPI_Comm comm, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
              int root, const int *sendcounts, const int *recvcounts, MPI_Request *request)
{
  if (!T.active || depth > 1)
    return;
  int csize = 0;
  PMPI_Comm_size(comm, &csize);
  if (csize == 1 && !request) /* MPI_COMM_SELF and the like: nothing moves */
    return;
  if (comm_handle(comm) < 0) {
    emit("# perfcast: %s on a communicator the tracer does not follow was not recorded\n", name);
    return;
  }
  T.collectives++;
  const char *base = name[0] == 'i' && request ? name + 1 : name;
  int me = my_rank_in(comm);
  int is_root = root < 0 || root == me;
  long long sb = type_bytes(scount, stype), rb = type_bytes(rcount, rtype);
  emit("%d %s", T.rank, name);
  if (!strcmp(base, "barrier")) {
  } else if (!strcmp(base, "bcast")) {
    emit(" %lld %d 6", sb, root);
  } else if (!strcmp(base, "reduce")) {
    emit(" %lld 0 %d 6", sb, root);
  } else if (!strcmp(base, "allreduce") || !strcmp(base, "scan") || !strcmp(base, "exscan")) {
    emit(" %lld 0 6", sb);
  } else if (!strcmp(base, "alltoall") || !strcmp(base, "allgather")) {
    emit(" %lld %lld 6 6", sb, rb);
  } else if (!strcmp(base, "gather") || !strcmp(base, "scatter")) {
    emit(" %lld %lld %d 6 6", sb, rb, root);
  } else if (!strcmp(base, "alltoallv")) {
    int n = 0;
    PMPI_Comm_size(comm, &n);
    long long ssum = 0, rsum = 0;
    for (int i = 0; i < n; ++i) {
      ssum += type_bytes(sendcounts[i], stype);
      rsum += type_bytes(recvcounts[i], rtype);
    }
    emit(" %lld", ssum);
    emit_counts(comm, sendcounts, stype, 1);
    emit(" %lld", rsum);
    emit_counts(comm, recvcounts, rtype, 1);
    emit(" 6 6");
  } else if (!strcmp(base, "allgatherv")) {
    emit(" %lld", sb);
    emit_counts(comm, recvcounts, rtype, 1);
    emit(" 6 6");
  } else if (!strcmp(base, "gatherv")) {
    emit(" %lld", sb);
    emit_counts(comm, recvcounts, rtype, is_root);
    emit(" %d 6 6", root);
  } else if (!strcmp(base, "scatterv")) {
    emit_counts(comm, sendcounts, stype, is_root);
    emit(" %lld %d 6 6", rb, root);
  } else if (!strcmp(base, "reducescatter")) {
    emit_counts(comm, recvcounts, rtype, 1);
    emit(" 0 6");
  }
  emit("%s\n", comm_suffix(comm));
  if (request)
    remember(*request, PC_REQ_COLL, me, -2, comm_handle(comm), 0);
}

static void new_comm(const char *what, MPI_Comm parent, int color, int key, MPI_Comm *newcomm)
{
  if (!T.active || depth > 1)
    return;
  if (T.ncomms == T.comms_capacity) {
    int bigger = 2 * T.comms_capacity;
    MPI_Comm *grown = realloc(T.comms, sizeof *grown * (size_t)bigger);
    if (!grown) {
      pc_note_failure("out of memory for the table of communicators");
      return;
    }
    T.comms = grown;
    T.comms_capacity = bigger;
  }
  int handle = T.ncomms++;
  T.comms[handle] = *newcomm; /* MPI_COMM_NULL for ranks outside (color MPI_UNDEFINED) */
  if (!strcmp(what, "comm_split"))
    emit("%d comm_split %d %d %d%s\n", T.rank, handle, color == MPI_UNDEFINED ? -1 : color, key, comm_suffix(parent));
  else
    emit("%d comm_dup %d%s\n", T.rank, handle, comm_suffix(parent));
}

void rec_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
  new_comm("comm_split", comm, color, key, newcomm);
}

void rec_comm_dup(MPI_Comm comm, MPI_Comm *newcomm) { new_comm("comm_dup", comm, 0, 0, newcomm); }

void rec_comm_free(MPI_Comm comm)
{
  if (!T.active)
    return;
  int h = comm_handle(comm);
  if (h > 0)
    T.comms[h] = MPI_COMM_NULL; /* the handle value may come back for another communicator */
}

/* Any other constructor over a parent communicator (create, split_type,
 * cart_create, cart_sub) is written as the comm_split that makes the same
 * groups: color = the world rank of the new communicator's rank 0, key = the
 * caller's rank in it. */
void rec_comm_derived(MPI_Comm parent, MPI_Comm *newcomm)
{
  if (!T.active || depth > 1)
    return;
  int color = MPI_UNDEFINED, key = 0;
  if (*newcomm != MPI_COMM_NULL) {
    MPI_Group group, world;
    int zero = 0, first = 0;
    PMPI_Comm_group(*newcomm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &zero, world, &first);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    color = first;
    PMPI_Comm_rank(*newcomm, &key);
  }
  new_comm("comm_split", parent, color, key, newcomm);
}

/* perfcast's PMPI tracer: the recorders behind the generated wrappers.
 *
 * Each rank writes $PERFCAST_TRACE_DIR/rank-R.txt, a time-independent trace in
 * SimGrid's syntax (sizes in bytes with datatype 6) plus perfcast's documented
 * extensions (comm=N, src=K, ssend, waitany, non-blocking collectives), and at
 * MPI_Finalize rank-R.profile.json (mpiP-like counters). Lines are buffered per
 * rank and written whole; a rank that ends without MPI_Finalize (MPI_Abort,
 * SIGINT, SIGTERM, a crash signal, exit) flushes what it has and appends
 * "# perfcast: incomplete (...)". Computation between MPI calls is recorded in
 * flops: retired instructions when perf_event_open allows it, otherwise the
 * elapsed time times a flop rate measured at MPI_Init (the header says which).
 */
#define _GNU_SOURCE
#include "tracer.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_BYTES (1 << 20)
#define MAX_CALLS 96
#define MAX_COMMS 256
#define REQUEST_SLOTS 4096

enum { REQ_FREE = 0, REQ_SEND, REQ_RECV, REQ_COLL };

struct pending {
  MPI_Request handle;
  int kind;
  int peer; /* communicator-local; -1 for any source */
  int tag;
  int comm; /* handle, 0 = world */
  long long bytes; /* posted size */
};

struct call_stats {
  const char *name;
  unsigned long long calls;
  double seconds;
};

static struct {
  int active;    /* tracing is on */
  int finalized; /* everything written */
  int depth;     /* nested MPI calls (Fortran -> C) record once */
  int rank, size;
  int fd;
  char path[4096];
  char dir[4096];
  char *buf;
  size_t used;
  double last_leave;
  double start, end;
  double compute_s, mpi_s;
  double flop_rate;
  double pending_flops, pending_s; /* computation too short to record yet */
  int counter_fd; /* perf_event fd for instructions, or -1 */
  uint64_t last_counter;
  unsigned long long msgs_sent, bytes_sent, msgs_recv, bytes_recv, collectives;
  struct call_stats calls[MAX_CALLS];
  int ncalls;
  MPI_Comm comms[MAX_COMMS];
  int ncomms;
  struct pending requests[REQUEST_SLOTS];
  MPI_Request *scratch;
  int scratch_size;
  char host[256];
} T = {.fd = -1, .counter_fd = -1};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- output: whole lines only */

static void write_all(int fd, const char *data, size_t len)
{
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    data += n;
    len -= (size_t)n;
  }
}

/* Writes the complete lines of the buffer and keeps a line still being
 * built; with `final`, a partial line is dropped so no file ends mid-line. */
static void write_lines(int final)
{
  if (T.fd < 0 || T.used == 0)
    return;
  size_t whole = T.used;
  while (whole > 0 && T.buf[whole - 1] != '\n')
    --whole;
  if (whole > 0)
    write_all(T.fd, T.buf, whole);
  size_t rest = final ? 0 : T.used - whole;
  if (rest > 0)
    memmove(T.buf, T.buf + whole, rest);
  T.used = rest;
}

static void flush_buffer(void) { write_lines(0); }

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
  if (!T.active)
    return;
  if (T.used > BUFFER_BYTES - 65536)
    flush_buffer();
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(T.buf + T.used, BUFFER_BYTES - T.used, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= BUFFER_BYTES - T.used) {
    /* a piece longer than the buffer (huge v-collective): write it directly */
    flush_buffer();
    if (T.used > 0) { /* the start of its line */
      write_all(T.fd, T.buf, T.used);
      T.used = 0;
    }
    char *line = NULL;
    va_start(ap, fmt);
    n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n > 0)
      write_all(T.fd, line, (size_t)n);
    free(line);
    return;
  }
  T.used += (size_t)n;
}

/* Ends the trace of a rank that did not reach MPI_Finalize. Async-signal-safe
 * apart from the formatting of a fixed message. */
static void mark_incomplete(const char *why)
{
  if (!T.active || T.finalized)
    return;
  write_lines(1);
  const char *head = "# perfcast: incomplete (";
  write_all(T.fd, head, strlen(head));
  write_all(T.fd, why, strlen(why));
  write_all(T.fd, ")\n", 2);
  T.finalized = 1;
  T.active = 0;
}

static void on_signal(int sig)
{
  const char *why = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGSEGV ? "SIGSEGV"
                    : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS" : "signal";
  mark_incomplete(why);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void on_exit_handler(void) { mark_incomplete("exit before MPI_Finalize"); }

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
  return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static uint64_t read_counter(void)
{
  uint64_t v = 0;
  if (T.counter_fd >= 0 && read(T.counter_fd, &v, sizeof v) != sizeof v)
    v = 0;
  return v;
}

/* flop/s of this core on independent multiply-add chains, best of three 2 ms rounds */
static double measure_flop_rate(void)
{
  const char *forced = getenv("PERFCAST_FLOP_RATE");
  if (forced && atof(forced) > 0)
    return atof(forced);
  /* eight independent multiply-add chains, as compiled scalar loops overlap them */
  volatile double sink = 0;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, best = 0;
  for (int round = 0; round < 3; ++round) {
    double t0 = now();
    long n = 0;
    while (now() - t0 < 0.002) {
      for (int i = 0; i < 20000; ++i)
        for (int k = 0; k < 8; ++k)
          x[k] = x[k] * 0.999999 + 1e-7;
      n += 20000 * 8;
    }
    double rate = 2.0 * n / (now() - t0);
    if (rate > best)
      best = rate;
  }
  for (int k = 0; k < 8; ++k)
    sink += x[k];
  (void)sink;
  return best;
}

double pc_enter(void)
{
  double t = now();
  if (T.active && T.depth == 0) {
    double elapsed = t - T.last_leave;
    T.compute_s += elapsed;
    double flops;
    if (T.counter_fd >= 0) {
      uint64_t c = read_counter();
      flops = (double)(c - T.last_counter);
      T.last_counter = c;
    } else {
      flops = elapsed * T.flop_rate;
    }
    /* gaps under a microsecond between calls are carried over, not written one by one */
    T.pending_flops += flops;
    T.pending_s += elapsed;
    if (T.pending_s >= 1e-6 && T.pending_flops >= 1) {
      emit("%d compute %.6g\n", T.rank, T.pending_flops);
      T.pending_flops = T.pending_s = 0;
    }
  }
  T.depth++;
  return t;
}

void pc_leave(const char *name, double t0)
{
  T.depth--;
  double t = now();
  if (T.depth > 0)
    return;
  T.last_leave = t;
  if (T.counter_fd >= 0)
    T.last_counter = read_counter();
  if (strncmp(name, "MPI_Init", 8) != 0) /* start-up is not the application's MPI time */
    T.mpi_s += t - t0;
  int i = 0;
  while (i < T.ncalls && T.calls[i].name != name && strcmp(T.calls[i].name, name) != 0)
    ++i;
  if (i == T.ncalls && T.ncalls < MAX_CALLS)
    T.calls[T.ncalls++].name = name;
  if (i < MAX_CALLS) {
    T.calls[i].calls++;
    T.calls[i].seconds += t - t0;
  }
}

MPI_Request *pc_save_requests(int count, const MPI_Request *requests)
{
  if (count > T.scratch_size) {
    free(T.scratch);
    T.scratch_size = count * 2;
    T.scratch = malloc(sizeof(MPI_Request) * (size_t)T.scratch_size);
  }
  if (count > 0 && requests)
    memcpy(T.scratch, requests, sizeof(MPI_Request) * (size_t)count);
  return T.scratch;
}

static MPI_Request *f_requests;
static int f_requests_size;
static MPI_Status *f_statuses;
static int f_statuses_size;

MPI_Request *pc_requests_f2c(int count, const MPI_Fint *requests)
{
  if (count > f_requests_size) {
    free(f_requests);
    f_requests_size = count * 2;
    f_requests = malloc(sizeof(MPI_Request) * (size_t)f_requests_size);
  }
  for (int i = 0; i < count; ++i)
    f_requests[i] = MPI_Request_f2c(requests[i]);
  return f_requests;
}

void pc_requests_c2f(int count, const MPI_Request *c_requests, MPI_Fint *requests)
{
  for (int i = 0; i < count; ++i)
    requests[i] = MPI_Request_c2f(c_requests[i]);
}

MPI_Status *pc_statuses(int count)
{
  if (count > f_statuses_size) {
    free(f_statuses);
    f_statuses_size = count * 2;
    f_statuses = malloc(sizeof(MPI_Status) * (size_t)f_statuses_size);
  }
  return f_statuses;
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

/* " comm=N" for a sub-communicator, "" for the world */
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

static size_t request_slot(MPI_Request r)
{
  uintptr_t h = (uintptr_t)r;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) % REQUEST_SLOTS;
}

static void remember(MPI_Request r, int kind, int peer, int tag, int comm, long long bytes)
{
  if (r == MPI_REQUEST_NULL)
    return;
  size_t i = request_slot(r);
  for (int probes = 0; probes < REQUEST_SLOTS; ++probes, i = (i + 1) % REQUEST_SLOTS)
    if (T.requests[i].kind == REQ_FREE || T.requests[i].handle == r) {
      T.requests[i] = (struct pending){r, kind, peer, tag, comm, bytes};
      return;
    }
}

/* takes the request out of the table; kind REQ_FREE when unknown */
static struct pending forget(MPI_Request r)
{
  struct pending none = {MPI_REQUEST_NULL, REQ_FREE, 0, 0, 0, 0};
  if (r == MPI_REQUEST_NULL)
    return none;
  size_t i = request_slot(r);
  for (int probes = 0; probes < REQUEST_SLOTS; ++probes, i = (i + 1) % REQUEST_SLOTS) {
    if (T.requests[i].kind == REQ_FREE)
      return none;
    if (T.requests[i].handle == r) {
      struct pending p = T.requests[i];
      /* backward-shift deletion keeps the probe chains intact */
      size_t hole = i, j = (i + 1) % REQUEST_SLOTS;
      while (T.requests[j].kind != REQ_FREE) {
        size_t home = request_slot(T.requests[j].handle);
        if ((j > hole && (home <= hole || home > j)) || (j < hole && (home <= hole && home > j))) {
          T.requests[hole] = T.requests[j];
          hole = j;
        }
        j = (j + 1) % REQUEST_SLOTS;
      }
      T.requests[hole].kind = REQ_FREE;
      return p;
    }
  }
  return none;
}

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

static void emit_wait_line(const char *action, struct pending p)
{
  if (p.kind == REQ_FREE)
    return;
  char suffix[32] = "";
  if (p.comm > 0)
    snprintf(suffix, sizeof suffix, " comm=%d", p.comm);
  int me = p.comm > 0 ? my_rank_in(T.comms[p.comm]) : T.rank;
  if (p.kind == REQ_SEND)
    emit("%d %s %d %d %d%s\n", T.rank, action, me, p.peer, p.tag, suffix);
  else if (p.kind == REQ_RECV)
    emit("%d %s %d %d %d%s\n", T.rank, action, p.peer, me, p.tag, suffix);
  else
    emit("%d %s %d %d -2%s\n", T.rank, action, me, me, suffix);
}

/* ---- recorders */

void rec_none(void) {}

void rec_init(void)
{
  const char *dir = getenv("PERFCAST_TRACE_DIR");
  if (!dir || !*dir || T.active || T.finalized)
    return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &T.size);
  snprintf(T.dir, sizeof T.dir, "%s", dir);
  snprintf(T.path, sizeof T.path, "%s/rank-%d.txt", dir, T.rank);
  T.fd = open(T.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  T.buf = malloc(BUFFER_BYTES);
  if (T.fd < 0 || !T.buf) {
    fprintf(stderr, "perfcast tracer: rank %d: cannot write %s: %s; not tracing\n", T.rank, T.path, strerror(errno));
    return;
  }
  gethostname(T.host, sizeof T.host - 1);
  T.comms[0] = MPI_COMM_WORLD;
  T.ncomms = 1;
  T.counter_fd = (int)perf_open();
  if (T.counter_fd >= 0) {
    ioctl(T.counter_fd, PERF_EVENT_IOC_ENABLE, 0);
    T.last_counter = read_counter();
  } else {
    T.flop_rate = measure_flop_rate();
  }
  T.active = 1;
  T.start = now();
  T.last_leave = T.start;
  if (T.counter_fd >= 0)
    emit("# perfcast-trace version=1 rank=%d size=%d host=%s compute=instructions (perf_event_open)\n", T.rank,
         T.size, T.host);
  else
    emit("# perfcast-trace version=1 rank=%d size=%d host=%s compute=time*flop_rate flop_rate=%.6g "
         "(no hardware counters: perf_event_open failed)\n",
         T.rank, T.size, T.host, T.flop_rate);
  emit("%d init\n", T.rank);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  int signals[] = {SIGINT, SIGTERM, SIGSEGV, SIGABRT, SIGBUS};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
    sigaction(signals[i], &sa, NULL);
  atexit(on_exit_handler);
}

static void write_profile(void)
{
  char path[4200];
  snprintf(path, sizeof path, "%s/rank-%d.profile.json.tmp", T.dir, T.rank);
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "{\n  \"format\": \"perfcast-rank-profile\",\n  \"version\": 1,\n  \"rank\": %d,\n  \"size\": %d,\n", T.rank,
          T.size);
  fprintf(f, "  \"host\": \"%s\",\n  \"wall_s\": %.9g,\n  \"compute_s\": %.9g,\n  \"mpi_s\": %.9g,\n", T.host,
          T.end - T.start, T.compute_s, T.mpi_s);
  fprintf(f, "  \"compute_unit\": \"%s\",\n", T.counter_fd >= 0 ? "instructions" : "time*flop_rate");
  fprintf(f, "  \"flop_rate\": %.9g,\n", T.flop_rate);
  fprintf(f, "  \"messages_sent\": %llu,\n  \"bytes_sent\": %llu,\n  \"messages_received\": %llu,\n"
             "  \"bytes_received\": %llu,\n  \"collectives\": %llu,\n  \"calls\": {",
          T.msgs_sent, T.bytes_sent, T.msgs_recv, T.bytes_recv, T.collectives);
  for (int i = 0; i < T.ncalls; ++i)
    fprintf(f, "%s\n    \"%s\": {\"calls\": %llu, \"seconds\": %.9g}", i ? "," : "", T.calls[i].name,
            T.calls[i].calls, T.calls[i].seconds);
  fprintf(f, "\n  }\n}\n");
  if (fclose(f) == 0) {
    char final_path[4200];
    snprintf(final_path, sizeof final_path, "%s/rank-%d.profile.json", T.dir, T.rank);
    rename(path, final_path);
  }
}

void rec_finalize(void)
{
  if (!T.active)
    return;
  T.end = now();
  if (T.pending_flops >= 1)
    emit("%d compute %.6g\n", T.rank, T.pending_flops);
  emit("%d finalize\n", T.rank);
  emit("# perfcast: complete\n");
  flush_buffer();
  T.active = 0;
  T.finalized = 1;
  close(T.fd);
  write_profile();
}

void rec_abort(void) { mark_incomplete("MPI_Abort"); }

/* a source as the trace writes it: -1 for any source */
static int trace_source(int source) { return source == MPI_ANY_SOURCE ? -1 : source; }

/* a send of any mode; request is NULL for the blocking ones */
static void record_send(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
  if (!T.active || T.depth > 1 || dest == MPI_PROC_NULL)
    return;
  long long bytes = type_bytes(count, type);
  T.msgs_sent++;
  T.bytes_sent += (unsigned long long)bytes;
  emit("%d %s %d %d %lld 6%s\n", T.rank, kind, dest, tag, bytes, comm_suffix(comm));
  if (request)
    remember(*request, REQ_SEND, dest, tag, comm_handle(comm) > 0 ? comm_handle(comm) : 0, bytes);
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
  if (!T.active || T.depth > 1 || source == MPI_PROC_NULL)
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
  if (!T.active || T.depth > 1 || source == MPI_PROC_NULL)
    return;
  int peer = trace_source(source);
  emit("%d irecv %d %d %lld 6%s\n", T.rank, peer, tag == MPI_ANY_TAG ? -1 : tag, type_bytes(count, type),
       comm_suffix(comm));
  remember(*request, REQ_RECV, peer, tag == MPI_ANY_TAG ? -1 : tag, comm_handle(comm) > 0 ? comm_handle(comm) : 0,
           type_bytes(count, type));
}

void rec_sendrecv(int sendcount, MPI_Datatype sendtype, int dest, int sendtag, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
  if (!T.active || T.depth > 1)
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

static void completed(struct pending p, MPI_Status *status)
{
  if (p.kind == REQ_RECV)
    count_received(status, p.bytes);
}

void rec_wait(MPI_Request saved, MPI_Status *status)
{
  if (!T.active || T.depth > 1)
    return;
  struct pending p = forget(saved);
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
  if (!T.active || T.depth > 1)
    return;
  for (int i = 0; i < count; ++i) {
    struct pending p = forget(saved[i]);
    if (p.kind == REQ_FREE)
      continue;
    emit_wait_line("wait", p);
    completed(p, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
  }
}

void rec_waitany(int count, MPI_Request *saved, int *index, MPI_Status *status)
{
  if (!T.active || T.depth > 1 || *index == MPI_UNDEFINED || *index < 0 || *index >= count)
    return;
  struct pending p = forget(saved[*index]);
  if (p.kind != REQ_FREE) {
    emit_wait_line("wait", p);
    completed(p, status);
  }
}

void rec_waitsome(int count, MPI_Request *saved, int *outcount, int *indices, MPI_Status *statuses)
{
  if (!T.active || T.depth > 1 || *outcount == MPI_UNDEFINED || *outcount <= 0)
    return;
  /* the requests that completed, each waited for */
  for (int k = 0; k < *outcount; ++k) {
    if (indices[k] < 0 || indices[k] >= count)
      continue;
    struct pending p = forget(saved[indices[k]]);
    if (p.kind != REQ_FREE) {
      emit_wait_line("wait", p);
      completed(p, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k]);
    }
  }
}

void rec_test(MPI_Request saved, int *flag, MPI_Status *status)
{
  if (!T.active || T.depth > 1 || !*flag)
    return;
  /* a test that found the request complete ends it, as a wait would */
  struct pending p = forget(saved);
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
  if (!T.active || T.depth > 1)
    return;
  struct pending p = forget(request);
  emit_wait_line("cancel", p);
}

void rec_coll(const char *name, MPI_Comm comm, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
              int root, const int *sendcounts, const int *recvcounts, MPI_Request *request)
{
  if (!T.active || T.depth > 1)
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
    remember(*request, REQ_COLL, me, -2, comm_handle(comm), 0);
}

static void new_comm(const char *what, MPI_Comm parent, int color, int key, MPI_Comm *newcomm)
{
  if (!T.active || T.depth > 1)
    return;
  int handle = T.ncomms < MAX_COMMS ? T.ncomms++ : -1;
  if (handle < 0) {
    emit("# perfcast: more than %d communicators; %s not followed\n", MAX_COMMS, what);
    return;
  }
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
  if (!T.active || T.depth > 1)
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

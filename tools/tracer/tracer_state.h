/* perfcast's PMPI tracer: the state of a rank's trace and the internals the
 * tracer's source files share (tracer.c: start and end; tracer_output.c: the
 * buffered, whole-line output; tracer_compute.c: computation between calls;
 * tracer_p2p.c and tracer_comms.c: the recorders). Everything declared here
 * is hidden: a program linked with the tracer sees only the MPI symbols. */
#ifndef PERFCAST_TRACER_STATE_H
#define PERFCAST_TRACER_STATE_H

#include "tracer.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#define BUFFER_BYTES (1 << 20)
#define RESERVE_BYTES 8192 /* freed on a write error so the incomplete mark fits */

#pragma GCC visibility push(hidden)

struct call_stats {
  const char *name;
  unsigned long long calls;
  double seconds;
};

struct pc_state {
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
  double start, end;
  double compute_s, mpi_s;
  double flops_per_s, instructions_per_s;
  double rank_flops_per_s; /* this rank's own measurement; flops_per_s is its host's median */
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
  long long heap_base;        /* heap in use when MPI_Init returned (tracer_migrate.c) */
  char iteration_at[128];     /* PERFCAST_ITERATION_AT: a migration point after every call of it */
  const char *iteration_call; /* that call's name, as the wrappers pass it */
};
/* the rank's trace */
extern struct pc_state T;

/* nested MPI calls (Fortran -> C, MPI calling MPI) record once; per thread */
extern __thread int depth __attribute__((tls_model("initial-exec")));
/* MPI_THREAD_MULTIPLE: recording takes the lock */
extern int threaded;

/* monotonic seconds */
double now(void);
/* CPU seconds of the calling thread */
double thread_cpu_now(void);
/* the calling thread's CPU and monotonic clocks when its last MPI call returned (tracer_compute.c) */
extern __thread double cpu_at_leave __attribute__((tls_model("initial-exec")));
extern __thread double wall_at_leave __attribute__((tls_model("initial-exec")));

/* output (tracer_output.c) */
int write_all(int fd, const char *data, size_t len);
void end_incomplete(const char *why, const char *detail, int keep_buffer);
void write_failed(const char *file, int err);
void flush_buffer(int all);
void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void on_exit_handler(void);

/* computation (tracer_compute.c) */
long perf_open(void);
uint64_t read_counter(void);
void measure_rates(void);

/* migration points (tracer_migrate.c): the heap baseline and the call named by PERFCAST_ITERATION_AT */
void migrate_points_start(void);
/* after a traced call: a migration point when it is the named call */
void migrate_point_after(const char *name);
/* "RANK migrate HEAP_BYTES" */
void rec_migrate(void);

/* communicators, requests and sizes (tracer_comms.c) */
int comm_handle(MPI_Comm comm);
const char *comm_suffix(MPI_Comm comm);
long long type_bytes(int count, MPI_Datatype type);
void remember(MPI_Request r, int kind, int peer, int tag, int comm, long long bytes);
struct pc_pending forget(MPI_Request r);
int my_rank_in(MPI_Comm comm);

#pragma GCC visibility pop

#endif

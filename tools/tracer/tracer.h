/* perfcast's PMPI tracer: shared declarations of the generated wrappers
 * (wrappers.c, from mpi_calls.def) and the recorders (tracer*.c). Nothing
 * here throws or exits: a tracing problem is reported on stderr and tracing stops,
 * the application goes on. */
#ifndef PERFCAST_TRACER_H
#define PERFCAST_TRACER_H

#include <mpi.h>
#include <stddef.h>

/* Fortran's MPI_STATUS_SIZE: MPI-3 names it MPI_F_STATUS_SIZE; Open MPI 4
 * lays the C status out as that many Fortran integers (6). */
#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Time stamp at entry of an MPI call; records the computation since the last call. */
double pc_enter(void);
/* End of an MPI call: per-call statistics. */
void pc_leave(const char *name, double t0);
/* At MPI_THREAD_MULTIPLE the recorders run under one lock (recursive);
 * pc_lock returns whether it took it, for pc_unlock. */
int pc_lock(void);
void pc_unlock(int locked);
/* Stops tracing and marks the trace incomplete with the reason (a resource ran out). */
void pc_note_failure(const char *why);

/* The requests a rank has posted and not completed (tracer_requests.c). */
enum { PC_REQ_FREE = 0, PC_REQ_SEND, PC_REQ_RECV, PC_REQ_COLL };
struct pc_pending {
  MPI_Request handle;
  int kind;
  int peer; /* communicator-local; -1 for any source */
  int tag;
  int comm; /* handle, 0 = world */
  long long bytes; /* posted size */
};
/* Adds a request (a handle may be outstanding more than once); -1 when memory is exhausted. */
int pc_requests_remember(struct pc_pending p);
/* Takes the oldest request with this handle out of the table; kind PC_REQ_FREE when it is unknown. */
struct pc_pending pc_requests_forget(MPI_Request r);
/* How many requests the table holds. */
size_t pc_requests_outstanding(void);

/* A copy of a request array, taken before PMPI completes (and frees) the
 * requests; per thread; NULL for an empty array or when memory is exhausted. */
MPI_Request *pc_save_requests(int count, const MPI_Request *requests);
/* Fortran bindings: request arrays converted both ways, scratch statuses (per thread). */
MPI_Request *pc_requests_f2c(int count, const MPI_Fint *requests);
void pc_requests_c2f(int count, const MPI_Request *c_requests, MPI_Fint *requests);
MPI_Status *pc_statuses(int count);

/* Signals (tracer_signals.c): the tracer's handlers go in front of the
 * application's and MPI's, which they call after flushing; `sigaction` and
 * `signal` are wrapped so handlers installed later are chained the same way. */
void pc_signals_install(void);
/* Puts the application's handlers back (at MPI_Finalize). */
void pc_signals_restore(void);
/* Called by the handler (async-signal-safe): the process dies of `sig` next. */
void pc_signal_fatal(int sig);
/* Called by the handler around the application's own handler: the trace is
 * flushed and provisionally marked; the mark is taken back if it returns. */
void pc_signal_begin(int sig);
void pc_signal_end(void);

void rec_none(void);
void rec_init(void);
void rec_init_thread(int provided);
void rec_finalize(void);
void rec_abort(void);
void rec_send(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void rec_isend(const char *kind, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *request);
void rec_recv(int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status);
void rec_irecv(int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request);
void rec_sendrecv(int sendcount, MPI_Datatype sendtype, int dest, int sendtag, int recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, MPI_Status *status);
void rec_wait(MPI_Request saved, MPI_Status *status);
void rec_waitall(int count, MPI_Request *saved, MPI_Status *statuses);
void rec_waitany(int count, MPI_Request *saved, int *index, MPI_Status *status);
void rec_waitsome(int count, MPI_Request *saved, int *outcount, int *indices, MPI_Status *statuses);
void rec_test(MPI_Request saved, int *flag, MPI_Status *status);
void rec_testall(int count, MPI_Request *saved, int *flag, MPI_Status *statuses);
void rec_testany(int count, MPI_Request *saved, int *index, int *flag, MPI_Status *status);
void rec_coll(const char *name, MPI_Comm comm, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
              int root, const int *sendcounts, const int *recvcounts, MPI_Request *request);
void rec_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
void rec_comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
void rec_comm_derived(MPI_Comm parent, MPI_Comm *newcomm);
void rec_cancel(MPI_Request request);
void rec_request_free(MPI_Request request);
void rec_comm_free(MPI_Comm comm);

#endif

/* perfcast's PMPI tracer: the recorders of point-to-point calls and of
 * request completion (wait, test and their array forms), and the message
 * counters of the rank's profile. */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <stdio.h>

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
  /* MPI_PROC_NULL on one side (the ends of a non-periodic halo) moves nothing
   * there: the other half is written as the blocking send or receive it
   * amounts to, which every replayer reads (a sendRecv line needs two peers),
   * and only real messages are counted */
  if (dest == MPI_PROC_NULL) {
    rec_recv(recvcount, recvtype, source, recvtag, comm, status);
    return;
  }
  if (source == MPI_PROC_NULL) {
    record_send("send", sendcount, sendtype, dest, sendtag, comm, NULL);
    return;
  }
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

/* perfcast's PMPI tracer: communicators, sizes and the recorders of
 * collectives and communicator constructors. Sub-communicators are numbered in
 * the order the rank creates them (0 is the world) and written as comm=N. */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int comm_handle(MPI_Comm comm)
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
const char *comm_suffix(MPI_Comm comm)
{
  static char text[32];
  int h = comm_handle(comm);
  if (h <= 0)
    return "";
  snprintf(text, sizeof text, " comm=%d", h);
  return text;
}

long long type_bytes(int count, MPI_Datatype type)
{
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL)
    return 0;
  PMPI_Type_size(type, &size);
  return (long long)count * size;
}

void remember(MPI_Request r, int kind, int peer, int tag, int comm, long long bytes)
{
  if (pc_requests_remember((struct pc_pending){r, kind, peer, tag, comm, bytes}) != 0)
    pc_note_failure("out of memory for the table of outstanding requests");
}

struct pc_pending forget(MPI_Request r) { return pc_requests_forget(r); }

int my_rank_in(MPI_Comm comm)
{
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

/* per-rank byte counts of a v-collective; zeros where the counts are not significant (non-root) */
static void emit_counts(MPI_Comm comm, const int *counts, MPI_Datatype type, int significant)
{
  int n = 0;
  PMPI_Comm_size(comm, &n);
  for (int i = 0; i < n; ++i)
    emit(" %lld", (counts && significant) ? type_bytes(counts[i], type) : 0);
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

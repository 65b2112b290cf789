/* perfcast's PMPI tracer: migration points, the places where an AMPI run
 * could move the rank (a virtual processor) to another core.
 *
 * A program marks them with AMPI_Migrate(hints) (AMPI's call, as a code
 * ported to AMPI has it) or MPI_Migrate() (the older name); neither exists in
 * Open MPI or MPICH, so the tracer defines both (C and the three usual
 * Fortran manglings) and libperfcast_ampi.so defines them as no-ops for runs
 * without the tracer (tools/ampi). A program that cannot be touched gets a
 * point after every call of one named MPI function instead
 * (PERFCAST_ITERATION_AT, from `perfcast trace --iteration-at`).
 *
 * Each point is written "RANK migrate BYTES", BYTES the heap the rank holds:
 * glibc's mallinfo2() in-use bytes (arena chunks, uordblks, plus mmapped
 * blocks, hblkhd) less what it held when MPI_Init returned (the MPI library's
 * own start-up memory, which a migration would not carry). mallinfo2 walks
 * the arenas once per point; trapping malloc and free, as SAMPI did, would
 * cost on every allocation and fight other interposers (sanitizers). */
#define _GNU_SOURCE
#include "tracer_state.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* bytes of heap in use by the process */
static long long heap_in_use(void)
{
  struct mallinfo2 m = mallinfo2();
  return (long long)(m.uordblks + m.hblkhd);
}

void migrate_points_start(void)
{
  T.heap_base = heap_in_use();
  const char *at = getenv("PERFCAST_ITERATION_AT");
  T.iteration_at[0] = 0;
  if (at && *at && strlen(at) < sizeof T.iteration_at)
    strcpy(T.iteration_at, at);
}

void rec_migrate(void)
{
  if (!T.active || depth > 1)
    return;
  long long bytes = heap_in_use() - T.heap_base;
  emit("%d migrate %lld\n", T.rank, bytes > 0 ? bytes : 0);
}

void migrate_point_after(const char *name)
{
  /* names come from the wrappers as string literals: the first match is kept and compared by address */
  if (T.iteration_at[0] == 0 || !T.active)
    return;
  if (name != T.iteration_call) {
    if (strcmp(name, T.iteration_at) != 0)
      return;
    T.iteration_call = name;
  }
  long long bytes = heap_in_use() - T.heap_base;
  emit("%d migrate %lld\n", T.rank, bytes > 0 ? bytes : 0);
}

/* the calls, timed like the generated wrappers so the computation before them is written first */
static int migration_point(const char *name)
{
  double t0 = pc_enter();
  int locked = pc_lock();
  rec_migrate();
  pc_unlock(locked);
  pc_leave(name, t0);
  return MPI_SUCCESS;
}

int AMPI_Migrate(MPI_Info hints)
{
  (void)hints;
  return migration_point("AMPI_Migrate");
}

int MPI_Migrate(void) { return migration_point("MPI_Migrate"); }

/* Fortran: CALL AMPI_MIGRATE(HINTS, IERR) and CALL MPI_MIGRATE(IERR) */
#define FORTRAN_MIGRATE(fname)                                                                                       \
  void fname(MPI_Fint *hints, MPI_Fint *ierr)                                                                        \
  {                                                                                                                  \
    (void)hints;                                                                                                     \
    int rc = migration_point("AMPI_Migrate");                                                                        \
    if (ierr)                                                                                                        \
      *ierr = rc;                                                                                                    \
  }
#define FORTRAN_MPI_MIGRATE(fname)                                                                                   \
  void fname(MPI_Fint *ierr)                                                                                         \
  {                                                                                                                  \
    int rc = migration_point("MPI_Migrate");                                                                         \
    if (ierr)                                                                                                        \
      *ierr = rc;                                                                                                    \
  }
FORTRAN_MIGRATE(ampi_migrate_)
FORTRAN_MIGRATE(ampi_migrate)
FORTRAN_MIGRATE(ampi_migrate__)
FORTRAN_MPI_MIGRATE(mpi_migrate_)
FORTRAN_MPI_MIGRATE(mpi_migrate)
FORTRAN_MPI_MIGRATE(mpi_migrate__)

/* libperfcast_ampi.so: AMPI's migration calls as no-ops, so a program that
 * calls them once per iteration links and runs under Open MPI or MPICH.
 * It must stay a shared library: `perfcast trace` preloads the tracer, whose
 * AMPI_Migrate and MPI_Migrate then take precedence over these (a definition
 * linked into the executable itself would hide the tracer's). */
#include "perfcast_ampi.h"

int AMPI_Migrate(MPI_Info hints)
{
  (void)hints;
  return MPI_SUCCESS;
}

int MPI_Migrate(void) { return MPI_SUCCESS; }

/* Fortran: CALL AMPI_MIGRATE(HINTS, IERR) and CALL MPI_MIGRATE(IERR), three manglings each */
#define AMPI_F(name)                                                                                                 \
  void name(MPI_Fint *hints, MPI_Fint *ierr)                                                                         \
  {                                                                                                                  \
    (void)hints;                                                                                                     \
    if (ierr)                                                                                                        \
      *ierr = MPI_SUCCESS;                                                                                           \
  }
#define MPI_F(name)                                                                                                  \
  void name(MPI_Fint *ierr)                                                                                          \
  {                                                                                                                  \
    if (ierr)                                                                                                        \
      *ierr = MPI_SUCCESS;                                                                                           \
  }
AMPI_F(ampi_migrate_)
AMPI_F(ampi_migrate)
AMPI_F(ampi_migrate__)
MPI_F(mpi_migrate_)
MPI_F(mpi_migrate)
MPI_F(mpi_migrate__)

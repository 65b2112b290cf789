/* perfcast_ampi.h: AMPI's migration call for a program built with Open MPI
 * or MPICH, so that the same source runs under AMPI, under plain MPI and under
 * perfcast's tracer.
 *
 *   #include <mpi.h>
 *   #include "perfcast_ampi.h"
 *   ...
 *   AMPI_Migrate(AMPI_INFO_LB_SYNC);   (or MPI_Migrate();) once per iteration
 *
 * Link with -lperfcast_ampi (libperfcast_ampi.so, installed beside the
 * tracer): there the calls do nothing; `perfcast trace` preloads the tracer,
 * whose definitions come first and write a migration point into the trace.
 * Under AMPI (ampicc; its mpi.h defines AMPI) AMPI's own AMPI_Migrate is used;
 * AMPI 6.7 and later no longer have MPI_Migrate(), so there it becomes
 * AMPI_Migrate(AMPI_INFO_LB_SYNC), a synchronous balancing step as before. */
#ifndef PERFCAST_AMPI_H
#define PERFCAST_AMPI_H

#include <mpi.h>

#ifndef AMPI
#ifdef __cplusplus
extern "C" {
#endif

/* the hints AMPI defines; plain MPI runs ignore them */
#define AMPI_INFO_LB_SYNC MPI_INFO_NULL
#define AMPI_INFO_LB_ASYNC MPI_INFO_NULL
#define AMPI_INFO_CHKPT_IN_MEMORY MPI_INFO_NULL

/* A point where the runtime may migrate the rank: a no-op, or a migration point under the tracer. */
int AMPI_Migrate(MPI_Info hints);
/* The same point under its pre-6.7 AMPI name. */
int MPI_Migrate(void);

#ifdef __cplusplus
}
#endif
#elif defined(AMPI_INFO_LB_SYNC) && !defined(MPI_Migrate)
#define MPI_Migrate() AMPI_Migrate(AMPI_INFO_LB_SYNC)
#endif

#endif

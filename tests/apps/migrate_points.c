/* Migration points for tests/tracer_migrate_test.cpp: AMPI_Migrate and
 * MPI_Migrate around an 8 MiB allocation, so the heap each point records is
 * known: the second point holds 8 MiB (plus the mmap chunk's rounding to a
 * page) more than the first, the third as much as the first. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfcast_ampi.h"

/* the block escapes through this pointer, so the compiler keeps the allocation */
char *volatile escaped;

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  AMPI_Migrate(AMPI_INFO_LB_SYNC);
  char *block = malloc(8 << 20);
  memset(block, 1, 8 << 20);
  escaped = block;
  MPI_Migrate();
  escaped = NULL;
  free(block);
  AMPI_Migrate(AMPI_INFO_LB_SYNC);
  MPI_Finalize();
  return 0;
}

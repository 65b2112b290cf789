! Migration points from Fortran for tests/tracer_migrate_test.cpp: one
! MPI_Migrate and one AMPI_Migrate (the hints argument is ignored outside AMPI).
program migrate_points
  implicit none
  include 'mpif.h'
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Migrate(ierr)
  call AMPI_Migrate(MPI_INFO_NULL, ierr)
  call MPI_Finalize(ierr)
end program migrate_points

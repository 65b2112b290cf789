! A token passed around a ring of ranks, with a reduction each lap: the
! Fortran example for the tracer (mpif.h bindings, as many production codes).
! usage: ring [laps] [words]
program ring
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, lap, laps, words, next, prev, status(MPI_STATUS_SIZE)
  double precision, allocatable :: token(:)
  double precision :: total, local
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  laps = 5
  words = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) laps
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) words
  end if
  allocate(token(words))
  token = 1.0d0
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  do lap = 1, laps
    if (rank == 0) then
      call MPI_Send(token, words, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, ierr)
      call MPI_Recv(token, words, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(token, words, MPI_DOUBLE_PRECISION, prev, 7, MPI_COMM_WORLD, status, ierr)
      token = token + 1.0d0
      call MPI_Send(token, words, MPI_DOUBLE_PRECISION, next, 7, MPI_COMM_WORLD, ierr)
    end if
    local = sum(token)
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) print '(a,i0,a,i0,a)', 'ring: ', nprocs, ' ranks, ', laps, ' laps'
  call MPI_Finalize(ierr)
end program ring

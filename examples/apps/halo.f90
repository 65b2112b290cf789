! Non-blocking halo exchange on a ring with MPI_Waitall, then MPI_Waitany
! over a second exchange: the Fortran request-array calls for the tracer.
! usage: halo [iterations] [words]
program halo
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, it, iters, words, left, right, idx, k
  integer :: requests(4), statuses(MPI_STATUS_SIZE, 4), status(MPI_STATUS_SIZE)
  double precision, allocatable :: sl(:), sr(:), rl(:), rr(:)
  character(len=32) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  iters = 3
  words = 64
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) words
  end if
  allocate(sl(words), sr(words), rl(words), rr(words))
  sl = rank
  sr = rank
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  do it = 1, iters
    call MPI_Irecv(rl, words, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(rr, words, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Isend(sr, words, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Isend(sl, words, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, requests(4), ierr)
    call MPI_Waitall(4, requests, statuses, ierr)
    call MPI_Irecv(rl, words, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Isend(sr, words, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, requests(2), ierr)
    do k = 1, 2
      call MPI_Waitany(2, requests, idx, status, ierr)
      if (idx < 1 .or. idx > 2) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end do
  end do
  if (rank == 0) print '(a,i0,a)', 'halo: ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
end program halo

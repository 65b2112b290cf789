! A 1-D relaxation in Fortran: perfcast-fortran (flang-new-19) builds it, the
! region is the subroutine relax (flang names it _QPrelax).
subroutine relax(u, v, n)
  integer, intent(in) :: n
  double precision, intent(in) :: u(0:n+1)
  double precision, intent(out) :: v(0:n+1)
  integer :: i
  do i = 1, n
    v(i) = 0.5d0 * (u(i-1) + u(i+1))
  end do
end subroutine relax

program main
  implicit none
  integer, parameter :: n = 200, steps = 6
  double precision :: a(0:n+1), b(0:n+1)
  integer :: s
  a = 0.0d0
  b = 0.0d0
  a(0) = 1.0d0
  b(0) = 1.0d0
  do s = 1, steps / 2
    call relax(a, b, n)
    call relax(b, a, n)
  end do
  print *, 'relax', a(1)
end program main

# HPCCG, Mantevo's conjugate-gradient mini-app: a 1-D chain of z-slabs with
# halo exchanges and allreduces. Strong scaling as in its strongScalingRunScript:
# each rank holds 64 x 64 x (1024 / n), the global problem fixed.
repo=Mantevo/HPCCG
commit=80dd2f12a4e8aa70c330a5686cdda3fd187c2545
build() { make -j2 CXX=smpicxx LINKER=smpicxx USE_MPI=-DUSING_MPI; }
specs=('hpccg=@SRC@/test_HPCCG 64 64 $((1024 / n))')

# miniMD (Mantevo), reference version: Lennard-Jones molecular dynamics on a
# 3-D spatial decomposition. Input: 32^3 fcc cells (131,072 atoms), 100 steps,
# the same at every count. Built in its makefile's two passes (`-E`, which turns
# its #pragma macros into lines, then compile) but the second by g++ -fPIC, since
# smpicxx would include SMPI's helpers twice; no -fopenmp, -mavx or -DUSE_SIMD.
repo=Mantevo/miniMD
commit=2662065eb2b2264a673bda780a23d296f05a2c87
build() {
  cd ref
  for f in ljs input integrate atom force_lj force_eam neighbor thermo comm timer output setup; do
    smpicxx -DMPICH_IGNORE_CXX_SEEK -DDEVICE=1 -DNOCHUNK -I. -E $f.cpp > $f.2.cpp
    g++ -O3 -fPIC -c $f.2.cpp -o $f.o
  done
  smpicxx -O3 *.o -o miniMD
}
specs=('minimd=@SRC@/ref/miniMD -i @SRC@/ref/in.lj.miniMD -s 32 -n 100')

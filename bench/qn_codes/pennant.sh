# PENNANT, LANL's unstructured-mesh Lagrangian hydrodynamics mini-app (two
# point-to-point exchanges and an allreduce a cycle); its leblancbig problem,
# 160 x 1440 zones, stopped after 50 cycles: build() writes that input beside
# the original (test/leblancbig/leblancbig.pnt plus "cstop 50").
repo=lanl/PENNANT
commit=d7b770ecd5cc75bbb768554fcd9b2977e65b6e06
build() {
  make -j2 CXX=smpicxx CXXFLAGS_OPT=-O2 CXXFLAGS_OPENMP=
  { cat test/leblancbig/leblancbig.pnt; echo 'cstop 50'; } > test/leblancbig/leblancbig50.pnt
}
specs=('pennant=@SRC@/build/pennant @SRC@/test/leblancbig/leblancbig50.pnt')

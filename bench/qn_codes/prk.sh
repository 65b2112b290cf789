# Five of the Parallel Research Kernels' MPI1 codes: a 2-D star stencil, a matrix
# transpose (all-to-all blocks), a vector reduction, a pipelined point-to-point
# sweep and a sparse matrix-vector product, at the sizes the study fixed in session 8.
# The kernels include common/make.defs, which the repository does not ship: an empty
# one is written and the compiler and -O2 are given on make's command line.
repo=ParRes/Kernels
commit=04248b66a03d7f5edba8d54c9ae7834dd718027a
paths=(common include MPI1)   # the mirror lacks doc/'s two PDFs
build() {
  : > common/make.defs
  local d
  for d in Stencil:stencil Transpose:transpose Reduce:reduce Synch_p2p:p2p Sparse:sparse; do
    make -C "MPI1/${d%:*}" "${d#*:}" MPICC=smpicc DEFAULT_OPT_FLAGS=-O2 || return 1
  done
}
specs=('stencil=@SRC@/MPI1/Stencil/stencil 20 3000'
       'transpose=@SRC@/MPI1/Transpose/transpose 10 2048'
       'reduce=@SRC@/MPI1/Reduce/reduce 20 $((4194304 / n))'
       'p2p=@SRC@/MPI1/Synch_p2p/p2p 10 4000 1000 4'
       'sparse=@SRC@/MPI1/Sparse/sparse 10 9 2')

# miniWeather (MPI C++ version): a 2-D compressible-flow model, x split into n
# periodic slabs with 2-column halo exchanges. Input, fixed at compile time: a
# 512 x 256 grid, thermal bubble, 25 simulated seconds (192 steps). PnetCDF is not
# installed: output is off (_OUT_FREQ=-1) and a header of no-op ncmpi_* stubs lets it link.
repo=mrnorman/miniWeather
commit=7bfd5b485b2099d853214f75163022aee1ddefbc
build() {
  mkdir -p stub
  cat > stub/pnetcdf.h <<'H'
#include <mpi.h>
#define NC_NOERR 0
#define NC_CLOBBER 0
#define NC_WRITE 1
#define NC_UNLIMITED 0L
#define NC_DOUBLE 6
static inline int ncmpi_create(MPI_Comm, const char*, int, MPI_Info, int*) { return 0; }
static inline int ncmpi_open(MPI_Comm, const char*, int, MPI_Info, int*) { return 0; }
static inline int ncmpi_def_dim(int, const char*, MPI_Offset, int*) { return 0; }
static inline int ncmpi_def_var(int, const char*, int, int, const int*, int*) { return 0; }
static inline int ncmpi_enddef(int) { return 0; }
static inline int ncmpi_inq_varid(int, const char*, int*) { return 0; }
static inline int ncmpi_put_vara_double_all(int, int, const MPI_Offset*, const MPI_Offset*, const double*) { return 0; }
static inline int ncmpi_put_vara_double(int, int, const MPI_Offset*, const MPI_Offset*, const double*) { return 0; }
static inline int ncmpi_begin_indep_data(int) { return 0; }
static inline int ncmpi_end_indep_data(int) { return 0; }
static inline int ncmpi_close(int) { return 0; }
static inline const char* ncmpi_strerror(int) { return "no PnetCDF"; }
H
  cd c && smpicxx -O2 -std=c++11 -I../stub -D_NX=512 -D_NZ=256 -D_SIM_TIME=25 -D_OUT_FREQ=-1 \
    -D_DATA_SPEC=DATA_SPEC_THERMAL -DNO_INFORM -o miniWeather_mpi miniWeather_mpi.cpp
}
specs=('miniweather=@SRC@/c/miniWeather_mpi')

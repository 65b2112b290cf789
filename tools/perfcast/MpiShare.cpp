#include "MpiShare.hpp"

#include "core/Error.hpp"

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#ifdef PERFCAST_HAVE_MPI
#define OMPI_SKIP_MPICXX 1 // the C interface only: perfcast links libmpi, not the C++ bindings
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace perfcast::cli {

namespace {

/// The world size the launcher announced, 0 when no launcher started this process.
int launcher_size()
{
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name))
      return std::atoi(v);
  return 0;
}

} // namespace

MpiShare start_mpi_share()
{
  MpiShare share;
  int announced = launcher_size();
  if (announced <= 1)
    return share;
#ifdef PERFCAST_HAVE_MPI
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &share.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &share.size);
  if (share.size != announced) {
    // e.g. MPICH's mpiexec starting a perfcast built with Open MPI: each
    // process would be a world of one and the sweep would run N times
    MPI_Finalize();
    throw Error(fmt::format("the launcher started {} processes but MPI sees a world of {} (expected the mpirun of "
                            "the MPI perfcast was built with)",
                            announced, share.size));
  }
#else
  throw Error(fmt::format("started by an MPI launcher with {} ranks, but this perfcast was built without MPI "
                          "(expected one process, or a build with libopenmpi-dev)",
                          announced));
#endif
  return share;
}

void sum_to_rank0(const MpiShare& share, std::vector<double>& values)
{
  if (share.size <= 1)
    return;
#ifdef PERFCAST_HAVE_MPI
  std::vector<double> total(values.size(), 0.0);
  MPI_Reduce(values.data(), total.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  values.swap(total);
#endif
}

void finish_mpi_share(const MpiShare& share)
{
#ifdef PERFCAST_HAVE_MPI
  if (share.size > 1)
    MPI_Finalize();
#else
  (void)share;
#endif
}

void abort_mpi_share(const MpiShare& share, const char* why)
{
  std::fprintf(stderr, "error (rank %d of %d): %s\n", share.rank, share.size, why);
  std::fflush(stderr);
#ifdef PERFCAST_HAVE_MPI
  MPI_Abort(MPI_COMM_WORLD, 1);
#endif
  std::exit(1);
}

} // namespace perfcast::cli

#pragma once
// Sharing a sweep among the ranks of an MPI job. perfcast calls MPI only when
// an MPI launcher started it with more than one rank (Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, MPICH's Hydra and Slurm's PMI set PMI_SIZE);
// every other run, and every other command, never touches MPI. A build
// without MPI refuses such a launch instead of running the sweep N times.
#include <vector>

namespace perfcast::cli {

/// This process's share: configurations rank, rank + size, rank + 2 size, ...
struct MpiShare {
  int rank = 0;
  int size = 1;
};

/// Starts MPI when launched with more than one rank; otherwise {0, 1}. Throws Error when the launch cannot be served.
MpiShare start_mpi_share();
/// Sums `values` element-wise over the ranks into rank 0's copy (nothing for one process).
void sum_to_rank0(const MpiShare& share, std::vector<double>& values);
/// Ends MPI after a share that completed (nothing for one process).
void finish_mpi_share(const MpiShare& share);
/// Prints `why` with this rank and ends every rank of the job with status 1.
[[noreturn]] void abort_mpi_share(const MpiShare& share, const char* why);

} // namespace perfcast::cli

#pragma once
// Running the reference kernel programs under mpirun for perfcast kernels
// build: finding the programs, one run with its output captured and a time
// limit, and an interruption (SIGINT, SIGTERM) that stops the run under way.
#include "phase/KernelLadder.hpp"

#include <string>
#include <vector>

namespace perfcast::phase {

/// The directory of the perfcast-kernel-NAME programs: $PERFCAST_KERNEL_DIR,
/// else the perfcast executable's directory, else ../libexec/perfcast from it;
/// throws Error when none holds them.
std::string find_kernel_dir();

/// How a kernel program is started.
struct KernelLaunch {
  std::vector<std::string> mpirun = {"mpirun"}; ///< the launcher and its own flags
  int procs = 2;                                ///< passed as -np
  std::string kernel_dir;                       ///< where perfcast-kernel-NAME lives
  double timeout_seconds = 600;                 ///< a run is killed after this long
};

/// A KernelRunner that runs `mpirun -np P DIR/perfcast-kernel-NAME SIZE` in its
/// own process group, capturing its output; a run past the time limit or
/// interrupted is killed (status 128 + signal) and the output says why.
KernelRunner mpi_kernel_runner(const KernelLaunch& launch);

/// While alive, SIGINT and SIGTERM only set a flag that stops the run under
/// way and makes interrupted() true; the previous handlers come back after.
class InterruptGuard {
public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  /// True once SIGINT or SIGTERM arrived.
  static bool interrupted();
};

} // namespace perfcast::phase

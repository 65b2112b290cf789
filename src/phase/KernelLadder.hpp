#pragma once
// Measuring the reference kernels over a ladder of sizes (perfcast kernels
// build): which kernels exist, the sizes each is run at, and how a kernel's
// runs become the points of its KernelModel. The runs themselves go through
// a KernelRunner, so tests can stand in for mpirun.
#include "phase/KernelModel.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfcast::phase {

/// One reference kernel program (tools/kernels) and the sizes it is run at.
struct KernelSpec {
  std::string name;      ///< the program is perfcast-kernel-NAME
  long first_size = 0;   ///< the smallest size of the ladder
  double factor = 2;     ///< each size is the previous one times this (rounded)
  long max_size = 0;     ///< no size beyond this (memory of a 2-process run, see reference_kernels())
  std::string size_unit; ///< what the size counts ("grid points a side")
  std::string about;     ///< what it computes, one line
  int size_dim = 1;      ///< the dimensions the size spans: K stands for K^size_dim points (KernelSizeUnit)
  KernelSizeUnit unit() const { return {size_unit, size_dim}; }
};

/// The paper's 15 kernels, sorted by name.
const std::vector<KernelSpec>& reference_kernels();
/// The kernel named `name`; throws Error listing the names when there is none.
const KernelSpec& find_kernel(const std::string& name);
/// The kernels of a comma-separated list ("all" or "" for every kernel), in
/// the list's order; throws Error naming an unknown or repeated name.
std::vector<KernelSpec> select_kernels(const std::string& list);
/// The geometric ladder of sizes: first_size, then each previous size times
/// factor, rounded and strictly growing, up to max_size.
std::vector<long> size_ladder(const KernelSpec& spec);

/// What one run of a kernel program gave.
struct KernelRun {
  int status = 0;     ///< exit status (128 + signal when killed, -1 when it could not start)
  std::string output; ///< standard output and error together
};

/// Runs kernel program `name` at `size` and returns its exit status and output.
using KernelRunner = std::function<KernelRun(const std::string& name, long size)>;

/// Reads the run time from a kernel program's output: the line
/// {"kernel": NAME, "size": SIZE, "procs": P, "seconds": T}; throws Error when
/// there is none or it names another kernel, size or process count.
double parse_kernel_line(const std::string& output, const std::string& name, long size, int procs);

/// How far the ladder goes and how often each size runs.
struct LadderOptions {
  double max_seconds = 1.0; ///< stop after the first size whose fastest run takes longer (3 sizes at least)
  int repeats = 3;          ///< runs per size
  int procs = 2;            ///< process count the runs must report
};

/// Called before each run with the kernel, the size and the repeat (0-based).
using LadderProgress = std::function<void(const std::string& kernel, long size, int repeat)>;

/// A kernel's measurements, or why it cannot be stored.
struct KernelOutcome {
  std::string kernel;
  std::vector<KernelPoint> points; ///< every run, in order (empty when failed)
  std::string failure;             ///< empty when the kernel can be stored
};

/// Runs one kernel over its ladder. A failed run (non-zero exit, a wrong
/// result, no result line) or times that never grow with the size (which
/// KernelModel refuses) make it a failure, with the reason, and no points.
KernelOutcome measure_kernel(const KernelSpec& spec, const KernelRunner& run, const LadderOptions& options,
                             const LadderProgress& progress = {});

} // namespace perfcast::phase

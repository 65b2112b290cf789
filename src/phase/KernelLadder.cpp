#include "phase/KernelLadder.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace perfcast::phase {

const std::vector<KernelSpec>& reference_kernels()
{
  // First sizes take well under a millisecond. Kernels whose work grows as
  // the cube of the size step by 2^(1/3) (the time doubles per step), those
  // that need a power of two by 2. Maximum sizes keep a 2-process run below
  // about 1 GiB, except that the dense products and LU go to order 4101 and cg
  // and spmv to 2^24 rows (about 4 GiB), where a run takes 10 to 40 s on the
  // study's machine: sFactor maps a phase onto the kernel size that takes as
  // long as the phase, and a kernel is used only within its measured sizes
  // (one end segment on), so the database must reach the target's phase times
  // (20 to 30 s in the phases study, where the kernels ended at 0.04-3 s and
  // every one was refused). The other kernels cannot go that far in memory
  // (fft, mg, bt, sp grids, ptran, gemv and is at 30 s would need 3 to 30 GiB).
  // cg goes to 2^25 rows (about 9 GiB over 2 processes, 16 s here): with
  // sizes compared in points (--size-dim), a 3-D code's phase maps onto cg
  // rows of about 14 times its points (miniFE at 160: 5.9e7 rows, past the
  // 3.4e7 that 2^24 supports; see docs/studies/).
  // Each size's dimensions count the elements of the kernel's data: a matrix
  // order K stands for K^2 entries, a grid of K points a side in 3-D for K^3
  // points (and in 2-D, the PIC kernels', K^2 cells), rows and keys for
  // themselves.
  static const std::vector<KernelSpec> kernels = {
      {"bt", 8, 1.26, 96, "grid points a side", "block tridiagonal (5x5) line solves, one ADI step", 3},
      {"cg", 1024, 2, 33554432, "matrix rows", "25 conjugate gradient iterations, sparse SPD matrix", 1},
      {"deposit", 16, 1.41, 1024, "grid points a side", "PIC charge deposit, 8 particles per cell", 2},
      {"fft", 8, 2, 128, "grid points a side (power of two)", "3-D complex FFT, all-to-all transpose", 3},
      {"gemm", 32, 1.26, 4101, "matrix order", "dense matrix multiply", 2},
      {"gemv", 64, 1.41, 4096, "matrix order", "matrix-vector products and a rank-one addition", 2},
      {"is", 4096, 2, 16777216, "keys", "bucket sort of integer keys, all-to-all", 1},
      {"lu", 32, 1.26, 4101, "matrix order", "dense LU factorisation, row broadcasts", 2},
      {"mg", 8, 2, 128, "grid intervals a side (power of two)", "multigrid V-cycles, 3-D Poisson", 3},
      {"ptran", 64, 1.41, 2048, "matrix order", "matrix transpose and add, all-to-all", 2},
      {"push", 16, 1.41, 1024, "grid points a side", "PIC particle push, 8 particles per cell", 2},
      {"sp", 8, 1.26, 128, "grid points a side", "scalar pentadiagonal line solves, one ADI step", 3},
      {"spmv", 1024, 2, 16777216, "matrix rows", "sparse matrix-vector products, irregular columns", 1},
      {"symm", 32, 1.26, 4101, "matrix order", "symmetric matrix multiply", 2},
      {"trmm", 32, 1.26, 4101, "matrix order", "triangular matrix multiply", 2},
  };
  return kernels;
}

const KernelSpec& find_kernel(const std::string& name)
{
  for (const KernelSpec& k : reference_kernels())
    if (k.name == name) return k;
  std::string names;
  for (const KernelSpec& k : reference_kernels()) names += (names.empty() ? "" : ", ") + k.name;
  throw Error(fmt::format("kernel '{}': no such kernel (expected one of {})", name, names));
}

std::vector<KernelSpec> select_kernels(const std::string& list)
{
  if (list.empty() || list == "all") return reference_kernels();
  std::vector<KernelSpec> chosen;
  std::stringstream items(list);
  for (std::string name; std::getline(items, name, ',');) {
    const KernelSpec& spec = find_kernel(name);
    if (std::any_of(chosen.begin(), chosen.end(), [&](const KernelSpec& k) { return k.name == name; }))
      throw Error(fmt::format("kernel '{}': named twice (expected each kernel once)", name));
    chosen.push_back(spec);
  }
  return chosen;
}

std::vector<long> size_ladder(const KernelSpec& spec)
{
  std::vector<long> sizes;
  for (double s = static_cast<double>(spec.first_size); std::lround(s) <= spec.max_size; s *= spec.factor) {
    const long size = std::lround(s);
    if (sizes.empty() || size > sizes.back()) sizes.push_back(size);
  }
  return sizes;
}

double parse_kernel_line(const std::string& output, const std::string& name, long size, int procs)
{
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("{\"kernel\"", 0) != 0) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    const auto field = [&](const char* key) {
      if (!j.contains(key)) throw Error(fmt::format("kernel {}: result line '{}' has no {}", name, line, key));
      return j[key];
    };
    if (field("kernel") != name || field("size") != size || field("procs") != procs)
      throw Error(fmt::format("kernel {}: result line '{}' (expected kernel {}, size {}, procs {})", name, line, name,
                              size, procs));
    const nlohmann::json seconds = field("seconds");
    if (!seconds.is_number() || !(seconds.get<double>() > 0))
      throw Error(fmt::format("kernel {}: result line '{}' (expected a positive time)", name, line));
    return seconds.get<double>();
  }
  throw Error(fmt::format("kernel {}: size {}: no result line in its output (expected {{\"kernel\": ...}})", name,
                          size));
}

namespace {

/// Sizes measured at least, whatever the time limit: a model needs two, and
/// three show whether the time grows steadily.
constexpr int kMinSizes = 3;

/// What a failed run said, for a failure message: the kernel program's own
/// first two messages when it printed any, else the last three lines (the
/// launcher's explanation comes after the kernel's and says less).
std::string output_tail(const std::string& output)
{
  std::vector<std::string> lines, own;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" -\t") == std::string::npos) continue;
    lines.push_back(line);
    if (line.rfind("perfcast-kernel-", 0) == 0 || line.rfind("usage: perfcast-kernel-", 0) == 0) own.push_back(line);
  }
  const std::vector<std::string> chosen =
      !own.empty() ? std::vector<std::string>(own.begin(), own.begin() + std::min<std::size_t>(own.size(), 2))
                   : std::vector<std::string>(lines.end() - std::min<std::ptrdiff_t>(lines.size(), 3), lines.end());
  std::string tail;
  for (const std::string& line : chosen) tail += (tail.empty() ? "" : " | ") + line;
  return tail.empty() ? "no output" : tail;
}

} // namespace

KernelOutcome measure_kernel(const KernelSpec& spec, const KernelRunner& run, const LadderOptions& options,
                             const LadderProgress& progress)
{
  KernelOutcome outcome{spec.name, {}, {}};
  int sizes_done = 0;
  for (long size : size_ladder(spec)) {
    double fastest = 0; // a loaded machine only adds time: the fastest run tells the size's cost
    for (int repeat = 0; repeat < options.repeats; ++repeat) {
      if (progress) progress(spec.name, size, repeat);
      const KernelRun result = run(spec.name, size);
      if (result.status != 0) {
        outcome.failure = fmt::format("size {}: exit status {}: {}", size, result.status, output_tail(result.output));
        outcome.points.clear();
        return outcome;
      }
      double seconds = 0;
      try {
        seconds = parse_kernel_line(result.output, spec.name, size, options.procs);
      } catch (const Error& e) {
        outcome.failure = e.what();
        outcome.points.clear();
        return outcome;
      }
      outcome.points.push_back({static_cast<double>(size), seconds});
      fastest = repeat == 0 ? seconds : std::min(fastest, seconds);
    }
    ++sizes_done;
    if (fastest > options.max_seconds && sizes_done >= kMinSizes) break;
  }
  try {
    KernelModel(spec.name, outcome.points);
  } catch (const Error& e) {
    outcome.failure = e.what();
    outcome.points.clear();
  }
  return outcome;
}

} // namespace perfcast::phase

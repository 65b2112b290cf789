#include "probe/MachineProbes.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <sstream>
#include <sys/mman.h>

namespace perfcast::probe {
namespace {

constexpr double kMb = 1e6;

/// An anonymous mapping, every page touched so that it is resident.
class HeldMemory {
public:
  explicit HeldMemory(std::size_t bytes) : bytes_(bytes)
  {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw Error(fmt::format("memory probe: cannot map {} bytes: {}", bytes, std::strerror(errno)));
    data_ = static_cast<char*>(p);
    std::memset(data_, 1, bytes);
  }
  ~HeldMemory() { ::munmap(data_, bytes_); }
  HeldMemory(const HeldMemory&) = delete;
  HeldMemory& operator=(const HeldMemory&) = delete;

private:
  char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// The reference task: a fixed amount of arithmetic, then a fresh 16 MiB
/// mapping filled page by page (page faults and zeroing feel memory pressure).
double reference_task_s(bool wall_clock)
{
  auto t0 = std::chrono::steady_clock::now();
  double c0 = thread_cpu_s();
  double x[4] = {1, 1.1, 1.2, 1.3};
  for (int i = 0; i < 2000000; ++i)
    for (double& v : x)
      v = v * 0.999999 + 1e-7;
  HeldMemory fresh(16u << 20);
  volatile double sink = x[0] + x[1] + x[2] + x[3];
  (void)sink;
  if (!wall_clock)
    return thread_cpu_s() - c0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// alpha at each level against the task's time with nothing held, taken from
/// a line through every level in main memory (one level alone is noisier);
/// the first level's time when fewer than three levels are in main memory.
void set_alphas(MemoryFigure& f, double swap_from_mb)
{
  std::vector<double> x, t;
  for (const MemoryPoint& p : f.points)
    if (p.held_mb <= swap_from_mb) {
      x.push_back(p.held_mb);
      t.push_back(p.task_s.mean);
    }
  double base = f.points.front().task_s.mean;
  if (x.size() >= 3) {
    LineFit line = fit_line(x, t);
    if (line.intercept > 0)
      base = line.intercept;
  }
  for (MemoryPoint& p : f.points)
    p.alpha = p.task_s.mean / base - 1;
}

} // namespace

MemoryInfo read_meminfo(const std::string& path)
{
  std::istringstream in(read_file(path, "meminfo"));
  MemoryInfo info;
  bool total = false, available = false, swap = false;
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb) {
    std::getline(in, unit);
    if (key == "MemTotal:")
      info.total_bytes = kb * 1024, total = true;
    else if (key == "MemAvailable:")
      info.available_bytes = kb * 1024, available = true;
    else if (key == "SwapTotal:")
      info.swap_total_bytes = kb * 1024, swap = true;
  }
  if (!total || !available || !swap)
    fail_in(path, "expected MemTotal, MemAvailable and SwapTotal lines");
  return info;
}

double default_memory_max(const MemoryInfo& info)
{
  return std::min(2.0 * (1u << 30), 0.1 * info.available_bytes);
}

void fit_memory_curve(MemoryFigure& f, double swap_from_mb, bool has_swap)
{
  std::vector<double> lx, ly, ex, ey;
  for (const MemoryPoint& p : f.points) {
    if (p.held_mb <= swap_from_mb) {
      lx.push_back(p.held_mb);
      ly.push_back(p.alpha);
    } else if (p.alpha > 0) {
      ex.push_back(p.held_mb);
      ey.push_back(p.alpha);
    }
  }
  f.has_linear = lx.size() >= 3;
  if (f.has_linear)
    f.linear = fit_line(lx, ly);
  f.has_exponential = ex.size() >= 3;
  if (f.has_exponential)
    f.exponential = fit_exponential(ex, ey);
  if (!has_swap)
    f.note = "no swap on this machine (SwapTotal 0): the exponential part does not exist and was not measured";
  else if (!f.has_exponential)
    f.note = fmt::format("the probed range ends at {:.0f} MB, below the {:.0f} MB available in main memory: the "
                         "exponential (swapping) part was not measured",
                         f.probed_max_bytes / kMb, swap_from_mb);
}

MemoryFigure probe_memory(double max_bytes, int levels, const MemoryInfo& info, const StoppingRule& rule,
                          const Progress& progress, bool wall_clock)
{
  MemoryFigure f;
  f.clock = wall_clock ? "wall" : "cpu";
  auto task = [wall_clock] { return reference_task_s(wall_clock); };
  f.probed_max_bytes = max_bytes;
  std::vector<std::unique_ptr<HeldMemory>> held;
  double held_bytes = 0;
  task(); // warm up
  for (int level = 0; level <= levels; ++level) {
    double target = max_bytes * level / levels;
    std::size_t page = 4096;
    auto more = static_cast<std::size_t>((target - held_bytes) / page) * page;
    if (more > 0) {
      held.push_back(std::make_unique<HeldMemory>(more));
      held_bytes += static_cast<double>(more);
    }
    MemoryPoint p;
    p.held_mb = held_bytes / kMb;
    std::string name = fmt::format("memory {:.0f} MB", p.held_mb);
    p.task_s = measure_until_tight(rule, task, [&](const Estimate& e) {
      if (progress)
        progress(name, e);
    });
    f.points.push_back(p);
  }
  set_alphas(f, info.available_bytes / kMb);
  // beyond what was available when the probe started, the kernel must swap
  fit_memory_curve(f, info.available_bytes / kMb, info.swap_total_bytes > 0);
  return f;
}

} // namespace perfcast::probe

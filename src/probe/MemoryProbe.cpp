#include "probe/MachineProbes.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>

namespace perfcast::probe {
namespace {

constexpr double kMb = 1e6;

} // namespace

/// An anonymous mapping, every page touched so that it is resident (the held levels).
class HeldMemory {
public:
  /// Maps `bytes`, with `populate` in one pass of the kernel, else page by page as the memset touches them.
  HeldMemory(std::size_t bytes, bool populate) : bytes_(bytes)
  {
    if (bytes == 0)
      return;
    // MAP_POPULATE has the kernel allocate the pages in one pass (about three
    // times faster here than faulting them in one by one, and the rounds map
    // and unmap the levels over and over); the memset then dirties them all
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
    if (p == MAP_FAILED)
      throw Error(fmt::format("memory probe: cannot map {} bytes: {}", bytes, std::strerror(errno)));
    data_ = static_cast<char*>(p);
    std::memset(data_, 1, bytes);
  }
  ~HeldMemory()
  {
    if (data_)
      ::munmap(data_, bytes_);
  }
  HeldMemory(const HeldMemory&) = delete;
  HeldMemory& operator=(const HeldMemory&) = delete;

private:
  char* data_ = nullptr;
  std::size_t bytes_ = 0;
};

namespace {

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
  HeldMemory fresh(16u << 20, false);
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

std::optional<PageReporting> read_page_reporting(const std::string& dir)
{
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return std::nullopt;
  auto counter = [&dir](const char* name) {
    std::string path = dir + "/" + name;
    std::istringstream in(read_file(path, "page reporting counter"));
    long long value = -1;
    if (!(in >> value) || value < 0)
      fail_in(path, "expected a non-negative integer");
    return value;
  };
  PageReporting r;
  r.reported_bytes = 1024.0 * static_cast<double>(counter("reported_kib"));
  r.passes = static_cast<long>(counter("passes"));
  return r;
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

MemorySampler::MemorySampler(double max_bytes, int levels, const MemoryInfo& info, bool wall_clock)
    : info_(info), max_bytes_(max_bytes), wall_clock_(wall_clock)
{
  const double page = 4096;
  for (int level = 0; level <= levels; ++level)
    level_bytes_.push_back(std::floor(max_bytes * level / levels / page) * page);
  reference_task_s(wall_clock_); // warm up
}

MemorySampler::~MemorySampler() = default;

std::vector<std::string> MemorySampler::names() const
{
  std::vector<std::string> out;
  for (double b : level_bytes_)
    out.push_back(fmt::format("memory {:.0f} MB", b / kMb));
  return out;
}

std::vector<double> MemorySampler::sample()
{
  // levels upwards, each reached by mapping and touching one more slice; all
  // released at the end, so the other probes' samples in the round never run
  // beside held memory. (Rounds that went up and then down left 2 GiB held
  // for every other round's disk samples: on this VM, whose balloon hands
  // freed pages back to the host, the O_DIRECT read alternated between two
  // speeds, lag-1 correlation -0.92, and two probes disagreed.)
  std::size_t count = level_bytes_.size();
  std::vector<double> times(count);
  for (std::size_t level = 0; level < count; ++level) {
    while (held_.size() < level) {
      std::size_t next = held_.size() + 1;
      held_.push_back(std::make_unique<HeldMemory>(static_cast<std::size_t>(level_bytes_[next] - level_bytes_[next - 1]), true));
    }
    times[level] = reference_task_s(wall_clock_);
  }
  held_.clear();
  return times;
}

MemoryFigure MemorySampler::figure(const std::vector<Estimate>& task_s) const
{
  MemoryFigure f;
  f.clock = wall_clock_ ? "wall" : "cpu";
  f.probed_max_bytes = max_bytes_;
  for (std::size_t level = 0; level < level_bytes_.size(); ++level) {
    MemoryPoint p;
    p.held_mb = level_bytes_[level] / kMb;
    p.task_s = task_s.at(level);
    f.points.push_back(p);
  }
  set_alphas(f, info_.available_bytes / kMb);
  // beyond what was available when the probe started, the kernel must swap
  fit_memory_curve(f, info_.available_bytes / kMb, info_.swap_total_bytes > 0);
  return f;
}

} // namespace perfcast::probe

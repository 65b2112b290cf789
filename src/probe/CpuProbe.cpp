#include "probe/MachineProbes.hpp"

#include "probe/CpuRate.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstring>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <memory>
#include <thread>
#include <vector>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace perfcast::probe {

double thread_cpu_s()
{
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

namespace {

/// A counter of this thread's user-space instructions; fd < 0 when the kernel refuses.
struct InstructionCounter {
  int fd = -1;
  int error = 0;
  InstructionCounter()
  {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof attr;
    attr.config = PERF_COUNT_HW_INSTRUCTIONS;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    fd = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0)
      error = errno;
  }
  ~InstructionCounter()
  {
    if (fd >= 0)
      ::close(fd);
  }
  InstructionCounter(const InstructionCounter&) = delete;
  InstructionCounter& operator=(const InstructionCounter&) = delete;
};

/// Runs the mix for about `seconds` of this thread's CPU time; returns (flops, CPU seconds).
std::pair<double, double> run_mix(double seconds, double* keep)
{
  double t0 = thread_cpu_s(), elapsed = 0, flop = 0;
  do {
    flop += mix_chunk(keep);
    elapsed = thread_cpu_s() - t0;
  } while (elapsed < seconds);
  return {flop, elapsed};
}

} // namespace

struct CpuSampler::State {
  InstructionCounter counter;
  double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
  double slice_s = 0.05;
  int cores = 1;
};

CpuSampler::CpuSampler(double slice_s, int cores) : state_(std::make_unique<State>())
{
  state_->slice_s = slice_s;
  state_->cores = std::max(1, cores);
  run_mix(slice_s, state_->x); // warm up: frequency and caches
}

CpuSampler::~CpuSampler()
{
  volatile double sink = 0;
  for (double v : state_->x)
    sink = sink + v;
}

double CpuSampler::sample()
{
  InstructionCounter& counter = state_->counter;
  long long count = 0;
  if (counter.fd >= 0) {
    ::ioctl(counter.fd, PERF_EVENT_IOC_RESET, 0);
    ::ioctl(counter.fd, PERF_EVENT_IOC_ENABLE, 0);
  }
  // the other cores run the same mix meanwhile, each in its own thread and CPU time
  std::vector<double> others(static_cast<std::size_t>(state_->cores - 1));
  std::vector<std::thread> threads;
  for (double& rate : others)
    threads.emplace_back([&rate, slice = state_->slice_s] {
      double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
      auto [flops, seconds] = run_mix(slice, x);
      rate = flops / seconds;
    });
  auto [flops, seconds] = run_mix(state_->slice_s, state_->x);
  for (std::thread& t : threads)
    t.join();
  if (counter.fd >= 0) {
    ::ioctl(counter.fd, PERF_EVENT_IOC_DISABLE, 0);
    if (::read(counter.fd, &count, sizeof count) != sizeof count)
      count = 0;
    return static_cast<double>(count) / seconds;
  }
  double sum = flops / seconds;
  for (double rate : others)
    sum += rate;
  return sum / state_->cores;
}

CpuFigure CpuSampler::figure(const Estimate& rate) const
{
  CpuFigure f;
  f.rate = rate;
  if (state_->counter.fd >= 0) {
    f.unit = "instructions";
    f.how = fmt::format("user-space instructions counted by the kernel (perf_event_open) over the mix of eight "
                        "multiply-add chains, per second of the probe's CPU time, with {} of the cores running the mix",
                        state_->cores);
  } else {
    f.unit = "flop";
    f.how = fmt::format("no hardware counters (perf_event_open: {}): calibrated count, 2 flop per multiply-add of "
                        "the mix of eight chains (the tracer's kernel, so traces and probes share one unit), per second of the "
                        "probe's CPU time (time other processes held the core is not counted), the mean of {} "
                        "cores running the mix at once",
                        std::strerror(state_->counter.error), state_->cores);
  }
  return f;
}

} // namespace perfcast::probe

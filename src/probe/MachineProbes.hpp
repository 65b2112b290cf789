#pragma once
// The probes of `perfcast probe`, after the benchmark suite of de Mello and
// Senger (../shared/papers/unimpp-schedsim-mello-senger.txt, section 3): mips
// (processing rate), memo (slowdown of a reference task as memory in use
// grows), discio (disk throughput, buffered and direct) and net (message
// overhead and latency). Each probe is a sampler that takes one sample of
// each of its figures per call, so that `measure_interleaved` can spread every
// figure's samples over the whole run under a StoppingRule.
#include "probe/CurveFit.hpp"
#include "probe/SampleStats.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace perfcast::probe {

/// CPU time of the calling thread in seconds (user and system; time waiting for a core excluded).
double thread_cpu_s();

/// Processing rate of one core on a fixed instruction mix.
struct CpuFigure {
  Estimate rate;    ///< units per second
  std::string unit; ///< "instructions" (counted) or "flop" (calibrated count of the mix)
  std::string how;  ///< how the count was obtained, for the output
};

/// Times the mix (eight multiply-add chains, the tracer's calibration kernel)
/// in slices of `slice_s` seconds on `cores` cores at once (a core's rate
/// while the others are busy, as when processes share them all), counting
/// instructions where the kernel allows (on the calling thread's core).
class CpuSampler {
public:
  /// Opens the counter (if the kernel allows) and warms up with one slice.
  explicit CpuSampler(double slice_s = 0.05, int cores = 1);
  ~CpuSampler();
  CpuSampler(const CpuSampler&) = delete;
  CpuSampler& operator=(const CpuSampler&) = delete;
  /// One slice's rate, in units per second of CPU time.
  double sample();
  /// The figure of the rate's estimate, with its unit and how it was counted.
  CpuFigure figure(const Estimate& rate) const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The kernel's figures from /proc/meminfo, in bytes.
struct MemoryInfo {
  double total_bytes = 0;
  double available_bytes = 0;
  double swap_total_bytes = 0;
};

/// Reads a meminfo file; throws Error when a field is missing.
MemoryInfo read_meminfo(const std::string& path = "/proc/meminfo");

/// Free page reporting (Linux's page_reporting, driven by a virtual machine's
/// balloon): the guest hands memory it frees back to its host, which must
/// populate those pages again when they are next touched.
struct PageReporting {
  double reported_bytes = 0; ///< handed back since boot
  long passes = 0;           ///< reporting passes since boot
};

/// The counters in `dir` (files reported_kib and passes); nullopt when the
/// directory does not exist (no balloon that reports); throws Error naming the
/// file when a counter is missing or not a number.
std::optional<PageReporting> read_page_reporting(const std::string& dir = "/sys/module/page_reporting/parameters");

/// The default bound of the memory probe: 2 GiB or a tenth of what is available, whichever is smaller.
double default_memory_max(const MemoryInfo& info);

/// One level of the memory probe: memory held and the reference task's time.
struct MemoryPoint {
  double held_mb = 0; ///< megabytes (1e6 bytes) held and touched by the probe
  Estimate task_s;
  double alpha = 0;   ///< task time over the time with nothing held (a line's intercept through the main-memory levels), minus one
};

/// The slowdown curve alpha(MB) and its fits (UniMPP eq. 3).
struct MemoryFigure {
  std::vector<MemoryPoint> points;
  double probed_max_bytes = 0;
  bool has_linear = false, has_exponential = false;
  LineFit linear;      ///< over the points held in main memory
  ExpFit exponential;  ///< over the points beyond it (swapping)
  std::string note;    ///< what was not measured and why
  std::string clock;   ///< "cpu" or "wall": how the reference task was timed
};

/// Fits a memory curve: linear on points up to `swap_from_mb`, exponential on
/// positive-alpha points beyond it (at least three needed for each fit).
void fit_memory_curve(MemoryFigure& figure, double swap_from_mb, bool has_swap);

class HeldMemory;

/// Holds 0, max/levels, ..., max bytes in turn and times the reference task at
/// each, in CPU time of the probe (page faults and reclaim included, robust to
/// other processes' load) or, with `wall_clock`, elapsed time (also counts
/// waiting for swap-ins, and for the core).
class MemorySampler {
public:
  /// Warms up with one reference task; holds nothing yet.
  MemorySampler(double max_bytes, int levels, const MemoryInfo& info, bool wall_clock = false);
  ~MemorySampler();
  MemorySampler(const MemorySampler&) = delete;
  MemorySampler& operator=(const MemorySampler&) = delete;
  /// One figure per level: "memory N MB".
  std::vector<std::string> names() const;
  /// The reference task's time at every level, visited upwards; nothing is held when it returns.
  std::vector<double> sample();
  /// The curve of the levels' estimates, with alpha and its fits.
  MemoryFigure figure(const std::vector<Estimate>& task_s) const;

private:
  MemoryInfo info_;
  double max_bytes_ = 0;
  bool wall_clock_ = false;
  std::vector<double> level_bytes_;
  std::vector<std::unique_ptr<HeldMemory>> held_; ///< held_[i] takes level i to level i + 1
};

/// Disk throughput in bytes per second.
struct DiskFigure {
  /// through the page cache: a new file written then fdatasync'd; read back with its pages evicted
  Estimate write_buffered, read_buffered;
  Estimate write_direct, read_direct;     ///< O_DIRECT
  /// core-seconds per byte the machine loses to an O_DIRECT write while every core
  /// runs the mix (a virtual machine's host emulating the device shows as steal, a
  /// kernel's I/O path as system time); only with has_direct and cores_busy > 0
  Estimate cpu_per_byte;
  /// O_DIRECT write throughput in the same passes, beside every core running the mix
  /// (a virtual machine's host that emulates the disk within the machine's CPU
  /// allowance serves it slower then); only with has_direct and cores_busy > 0
  Estimate write_direct_busy;
  int cores_busy = 0;
  bool has_direct = false;
  std::string note;
};

class ScratchFile;

/// Writes and reads a temporary file of `file_bytes` in `dir` (removed afterwards).
class DiskSampler {
public:
  /// Creates the file and writes it once; throws Error when `dir` is no directory.
  /// `cores` > 0 also measures the CPU the machine spends on a direct write (cpu_per_byte):
  /// the mix's rate on that many cores with and without a write beside it.
  DiskSampler(const std::string& dir, double file_bytes, int cores = 0);
  ~DiskSampler();
  DiskSampler(const DiskSampler&) = delete;
  DiskSampler& operator=(const DiskSampler&) = delete;
  /// Buffered write and read, then O_DIRECT write and read where the file system allows.
  std::vector<std::string> names() const;
  /// One pass of each, in bytes per second.
  std::vector<double> sample();
  /// The figure of the estimates, in names()' order.
  DiskFigure figure(const std::vector<Estimate>& figures) const;

private:
  std::unique_ptr<ScratchFile> file_;
  std::string dir_, note_;
  std::size_t blocks_ = 0;
  std::unique_ptr<char, void (*)(void*)> buffer_;
  bool has_direct_ = false;
  int cores_ = 0;
};

/// Message costs of LogP's kind (UniMPP eqs. 6 and 7: one message takes 2 o + l).
struct NetFigure {
  Estimate overhead_s; ///< o: mean time in the sending call and in the receiving call of a message already there
  Estimate one_way_s;  ///< half a round trip: 2 o + l
  double latency_s = 0; ///< l = one way - 2 o (at least 0)
  int message_bytes = 32;
  std::string between; ///< "loopback TCP between two processes" or the peer
};

struct Socket;

/// Ping-pong over TCP in batches of round trips: the sending call's time and
/// the receiving call's (once the reply is there) give o, half a round trip
/// the one-way time 2 o + l.
class NetSampler {
public:
  /// With a child process echoing on 127.0.0.1.
  explicit NetSampler(int message_bytes);
  /// With `perfcast probe --net-serve PORT` running on another host.
  NetSampler(const std::string& host_port, int message_bytes);
  ~NetSampler();
  NetSampler(const NetSampler&) = delete;
  NetSampler& operator=(const NetSampler&) = delete;
  /// {one way, o} of one batch, in seconds.
  std::vector<double> sample();
  /// The figure of the two estimates.
  NetFigure figure(const std::vector<Estimate>& figures) const;

private:
  std::unique_ptr<Socket> socket_;
  pid_t child_ = -1;
  int message_bytes_ = 32;
  std::string between_;
};
/// Echoes messages to one peer on `port` until it disconnects.
void serve_net(int port, int message_bytes);

} // namespace perfcast::probe

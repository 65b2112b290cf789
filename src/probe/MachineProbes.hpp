#pragma once
// The probes of `perfcast probe`, after the benchmark suite of de Mello and
// Senger (../shared/papers/unimpp-schedsim-mello-senger.txt, section 3): mips
// (processing rate), memo (slowdown of a reference task as memory in use
// grows), discio (disk throughput, buffered and direct) and net (message
// overhead and latency). Each figure is repeated under a StoppingRule.
#include "probe/CurveFit.hpp"
#include "probe/SampleStats.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfcast::probe {

/// Told which figure is being measured and its estimate so far.
using Progress = std::function<void(const std::string& figure, const Estimate& so_far)>;

/// CPU time of the calling thread in seconds (user and system; time waiting for a core excluded).
double thread_cpu_s();

/// Processing rate of one core on a fixed instruction mix.
struct CpuFigure {
  Estimate rate;    ///< units per second
  std::string unit; ///< "instructions" (counted) or "flop" (calibrated count of the mix)
  std::string how;  ///< how the count was obtained, for the output
};

/// Repeats the mix (eight multiply-add chains, the tracer's calibration kernel)
/// in slices of `slice_s` seconds, counting instructions where the kernel allows.
CpuFigure probe_cpu(const StoppingRule& rule, const Progress& progress, double slice_s = 0.05);

/// The kernel's figures from /proc/meminfo, in bytes.
struct MemoryInfo {
  double total_bytes = 0;
  double available_bytes = 0;
  double swap_total_bytes = 0;
};

/// Reads a meminfo file; throws Error when a field is missing.
MemoryInfo read_meminfo(const std::string& path = "/proc/meminfo");

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

/// Holds 0, max/levels, ..., max bytes in turn and times the reference task at
/// each, in CPU time of the probe (page faults and reclaim included, robust to
/// other processes' load) or, with `wall_clock`, elapsed time (also counts
/// waiting for swap-ins, and for the core).
MemoryFigure probe_memory(double max_bytes, int levels, const MemoryInfo& info, const StoppingRule& rule,
                          const Progress& progress, bool wall_clock = false);

/// Disk throughput in bytes per second.
struct DiskFigure {
  /// through the page cache: a new file written then fdatasync'd; read back with its pages evicted
  Estimate write_buffered, read_buffered;
  Estimate write_direct, read_direct;     ///< O_DIRECT
  bool has_direct = false;
  std::string note;
};

/// Writes and reads a temporary file of `file_bytes` in `dir` (removed afterwards).
DiskFigure probe_disk(const std::string& dir, double file_bytes, const StoppingRule& rule, const Progress& progress);

/// Message costs of LogP's kind (UniMPP eqs. 6 and 7: one message takes 2 o + l).
struct NetFigure {
  Estimate overhead_s; ///< o: mean time in the sending call and in the receiving call of a message already there
  Estimate one_way_s;  ///< half a round trip: 2 o + l
  double latency_s = 0; ///< l = one way - 2 o (at least 0)
  int message_bytes = 32;
  std::string between; ///< "loopback TCP between two processes" or the peer
};

/// Ping-pong over TCP with a child process on 127.0.0.1.
NetFigure probe_net_loopback(int message_bytes, const StoppingRule& rule, const Progress& progress);
/// Ping-pong with `perfcast probe --net-serve PORT` running on another host.
NetFigure probe_net_peer(const std::string& host_port, int message_bytes, const StoppingRule& rule,
                         const Progress& progress);
/// Echoes messages to one peer on `port` until it disconnects.
void serve_net(int port, int message_bytes);

} // namespace perfcast::probe

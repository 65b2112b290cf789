#pragma once
// The Standard Workload Format of the Parallel Workloads Archive (version
// 2.2): one job a line, 18 whitespace-separated fields, -1 for unknown,
// header and comment lines start with ';'. Rigid parallel jobs.
#include <string>
#include <vector>

namespace perfcast::sched {

/// One SWF job, the fields a scheduling simulation uses (times in seconds).
struct SwfJob {
  long long id = 0;
  double submit_s = 0;
  double wait_s = -1;            ///< as logged; -1 unknown
  double run_s = 0;              ///< actual run time
  int allocated_procs = 0;
  double avg_cpu_s = -1;
  double used_memory_kb = -1;    ///< per processor
  int requested_procs = 0;
  double requested_s = -1;       ///< the user's estimate, used by backfilling
  double requested_memory_kb = -1;
  int status = -1;               ///< 1 completed, 0 failed, 5 cancelled
  int user = -1, group = -1, executable = -1, queue = -1, partition = -1;
  long long preceding_job = -1;
  double think_s = -1;
  std::size_t line = 0;          ///< where it was read
  /// Processors the job needs: allocated, else requested.
  int procs() const { return allocated_procs > 0 ? allocated_procs : requested_procs; }
};

struct SwfLog {
  std::string path;
  std::vector<std::string> header; ///< the ';' lines, verbatim
  std::vector<SwfJob> jobs;
  int max_procs = 0;               ///< from "; MaxProcs:" when the header has it
};

/// Reads an SWF file; throws Error naming file, line and what was expected
/// (the field count, a negative submit or run time, a job with no processors).
/// Jobs whose run time is unknown (-1) or that were cancelled before starting
/// (status 5 with run time 0) are kept and flagged by run_s < 0 / == 0.
SwfLog read_swf(const std::string& path);
/// The same from text (for tests and fuzzing); `path` names it in errors.
SwfLog parse_swf(const std::string& text, const std::string& path);

} // namespace perfcast::sched

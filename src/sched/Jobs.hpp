#pragma once
// Rigid parallel jobs for the batch simulator, read from a Standard Workload
// Format log (with an optional sidecar adding what SWF has no field for) or
// from a JSON workload. Formats in docs/scheduling.md:
//   {"format": "perfcast-workload", "version": 1, "jobs": [{"id": 1,
//    "submit_s": 0, "procs": 4, "run_s": 600, "requested_s": 900, ...}]}
//   sidecar: {"format": "perfcast-swf-sidecar", "version": 1, "jobs":
//    {"17": {"memory_mb": 512, "read_bytes": 1e9, "instructions": 3e12}}}
// Resource keys (per process of the job, all optional): instructions,
// memory_mb, read_bytes, write_bytes, messages, message_bytes.
#include "sched/BatchSim.hpp"
#include "sched/ProcessSim.hpp"

#include <string>
#include <vector>

namespace perfcast::sched {

/// A workload file's contents: processes, or rigid jobs.
struct LoadedWorkload {
  bool rigid = false;
  std::vector<ProcessSpec> processes;
  std::vector<RigidJob> jobs;
  std::size_t skipped = 0; ///< SWF jobs left out: run time unknown (-1)
  std::string kind;        ///< "swf", "jobs", "processes"
};

/// Reads a workload of either kind, SWF chosen by content (not JSON).
LoadedWorkload load_any_workload(const std::string& path);
/// The same from text; `path` names it in errors.
LoadedWorkload parse_any_workload(const std::string& text, const std::string& path);

/// Adds a sidecar's resource use to the jobs it names; throws Error naming the
/// sidecar and the job number when a job is absent or a value invalid.
void apply_sidecar(std::vector<RigidJob>& jobs, const std::string& text, const std::string& path);

/// Checks that the computers can run the jobs: enough cores for each, memory
/// for a process, disk figures for disk use. Errors name the workload line.
void check_jobs_feasible(const std::vector<ComputerSpec>& computers, const std::vector<RigidJob>& jobs,
                         const std::string& workload_path);

} // namespace perfcast::sched

#pragma once
// What `perfcast schedule` answers: a workload of processes under a placement policy, or of rigid jobs under a
// batch policy, simulated on a platform's computers; per process or job its times, and their summaries.
#include "platform/Platform.hpp"
#include "sched/Jobs.hpp"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast::sched {

/// One process or job as the report shows it.
struct ScheduleRow {
  long long id = 0;
  std::string computer; ///< where it ran (a job: its first computer)
  int procs = 1;
  double arrival_s = 0, start_s = 0, finish_s = 0, response_s = 0, waiting_s = 0, slowdown = 0;
  int migrations = 0;
};

/// Mean and nearest-rank quantiles of one column.
struct ColumnSummary {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
ColumnSummary summarise(std::vector<double> values);

struct ScheduleOptions {
  std::string policy = "round-robin"; ///< a placement or a batch policy (perfcast list)
  std::string workload_name;          ///< the workload's file, for errors and the plot's title
  std::string sidecar_text;           ///< a sidecar's JSON adding resource use to rigid jobs ("" for none)
  std::string sidecar_name;
  std::uint64_t seed = 1;     ///< of the policy's random choices
  bool utilisation = false;   ///< draw busy cores over time (ScheduleReport::utilisation_svg)
  std::function<void(long long arrived, double simulated_s)> progress; ///< processes only
};

struct ScheduleReport {
  std::string policy;
  bool batch = false;         ///< rigid jobs under a batch policy, else processes
  std::size_t computers = 0;
  std::vector<ScheduleRow> rows;
  double makespan_s = 0;
  long long migrations = 0;   ///< processes
  std::size_t skipped = 0;    ///< jobs of unknown run time left out of an SWF log
  ColumnSummary response, waiting, slowdown;
  std::string utilisation_svg; ///< when asked

  /// {"policy", "processes" | "jobs", "makespan_s", "response_s", "waiting_s", "slowdown" ({"mean", "p50", "p90",
  /// "p99", "max"}), "migrations" | "skipped_unknown_run_time", "per_process" | "per_job" (with per_row)}
  nlohmann::json to_json(bool per_row) const;
  /// A headline, the summaries, and with per_row a row per process or job.
  std::string text(bool per_row) const;
};

/// Checks the policy against the workload's kind and the workload against the computers, then simulates.
/// Throws Error naming the workload (or the sidecar) and what was expected.
ScheduleReport schedule(const Platform& platform, LoadedWorkload workload, const ScheduleOptions& options);

} // namespace perfcast::sched

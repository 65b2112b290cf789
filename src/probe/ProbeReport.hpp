#pragma once
// What `perfcast probe` measured, as perfcast's platform JSON (one host with
// the figures the scheduling simulator reads) and as a figures document.
#include "platform/ThisMachine.hpp"
#include "probe/MachineProbes.hpp"

#include <nlohmann/json.hpp>
#include <optional>

namespace perfcast::probe {

/// Every figure of one probe run.
struct ProbeResult {
  MachineDescription machine;
  StoppingRule rule;
  CpuFigure cpu;
  MemoryInfo memory_info;
  std::optional<MemoryFigure> memory;
  std::optional<DiskFigure> disk;
  std::string disk_dir;
  double disk_file_bytes = 0;
  std::optional<NetFigure> net;
  double loopback_bytes_per_s = 0; ///< memcpy bandwidth, the loopback link's
  /// memory the machine handed back to its host during the rounds (free page
  /// reporting); unset when the machine does not report freed pages
  std::optional<double> page_reported_bytes;
  double seconds = 0;              ///< how long the interleaved rounds took
  double min_seconds = 0;          ///< the least time asked for
};

/// An estimate as {mean, sd, n, ci95: [low, high], converged}.
nlohmann::json estimate_json(const Estimate& e);

/// The figures with their statistics and notes (what `--json` prints).
nlohmann::json figures_json(const ProbeResult& r);

/// A perfcast platform with one host carrying the probed figures.
nlohmann::json probe_platform(const ProbeResult& r);

/// What a probe on a machine with free page reporting says of its memory levels.
std::string page_reporting_note(double reported_bytes);

/// One line per figure for people: mean, sd, n and the 95% interval.
std::string figures_text(const ProbeResult& r);

} // namespace perfcast::probe

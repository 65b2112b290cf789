#pragma once
// The speed of a target's processors, stated relative to the machine the runs
// were traced on (docs/forecast.md, "Speeds"). One rule converts every way of
// stating it: a host of the target runs the traced computation F times as fast,
//   F = (the target's rate on a benchmark) / (the traced machine's rate on it),
// and its speed in the traces' unit is F times the traced machine's rate. The
// benchmark is the tracer's own multiply-add mix for a `perfcast probe` file
// taken on the target (the probe times the same kernel), any named benchmark
// whose two rates the user gives, or none when F itself is given.
//
// The tracer converts each rank's CPU seconds to flops at the rate it measured
// at MPI_Init. Those measurements spread (a few percent from rank to rank and
// from run to run on one machine); a forecast takes the computation back to
// CPU seconds and carries it at one rate per traced host, the median of every
// measurement on that host, so that the spread is not read as load imbalance or
// scaling. What is left uncertain, how well that median is known, widens the
// band.
#include "platform/Platform.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

/// How fast some hosts of the target are.
struct SpeedRule {
  std::string hosts;       ///< the hosts' name prefix; "" for every host
  std::string how;         ///< what it came from, for the report
  double factor = 0;       ///< F, when given as a factor or by a benchmark's two rates
  double target_rate = 0;  ///< or the target's rate on the tracer's mix (a probe file), in `unit` per second
  std::string unit;        ///< of target_rate: "flops" or "instructions"
  double uncertainty = 0;  ///< relative half-width of a nominal 90% interval of F's source (a probe's spread)
};

/// `[PREFIX=]F`: the hosts run the traced computation F times as fast. Throws Error naming the flag.
SpeedRule speed_factor_rule(const std::string& text);
/// `[PREFIX=]NAME:TARGET:TRACED`: rates on a named benchmark, F = TARGET / TRACED. Throws Error naming the flag.
SpeedRule benchmark_rule(const std::string& text);
/// `[PREFIX=]FILE`: a `perfcast probe` platform file taken on a node of the target. Throws Error naming the file
/// when it is not one (another format, a platform without the probe's figures).
SpeedRule probe_rule(const std::string& text);

/// What the traces say of the rate their computation was counted at.
struct TracedRates {
  std::string unit;               ///< "flops" or "instructions"; "" when a trace has no tracer header
  std::string without_header;     ///< the first trace without one, when unit is ""
  double reference = 0;           ///< the traced machine's rate: the median of every rank's measurement
  std::vector<std::string> hosts; ///< the traced hosts, by name
  std::vector<double> host_rate;  ///< per host, the median of its ranks' measurements over every run
  double spread = 0;              ///< relative half-width of a nominal 90% interval of a run's rate (0: one run)
  std::vector<std::string> program; ///< per trace, the executable the tracer names ("" when none)
  /// per trace (as given), per rank: host rate / the rank's own rate (flops traces; empty otherwise)
  std::vector<std::vector<double>> compute_scale;
};

/// Reads the tracer's headers of every trace (perfcast trace directories); traces written elsewhere (SimGrid's
/// time-independent traces) leave the unit empty. `given_rate`, when positive, is the traced machine's rate
/// (`--traced-speed`): it replaces the headers' reference. Throws Error naming the trace when their units differ.
TracedRates traced_rates(const std::vector<std::string>& traces, double given_rate = 0);

/// The target as the rules describe it: each host matched by a rule (the longest prefix) gets F times the traced
/// rate; the others keep the platform's speed, read in the traces' unit. Throws Error when a rule matches no host,
/// or needs the traced rate and the traces do not give it.
struct TargetSpeeds {
  Platform platform;
  std::vector<double> factor;     ///< per host: F (0 where no rule applied and the traced rate is unknown)
  double uncertainty = 0;         ///< the largest relative 90% half-width of any host's F
  std::vector<std::string> notes; ///< how each rule and the traced rate were read
  /// {"unit", "traced_rate", "spread", "uncertainty", "rules": [{"hosts", "how", "factor", "speed", "matched"}]}
  nlohmann::json report;
};
TargetSpeeds apply_speeds(const Platform& target, const std::vector<SpeedRule>& rules, const TracedRates& traced);

} // namespace perfcast

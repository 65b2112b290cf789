#pragma once
// What `perfcast lb sweep` shows: the table of configurations, the best one,
// JSON, and the two plots of Tesser et al. 2016, Figure 7 (makespan against
// the balancing period, and against the over-decomposition level).
#include "lb/Sweep.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace perfcast::lb {

/// The results as a table, one configuration per line, then the best configuration.
std::string format_sweep(const std::vector<SweepResult>& results);
/// The results as JSON: `configurations` (one object per row) and `best`.
nlohmann::json sweep_json(const std::vector<SweepResult>& results);
/// Makespan against the balancing period, one line per balancer, at the best configuration's VP level and cores.
std::string sweep_periods_svg(const std::vector<SweepResult>& results, const std::string& subtitle);
/// Makespan against the number of VPs, one line per balancer, at the best configuration's period and cores.
std::string sweep_levels_svg(const std::vector<SweepResult>& results, const std::string& subtitle);

} // namespace perfcast::lb

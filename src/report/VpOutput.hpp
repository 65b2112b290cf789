#pragma once
// What `perfcast lb replay` shows: an over-decomposed replay with balancing
// against the same replay without, as a table or JSON, and the average load
// over time (Tesser et al. 2016, Figure 6c).
#include "platform/Platform.hpp"
#include "sim/OverDecomposed.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace perfcast {

/// The settings a VP replay ran with, as the user named them.
struct VpRunLabels {
  std::string trace;
  std::string balancer;
  int period = 0;
  std::string mapping;
};

/// The comparison as a table: makespans, speedup, migrations, per-core compute.
std::string format_vp_comparison(const VpReport& balanced, const VpReport& unbalanced, const Platform& platform,
                                 const VpRunLabels& labels);
/// The comparison as JSON (documented in docs/lb.md).
nlohmann::json vp_comparison_json(const VpReport& balanced, const VpReport& unbalanced, const Platform& platform,
                                  const VpRunLabels& labels);
/// (time, share of the cores computing) per bin of the core timeline, up to the makespan.
std::vector<std::pair<double, double>> average_load_curve(const VpReport& report);

} // namespace perfcast

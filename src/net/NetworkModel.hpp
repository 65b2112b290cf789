#pragma once
// Network models behind one interface. A model is a small simulator of its own:
// the replay engine starts transfers, asks when the next one ends, and advances
// the model's clock to that time.
#include "platform/Platform.hpp"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

/// Parameters of the contention-free LogGP model; negative means "from the platform".
struct LogGpParams {
  double latency_s = -1;      ///< L; default: the route's latency
  double overhead_s = 0;      ///< o, paid once by sender and once by receiver
  double gap_per_byte_s = -1; ///< G; default: 1 / the route's smallest bandwidth
};

struct NetworkOptions {
  LogGpParams loggp;
  bool crosstraffic = true;   ///< smpi: each flow also loads its reverse route with weight 0.05
  bool solution_cache = true; ///< smpi: reuse the sharing of a configuration of flows seen before
  /// smpi: while one link is every active flow's bottleneck, advance their progress by one clock of that link
  /// instead of re-solving and rescheduling each route (docs/replay.md, "Large traces")
  bool bottleneck_clock = true;
  /// smpi: re-solve only what a change reaches through saturated links (docs/replay.md, "Large traces")
  bool loose_links = true;
};

/// What a model did, for tests and benchmarks; a model that does not count leaves them 0.
struct NetworkCounters {
  std::uint64_t solves = 0;      ///< smpi: max-min solves of one or more components
  std::uint64_t clock_steps = 0; ///< smpi: changes absorbed by the bottleneck clock instead of a solve
  std::uint64_t part_solves = 0; ///< smpi: solves kept to what a change reaches through saturated links
};

class NetworkModel {
public:
  virtual ~NetworkModel() = default;
  /// Starts a transfer of `bytes` (envelope included) at time `now`; returns its id.
  virtual std::uint32_t start(int src_host, int dst_host, double bytes, double now) = 0;
  /// Time at which the next transfer ends, or kNever.
  virtual double next_completion() = 0;
  /// Advances to time t (at most next_completion()) and appends the transfers ending at t.
  virtual void advance(double t, std::vector<std::uint32_t>& completed) = 0;
  virtual std::string_view name() const = 0;
  virtual NetworkCounters counters() const { return {}; }
};

/// Names of the available models, with a one-line description each.
std::vector<std::pair<std::string, std::string>> network_model_names();
/// Throws Error ("--net: unknown network model 'x' (expected one of: ...)") unless `name` is a network model.
void check_network_model_name(const std::string& name);
/// Builds a model by name ("smpi", "loggp"); throws Error for an unknown name.
std::unique_ptr<NetworkModel> make_network_model(const std::string& name, const Platform& platform,
                                                 const NetworkOptions& options);

std::unique_ptr<NetworkModel> make_smpi_network(const Platform& platform, const NetworkOptions& options);
std::unique_ptr<NetworkModel> make_loggp_network(const Platform& platform, const NetworkOptions& options);

} // namespace perfcast

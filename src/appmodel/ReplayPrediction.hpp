#pragma once
// Prediction by replay (docs/extrapolation.md): the application model's trace
// at each target count streamed into the replay, rank by rank, without a file,
// on the target platform and placement; the band is the two replays with every
// law at the low and at the high end of its forward-validation error.
#include "appmodel/AppModel.hpp"
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "sim/Replay.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

/// A band wider than this share of the prediction (either side) is a warning beside it.
inline constexpr double kWideBand = 0.2;

struct ReplayPrediction {
  int procs = 0;
  std::string grid;
  double predicted_s = 0;
  double low_s = 0, high_s = 0; ///< the band: replays with the laws at their low and high ends
  std::string method = "extrapolated-replay";
  std::vector<std::string> warnings; ///< laws held at zero at this count, a band wider than kWideBand
  ReplayReport report; ///< the central replay: per rank, phases, timeline
};

struct ReplayPredictions {
  std::vector<ReplayPrediction> rows;
  std::vector<std::string> notes; ///< the model's, printed with every prediction
  /// {"predictions": [{"procs", "predicted_s", "band_s": [low, high], "method", "grid", "actions", "warnings"}],
  /// "notes"}
  nlohmann::json to_json() const;
  /// A table, a row per count, and how it was made.
  std::string text() const;
  /// The warnings that go with it (each row's, then the model's notes), for stderr; without a "warning: " prefix.
  std::vector<std::string> warnings() const;
};

/// The placement a spec names for `ranks` ranks: "spread" (round-robin over the hosts), "pack" (fill each host's
/// cores in order), a hostfile, or place_by_policy's names.
Placement placement_for(const Platform& platform, const std::string& spec, int ranks);

/// Replays the model at each count; throws Error for a count it cannot be taken to.
ReplayPredictions predict_by_replay(const AppModel& model, const std::vector<int>& procs, const Platform& platform,
                                    const std::string& placement, const ReplayOptions& options);

} // namespace perfcast

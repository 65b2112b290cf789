#pragma once
// Questions asked of a fitted queueing model: how the run time scales with the
// process count, where adding processes stops paying, which servers of a pool
// to group, and how accurate the model is under leave-one-out.
#include "qn/QueueingModel.hpp"

#include <nlohmann/json.hpp>
#include <optional>

#include <string>
#include <vector>

namespace perfcast {

/// Parses "2..64" (every count), "2..64:x2" (doubling), "4..64:+4" (step) or "2,4,8".
std::vector<int> parse_proc_counts(const std::string& text);

/// Host counts for n processes: "spread" (round-robin over hosts), "pack"
/// (fill each host's cores in order), or a hostfile path (rank i on line i).
HostCounts place_processes(const Platform& platform, const std::string& policy, int procs);

struct SweepPoint {
  Prediction queueing;
  double amdahl_s = 0;
  double speedup = 0; ///< time at the first count over time at this one
};

std::vector<SweepPoint> sweep(const QueueingModel& model, const AmdahlModel& amdahl, const Platform& platform,
                              const std::string& policy, const std::vector<int>& procs);

/// First count after which the next one shortens the run by less than
/// `threshold` (0.05 = 5%); the last count when every step pays.
int turning_point(const std::vector<SweepPoint>& points, double threshold);

struct GroupChoice {
  std::vector<std::string> hosts;
  HostCounts placement;
  double time_s = 0;
  bool exhaustive = true; ///< every group tried (else greedy)
};

/// The k servers of the platform that run n processes fastest, processes
/// spread over them in proportion to their cores.
GroupChoice best_group(const QueueingModel& model, const Platform& platform, int servers, int procs);

struct Accuracy {
  std::string model;
  double accuracy_percent = 0; ///< 100 - MAPE, at least 0
  double cv = 0;               ///< coefficient of variation: RMSE over the mean measured time
  std::vector<double> predicted_s;
};

/// Leave-one-out over the runs for the queueing model and the Amdahl baseline.
std::vector<Accuracy> leave_one_out(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                    ModelVariant variant = ModelVariant{});

/// Fit on the runs at the smallest process counts, predict the others: how
/// the models fare when asked what they are used for.
struct Extrapolation {
  int largest_training_procs = 0;        ///< training runs have at most this many processes
  std::vector<MeasuredRun> tested;       ///< the runs predicted
  std::vector<Accuracy> accuracy;        ///< queueing-network, then amdahl, over `tested`
};

/// Trains on the smaller half of the distinct process counts (at least two)
/// and tests on the rest; throws Error with fewer than three distinct counts.
Extrapolation extrapolation_check(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                  ModelVariant variant = ModelVariant{});

/// What `perfcast compare` answers: leave-one-out over the runs, then the extrapolation check when the runs
/// allow one (else why not).
struct ModelComparison {
  std::vector<MeasuredRun> runs;
  std::vector<Accuracy> leave_one_out;       ///< queueing-network, then amdahl
  std::optional<Extrapolation> extrapolation;
  std::string no_extrapolation;              ///< why there is none
  /// {"leave_one_out": [{"model", "accuracy_percent", "cv", "predicted_s"}], "extrapolation":
  /// {"largest_training_procs", "tested": [{"procs", "measured_s", "source"}], "accuracy": [...]} or {"skipped"}}
  nlohmann::json to_json() const;
  std::string text() const;
};
ModelComparison compare_models(const std::vector<MeasuredRun>& runs, const Platform& platform);

/// Relative error above which a validated queueing model is still called a guess.
inline constexpr double kTrustedError = 0.15;

/// One held-out check: the mean relative errors of both models on the runs it held out.
struct HeldOutCheck {
  double queueing_error = 0;
  double amdahl_error = 0;
};

/// Whether Amdahl's law is recommended over the queueing model after the
/// distinct held-out checks: only when the queueing model failed (its mean
/// error passes kTrustedError), Amdahl's law passed (its mean error within
/// kTrustedError) and did better by more than two standard errors of the
/// paired differences (with a single check, by any amount); a structural
/// model is not dropped on a difference the checks' own spread explains,
/// nor for a fallback that failed too.
bool amdahl_clearly_better(const std::vector<HeldOutCheck>& checks);

/// Validates the queueing model and Amdahl's law on runs held out of their
/// fit (the extrapolation check and leave-one-out, whichever the runs allow):
/// the queueing model is trusted when it missed by at most kTrustedError;
/// Amdahl's law is recommended when amdahl_clearly_better; otherwise the
/// warning says the queueing model is a guess.
Reliability assess_reliability(const std::vector<MeasuredRun>& runs, const Platform& platform,
                               ModelVariant variant = ModelVariant{});

/// An error band past this (a prediction possibly less than 60% accurate) is printed as a warning.
inline constexpr double kWarnedBand = 0.4;
/// The distance between a grid's two readings (periodic or not) past which a prediction names both.
inline constexpr double kUntoldGridNote = 0.05;

/// The relative error band of a prediction at `procs` processes by one model
/// (Amdahl's when `amdahl`): its held-out error, widened past the largest
/// training count by the "next count" error once per step as long as the
/// step that check took (log procs/next_to over log next_to/next_from); -1
/// when the model was never checked.
double prediction_band(const Reliability& rel, bool amdahl, int procs);

/// Why a prediction at `procs` processes is a guess, or "" when it is not:
/// its band (prediction_band of the recommended model, Amdahl's when
/// `amdahl`) passes kWarnedBand, or the two models disagree by more than
/// kWarnedBand of the recommended time (the runs cannot tell which
/// extrapolation holds, so the recommended one may be that far off).
std::string prediction_warning(const Reliability& rel, bool amdahl, int procs, double queueing_s, double amdahl_s);

/// The queueing model's own terms of a prediction's band at a placement: Net_Constant's relative uncertainty
/// times the network's share of the predicted time (`network`), past the largest training count the
/// relative change of the prediction when the inputs fitted through points that go up and down are held at
/// their values there (`held`), the share of the traffic in grid classes never seen (`unseen`), and, for a grid
/// the training runs cannot tell wrapping or not (QueueingModel::grid_wrapped), the relative distance of the
/// periodic reading's prediction (`wrap`).
struct BandTerms {
  double network = 0, held = 0;
  double wrap = 0;
  double if_periodic_s = -1; ///< the periodic reading's predicted time; -1 without one
  double network_share = 0, net_constant_uncertainty = 0;
  /// the share of the run's bytes or messages (the larger) in grid offsets the training grids never had, taken
  /// as the seen neighbour classes' median (GridClasses::unseen): added to the band; and their names
  double unseen = 0;
  std::vector<std::string> unseen_classes;
};
BandTerms model_band_terms(const QueueingModel& model, const Platform& platform, const HostCounts& placement);

/// The point-to-point structure a model uses at n processes: "2-D grid, 4 classes; 8x8 at 64, 2 unseen: (+1,+1),
/// ...", "3-D halo exchange", "no process grid (curves in n)". Throws Error when a grid file names no grid for n.
std::string structure_at(const QueueingModel& model, int procs);

/// The collectives a model expands at n processes: "allreduce 304, allgather 3 calls a rank, expanded by the
/// replay's default algorithms: 1,234 messages a rank at 64"; "" when it expands none.
std::string collectives_at(const QueueingModel& model, int procs);

/// prediction_band, and for the queueing model at least its own terms (model_band_terms of the placement;
/// plus the unseen classes' share;
/// the second form takes them computed once, as a sweep does for both band and warning).
double prediction_band(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                       bool amdahl, int procs);
double prediction_band(const Reliability& rel, const BandTerms& terms, bool amdahl, int procs);

/// prediction_warning, and also when the queueing model's own terms pass kWarnedBand; a periodic reading more
/// than kUntoldGridNote away is named beside whatever else it says.
std::string prediction_warning(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                               bool amdahl, int procs, double queueing_s, double amdahl_s);
std::string prediction_warning(const QueueingModel& model, const BandTerms& terms, bool amdahl, int procs,
                               double queueing_s, double amdahl_s);

/// Accuracy of given predictions against runs (100 - MAPE and CV).
Accuracy score(const std::string& name, const std::vector<double>& predicted, const std::vector<MeasuredRun>& runs);

} // namespace perfcast

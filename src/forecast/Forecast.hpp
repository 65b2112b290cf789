#pragma once
// A forecast from a program's runs at a few process counts to larger counts on
// a target platform (docs/forecast.md). The runs are traces; each is replayed on
// the target, which moves it there exactly, so every method only has to carry
// the time from the traced counts to the target's. Three methods are learned:
// the extrapolated trace replayed (src/appmodel), the queueing network and
// Amdahl's law (src/qn), the latter two fitted on those replays. Each is
// scored by forward validation: learned without the largest count, it predicts
// that count, and the replay of its real trace is the truth. The method
// validated best answers; its band is its validation error compounded over
// the doublings from the largest traced count to the target, joined with the
// extrapolated replay's own band when that method answers.
#include "forecast/Speeds.hpp"
#include "platform/Platform.hpp"
#include "sim/Replay.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

/// A validated error above this is printed as a warning beside each prediction.
inline constexpr double kForecastTrustedError = 0.15;

/// The band is nominally a 90% interval. A method's validation error per doubling is one draw of its error; taken
/// as the median absolute value of a normal error, the 90% interval is z(0.95) / z(0.75) = 1.6449 / 0.6745 times
/// it per doubling.
inline constexpr double kBandScale = 1.6448536 / 0.6744898;

struct ForecastOptions {
  std::vector<int> procs;               ///< target counts
  std::string placement = "spread";     ///< spread, pack or a hostfile (placement_for)
  ReplayOptions replay;                 ///< network model and its options, for every replay
  std::vector<std::string> checks;      ///< traces at target counts: replayed on the target and scored
  std::vector<SpeedRule> speeds;        ///< the target's hosts relative to the traced machine (Speeds.hpp)
  double traced_speed = 0;              ///< the traced machine's rate, for traces without the tracer's header
  /// called with a line of progress now and then; may be empty
  std::function<void(const std::string&)> progress;
};

/// One training run: its trace replayed on the target.
struct ForecastRun {
  std::string trace;
  int procs = 0;
  double replay_s = 0;
};

/// One forward validation: a method learned on the smaller runs predicts a larger one.
struct ValidationCheck {
  std::vector<int> learned_on;    ///< the counts it learned on (the application model: its laws)
  int procs = 0;                  ///< the run predicted
  double predicted_s = 0, truth_s = 0, error = 0; ///< its prediction, the run's replay, the relative error
  double rate = 0;                ///< the error per doubling of the processes: (1 + error)^(1 / doublings) - 1
};

/// One method's learning, validation and predictions.
struct ForecastMethod {
  std::string name;               ///< "extrapolated-replay", "queueing-network", "amdahl"
  bool applicable = false;        ///< learned on every run
  std::string why_not;            ///< why it was not, when not
  bool validated = false;         ///< the forward validation on the largest run ran
  std::string validation_note;    ///< why it did not, or what it learned on
  int validation_procs = 0;       ///< the count held out
  double validation_predicted_s = 0, validation_error = 0; ///< its prediction there and its relative error
  /// every forward validation the runs allow (each prefix of the counts with as many as the method needs, predicting
  /// every larger run)
  std::vector<ValidationCheck> checks;
  double rate = 0;                ///< the largest error per doubling among the checks: what the answer and band use
  std::vector<double> predicted_s; ///< per target count; 0 where the method gives no time
  std::vector<std::pair<double, double>> band_s; ///< the extrapolated replay's own band per count; empty otherwise
  std::vector<std::vector<std::string>> warnings; ///< per target count (the extrapolated replay's)
};

struct ForecastRow {
  int procs = 0;
  double predicted_s = 0, low_s = 0, high_s = 0;
  std::string method;
  std::vector<std::string> warnings;
  std::optional<double> check_s; ///< the replay of a given trace at this count
};

struct Forecast {
  std::string platform;            ///< its file, as given
  std::string placement;
  std::vector<ForecastRun> runs;   ///< by process count
  std::vector<ForecastMethod> methods;
  std::string recommended;         ///< a method's name
  std::string why;                 ///< one sentence: the validation that chose it
  std::vector<ForecastRow> rows;   ///< per target count
  std::vector<std::string> notes;  ///< the application model's and the forecast's, printed once
  nlohmann::json speeds;           ///< how the target's speeds were read (TargetSpeeds::report)
  double speed_uncertainty = 0;    ///< relative 90% half-width of the speeds' conversion, in every band
  /// {"predictions": [{"procs", "predicted_s", "band_s", "method", "warnings", "check_s"?}], "recommended", "why",
  /// "methods": [...], "runs": [...], "speeds", "notes"}
  nlohmann::json to_json() const;
  /// A table of the answer, then each method's validation and predictions, then the notes.
  std::string text() const;
  /// The rows' warnings, grouped over the counts they hold at, for stderr; without a "warning: " prefix.
  std::vector<std::string> warnings() const;
  /// Time against processes, log2: the runs, every method's curve, the answer's band, the warnings.
  std::string svg() const;
};

/// Learns, validates and predicts; throws Error naming the trace when the runs are not one program at several
/// counts (fewer than two counts, two runs at one count, a target below the largest run).
Forecast forecast(const std::vector<std::string>& traces, const Platform& platform, const std::string& platform_name,
                  const ForecastOptions& options);

/// Whether a method was learned and gives a time at every target count.
bool gives_times(const ForecastMethod& m);

/// The forecast's rows when methods[answer] answers, the largest run at `largest` processes: its predictions, the
/// band (validated_band with kBandScale times its rate, joined with its own band, and reaching every method validated
/// better), and the warnings beside them.
std::vector<ForecastRow> answer_rows(const std::vector<ForecastMethod>& methods, std::size_t answer, int largest,
                                     const std::vector<int>& procs);

/// The band of a prediction t at n processes from an error per doubling of the processes `rate`, validated on the
/// runs up to `largest`: t / f to t * f with f = (1 + rate)^d, d the doublings from `largest` to n (0 at or below
/// it). Never below zero.
std::pair<double, double> validated_band(double t, double rate, int largest, int n);

} // namespace perfcast

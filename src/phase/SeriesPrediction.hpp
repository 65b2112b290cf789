#pragma once
// `perfcast phases predict` as a library call: a series written by `phases run` (its run log and kept
// profiles), a kernel database, and a target size give the run's forecast (PhasePredictor), the paper's eq. 1
// on the sizes as given beside it when the sizes are counted in points, and, when a run at the target was
// measured (`phases measure`), the errors against it. The result prints as a table, as JSON and as an SVG.
#include "phase/PhasePredictor.hpp"
#include "phase/PhaseRunner.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace perfcast::phase {

struct SeriesPredictionOptions {
  std::string dir;      ///< the series: phases.json and its profiles
  std::string kernels;  ///< the kernel database
  std::string measured; ///< a series holding a run at the target size, or empty
  double size = 0;      ///< the target size
  double threshold = 0.7;
  int max_phases = 4;
  int run = 0;      ///< 0: the kept run of each size; k: the k-th repeat
  int size_dim = 0; ///< 0: eq. 1 on the sizes as given (the paper's); D: the application's size is D-dimensional
  std::string choice = "within-spread"; ///< or best-score
};

/// The run a prediction is checked against: seconds per rank of the run and of each phase.
struct MeasuredTarget {
  double total_s = 0;
  std::map<std::string, double> phase_s;
};

struct SeriesPrediction {
  SeriesPredictionOptions options;
  PhaseRunLog log;
  std::vector<SizeRun> runs;       ///< the used small sizes
  std::vector<double> spreads;     ///< of each used size's repeats
  RunForecast forecast;
  std::optional<RunForecast> paper; ///< eq. 1 on the sizes as given, when --size-dim counted points
  std::string paper_error;          ///< why the paper's prediction failed, when it did
  std::optional<MeasuredTarget> measured;

  nlohmann::json to_json() const;
  void print_table(std::ostream& out) const; ///< without the warnings
  std::string svg() const;                    ///< measured phases and the run, and the predicted
  const std::vector<std::string>& warnings() const { return forecast.warnings; }
};

/// Throws perfcast::Error naming the file and what was expected when the series, the database or the measured
/// run cannot be read or do not fit together.
SeriesPrediction predict_series(const SeriesPredictionOptions& options);

/// The measured run at `size` in the series `dir`, each phase at its own median over the repeats.
MeasuredTarget load_measured_target(const std::string& dir, double size, const std::vector<std::string>& phases);

} // namespace perfcast::phase

#pragma once
// What `perfcast predict` answers with a fitted queueing model: per count the
// queueing network's time, Amdahl's law's, the recommended one with its band
// and the warning that calls it a guess, the structure and inputs the network
// used; the turning point and optionally the best group of servers. Its table,
// JSON and SVG are here; the command line only prints them.
#include "qn/MeasuredRun.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/Study.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfcast {

struct QueueingPredictionOptions {
  std::string placement = "spread"; ///< spread, pack or a hostfile (place_processes)
  double threshold = 0.05;          ///< the turning point's smallest gain worth a step
  int best_group = 0;               ///< name the best K servers (0: not asked)
  int group_procs = 0;              ///< for that many processes (0: the largest count)
  std::vector<MeasuredRun> measured; ///< drawn as points on the chart
  std::string model_name, platform_name; ///< their files as given, for messages and the chart
};

struct QueueingPredictionRow {
  SweepPoint point;
  double recommended_s = 0;
  double band = -1;       ///< relative half-width of the recommended time's band; -1 when unknown
  std::string warning;    ///< why this prediction is a guess, when it is
  std::string structure, collectives;
  nlohmann::json inputs;  ///< the communication inputs the network used here
  std::vector<std::string> unseen_classes;
  std::optional<double> if_periodic_s; ///< the grid's periodic reading, when the runs cannot rule it out
};

struct QueueingPredictions {
  std::vector<QueueingPredictionRow> rows;
  bool use_amdahl = false;  ///< Amdahl's law recommended (the held-out checks clearly favour it)
  int turning_point = 0;
  double threshold = 0.05;
  std::vector<std::string> model_warnings;
  Reliability reliability;
  std::optional<GroupChoice> group;
  int group_size = 0, group_procs = 0;
  std::string structure, collectives; ///< at the largest count, for the table's head ("" without them)
  std::vector<double> counts;
  std::vector<MeasuredRun> measured;
  std::string placement, model_name, platform_name;
  /// Warnings in the order they are printed (each without "warning: " and the model's name).
  std::vector<std::string> warnings;
  nlohmann::json to_json() const;
  std::string text() const;
  std::string svg() const;
};

/// The model's predictions at each count; throws Error naming what a count or placement lacks.
QueueingPredictions predict_queueing(const QueueingModel& model, const AmdahlModel& amdahl, const Platform& platform,
                                     const std::vector<int>& procs, const QueueingPredictionOptions& options);

/// The model's communication inputs at n as the network uses them: messages per process s(n), the bytes a run
/// sends n s(n) m(n), the busiest receiver's share, SMPI's factors.
nlohmann::json model_inputs_at(const QueueingModel& model, int n);

} // namespace perfcast

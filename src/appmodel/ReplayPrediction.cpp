#include "appmodel/ReplayPrediction.hpp"

#include "appmodel/Extrapolate.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

namespace perfcast {

Placement placement_for(const Platform& platform, const std::string& spec, int ranks)
{
  if (spec == "spread")
    return place_by_policy(platform, "round-robin", ranks);
  if (spec == "pack")
    return place_by_policy(platform, "block", ranks);
  std::error_code ec;
  if (std::filesystem::is_regular_file(spec, ec))
    return place_by_hostfile(platform, spec, ranks);
  return place_by_policy(platform, spec, ranks);
}

namespace {

double replay_plan(const ExtrapolationPlan& plan, const Platform& platform, const Placement& placement,
                   const ReplayOptions& base, ReplayReport* report)
{
  ReplayOptions options = base;
  options.rank_source = [&plan](int rank) -> std::unique_ptr<ActionStream> {
    return std::make_unique<RankGenerator>(plan, rank);
  };
  TraceIndex index;
  index.index_path = fmt::format("(the application model at {} processes)", plan.procs());
  index.world_size = plan.procs();
  ReplayReport r = replay_trace(index, platform, placement, options);
  double t = r.makespan_s;
  if (report)
    *report = std::move(r);
  return t;
}

double largest_error(const std::vector<ModelNode>& nodes)
{
  double e = 0;
  for (const ModelNode& n : nodes) {
    e = std::max({e, n.iterations.error, n.value.error, n.bytes.error, n.recv_bytes.error, n.peer_bytes.error});
    if (n.one_rank)
      e = std::max({e, n.one_rank->value.error, n.one_rank->bytes.error, n.one_rank->recv_bytes.error,
                    n.one_rank->peer_bytes.error});
    e = std::max(e, largest_error(n.body));
  }
  return e;
}

} // namespace

ReplayPredictions predict_by_replay(const AppModel& model, const std::vector<int>& procs, const Platform& platform,
                                    const std::string& placement, const ReplayOptions& options)
{
  ReplayPredictions out;
  out.notes = model.notes;
  for (int n : procs) {
    throw_if_interrupted();
    ExtrapolationPlan central(model, n), low(model, n, -1), high(model, n, 1);
    Placement where = placement_for(platform, placement, n);
    ReplayPrediction p;
    p.procs = n;
    p.grid = central.grid().describe();
    p.predicted_s = replay_plan(central, platform, where, options, &p.report);
    ReplayOptions quiet = options;
    quiet.record_timeline = false;
    quiet.progress = {};
    // laws without error give the band no width: the two replays are the central one
    bool uncertain = largest_error(model.body) > 0;
    double a = uncertain ? replay_plan(low, platform, where, quiet, nullptr) : p.predicted_s;
    double b = uncertain ? replay_plan(high, platform, where, quiet, nullptr) : p.predicted_s;
    p.low_s = std::min({a, b, p.predicted_s});
    p.high_s = std::max({a, b, p.predicted_s});
    for (const std::string& c : central.clamped())
      p.warnings.push_back(c + " fell below zero at this count and is held at zero");
    // a wide band is said beside the number: the laws forecast their own training counts poorly
    double half = p.predicted_s > 0 ? (p.high_s - p.low_s) / (2 * p.predicted_s) : 0;
    if (half > kWideBand)
      p.warnings.push_back(fmt::format("the band is +-{:.0f}% of the prediction: the model's laws forecast the "
                                       "larger training counts from the smaller ones that poorly",
                                       100 * half));
    out.rows.push_back(std::move(p));
  }
  return out;
}

nlohmann::json ReplayPredictions::to_json() const
{
  nlohmann::json rows_json = nlohmann::json::array();
  for (const ReplayPrediction& p : rows)
    rows_json.push_back({{"procs", p.procs},
                         {"predicted_s", p.predicted_s},
                         {"band_s", {p.low_s, p.high_s}},
                         {"method", p.method},
                         {"grid", p.grid},
                         {"actions", p.report.actions},
                         {"warnings", p.warnings}});
  return nlohmann::json{{"predictions", rows_json}, {"notes", notes}};
}

std::string ReplayPredictions::text() const
{
  std::string s = fmt::format("{:>8} {:>12} {:>12} {:>12}  {}\n", "procs", "predicted_s", "low_s", "high_s", "grid");
  for (const ReplayPrediction& p : rows)
    s += fmt::format("{:>8} {:>12.6g} {:>12.6g} {:>12.6g}  {}\n", p.procs, p.predicted_s, p.low_s, p.high_s, p.grid);
  s += "(extrapolated replay: the model's trace at each count replayed; the band replays every law at the ends of "
       "its forward-validation error)\n";
  return s;
}

std::vector<std::string> ReplayPredictions::warnings() const
{
  std::vector<std::string> out;
  for (const ReplayPrediction& p : rows)
    for (const std::string& w : p.warnings)
      out.push_back(fmt::format("at {} processes: {}", p.procs, w));
  out.insert(out.end(), notes.begin(), notes.end());
  return out;
}

} // namespace perfcast

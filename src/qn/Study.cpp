#include "qn/Study.hpp"

#include "core/Error.hpp"
#include "core/Units.hpp"
#include "platform/Placement.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace perfcast {

std::vector<int> parse_proc_counts(const std::string& text)
{
  auto bad = [&] {
    return Error(fmt::format("--procs '{}': expected A..B, A..B:x2, A..B:+STEP or a list A,B,C of positive counts",
                             text));
  };
  // every count is a model evaluation: a list longer than this is a typo, not a sweep
  constexpr std::size_t kMaxCounts = 10000;
  auto too_many = [&] {
    return Error(fmt::format("--procs '{}': more than {} process counts (expected a shorter range or a step such as "
                             ":x2)",
                             text, kMaxCounts));
  };
  std::vector<int> out;
  auto as_int = [&](const std::string& s) {
    auto v = parse_number(s);
    if (!v || *v < 1 || *v > 1e7 || *v != std::floor(*v))
      throw bad();
    return static_cast<int>(*v);
  };
  auto dots = text.find("..");
  if (dots == std::string::npos) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      auto comma = text.find(',', pos);
      out.push_back(as_int(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
      if (out.size() > kMaxCounts)
        throw too_many();
      if (comma == std::string::npos)
        break;
      pos = comma + 1;
    }
    return out;
  }
  int a = as_int(text.substr(0, dots));
  std::string rest = text.substr(dots + 2);
  auto colon = rest.find(':');
  int b = as_int(rest.substr(0, colon));
  if (b < a)
    throw bad();
  if (colon == std::string::npos) {
    if (static_cast<std::size_t>(b - a) >= kMaxCounts)
      throw too_many();
    for (int n = a; n <= b; ++n)
      out.push_back(n);
    return out;
  }
  std::string step = rest.substr(colon + 1);
  if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
    throw bad();
  int k = as_int(step.substr(1));
  if (step[0] == 'x' && k < 2)
    throw bad();
  for (long long n = a; n <= b; n = step[0] == 'x' ? n * k : n + k) {
    out.push_back(static_cast<int>(n));
    if (out.size() > kMaxCounts)
      throw too_many();
  }
  return out;
}

HostCounts place_processes(const Platform& platform, const std::string& policy, int procs)
{
  Placement placement;
  if (policy == "spread")
    placement = place_by_policy(platform, "round-robin", procs);
  else if (policy == "pack")
    placement = place_by_policy(platform, "block", procs);
  else if (std::filesystem::exists(policy))
    placement = place_by_hostfile(platform, policy, procs);
  else
    throw Error(fmt::format("--placement '{}': expected spread, pack or an existing hostfile", policy));
  HostCounts counts;
  for (int h : placement)
    ++counts[h];
  return counts;
}

std::vector<SweepPoint> sweep(const QueueingModel& model, const AmdahlModel& amdahl, const Platform& platform,
                              const std::string& policy, const std::vector<int>& procs)
{
  std::vector<SweepPoint> points;
  for (int n : procs) {
    SweepPoint p;
    p.queueing = predict_run_time(model, platform, place_processes(platform, policy, n));
    p.amdahl_s = amdahl.predict(n);
    points.push_back(p);
  }
  for (SweepPoint& p : points)
    p.speedup = points.front().queueing.time_s / p.queueing.time_s;
  return points;
}

int turning_point(const std::vector<SweepPoint>& points, double threshold)
{
  for (std::size_t i = 0; i + 1 < points.size(); ++i)
    if (points[i + 1].queueing.time_s > (1 - threshold) * points[i].queueing.time_s)
      return points[i].queueing.procs;
  return points.empty() ? 0 : points.back().queueing.procs;
}

namespace {

// n processes over the given hosts in proportion to their cores (largest remainder)
HostCounts proportional(const Platform& platform, const std::vector<int>& hosts, int procs)
{
  double cores = 0;
  for (int h : hosts)
    cores += platform.hosts()[static_cast<std::size_t>(h)].cores;
  HostCounts counts;
  std::vector<std::pair<double, int>> remainder;
  int placed = 0;
  for (int h : hosts) {
    double share = procs * platform.hosts()[static_cast<std::size_t>(h)].cores / cores;
    int whole = static_cast<int>(std::floor(share));
    if (whole > 0)
      counts[h] = whole;
    placed += whole;
    remainder.emplace_back(-(share - whole), h);
  }
  std::sort(remainder.begin(), remainder.end());
  for (std::size_t i = 0; placed < procs; ++i, ++placed)
    ++counts[remainder[i % remainder.size()].second];
  return counts;
}

} // namespace

GroupChoice best_group(const QueueingModel& model, const Platform& platform, int servers, int procs)
{
  int H = static_cast<int>(platform.hosts().size());
  if (servers < 1 || servers > H)
    throw Error(fmt::format("--best-group {}: the platform has {} hosts", servers, H));
  GroupChoice best;
  best.time_s = std::numeric_limits<double>::infinity();
  auto consider = [&](const std::vector<int>& group) {
    HostCounts pl = proportional(platform, group, procs);
    double t = predict_run_time(model, platform, pl).time_s;
    if (t < best.time_s) {
      best.time_s = t;
      best.placement = pl;
      best.hosts.clear();
      for (int h : group)
        best.hosts.push_back(platform.hosts()[static_cast<std::size_t>(h)].name);
    }
  };
  // exhaustive when the number of groups is small, else greedy growth
  double groups = 1;
  for (int i = 0; i < servers; ++i)
    groups = groups * (H - i) / (i + 1);
  if (groups <= 5000) {
    std::vector<int> pick(static_cast<std::size_t>(servers));
    for (int i = 0; i < servers; ++i)
      pick[static_cast<std::size_t>(i)] = i;
    for (;;) {
      consider(pick);
      int i = servers - 1;
      while (i >= 0 && pick[static_cast<std::size_t>(i)] == H - servers + i)
        --i;
      if (i < 0)
        break;
      ++pick[static_cast<std::size_t>(i)];
      for (int j = i + 1; j < servers; ++j)
        pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
    }
    return best;
  }
  best.exhaustive = false;
  std::vector<int> group;
  for (int k = 0; k < servers; ++k) {
    int chosen = -1;
    double chosen_t = std::numeric_limits<double>::infinity();
    for (int h = 0; h < H; ++h) {
      if (std::find(group.begin(), group.end(), h) != group.end())
        continue;
      auto trial = group;
      trial.push_back(h);
      double t = predict_run_time(model, platform, proportional(platform, trial, procs)).time_s;
      if (t < chosen_t) {
        chosen_t = t;
        chosen = h;
      }
    }
    group.push_back(chosen);
  }
  consider(group);
  return best;
}

Accuracy score(const std::string& name, const std::vector<double>& predicted, const std::vector<MeasuredRun>& runs)
{
  Accuracy a;
  a.model = name;
  a.predicted_s = predicted;
  double ape = 0, se = 0, mean = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    double e = predicted[i] - runs[i].time_s;
    ape += std::fabs(e) / runs[i].time_s;
    se += e * e;
    mean += runs[i].time_s;
  }
  double n = static_cast<double>(runs.size());
  // 100 - MAPE, held at 0 for a model off by more than 100% on average: a
  // negative accuracy reads as a number it is not (the error itself is in cv)
  a.accuracy_percent = std::max(0.0, 100 - 100 * ape / n);
  a.cv = std::sqrt(se / n) / (mean / n);
  return a;
}

std::vector<Accuracy> leave_one_out(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                    ModelVariant variant)
{
  if (runs.size() < 3)
    throw Error(fmt::format("leave-one-out needs at least 3 runs (2 to fit, 1 to predict), got {}", runs.size()));
  std::vector<double> qn, amdahl;
  for (std::size_t out = 0; out < runs.size(); ++out) {
    std::vector<MeasuredRun> train;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (i != out)
        train.push_back(runs[i]);
    QueueingModel m = fit_queueing_model(train, platform, variant);
    qn.push_back(predict_run_time(m, platform, host_counts(runs[out], platform)).time_s);
    amdahl.push_back(fit_amdahl(train).predict(runs[out].procs));
  }
  return {score("queueing-network", qn, runs), score("amdahl", amdahl, runs)};
}

Extrapolation extrapolation_check(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                  ModelVariant variant)
{
  std::set<int> counts;
  for (const MeasuredRun& r : runs)
    counts.insert(r.procs);
  if (counts.size() < 3)
    throw Error(fmt::format("the extrapolation check needs runs at 3 or more process counts (2 to fit, 1 to predict), "
                            "got {}",
                            counts.size()));
  // the smaller half of the counts, and never fewer than two of them
  std::size_t training_counts = std::max<std::size_t>(2, counts.size() / 2);
  Extrapolation x;
  x.largest_training_procs = *std::next(counts.begin(), static_cast<std::ptrdiff_t>(training_counts - 1));
  std::vector<MeasuredRun> train;
  for (const MeasuredRun& r : runs)
    (r.procs <= x.largest_training_procs ? train : x.tested).push_back(r);
  QueueingModel m = fit_queueing_model(train, platform, variant);
  AmdahlModel a = fit_amdahl(train);
  std::vector<double> qn, amdahl;
  for (const MeasuredRun& r : x.tested) {
    qn.push_back(predict_run_time(m, platform, host_counts(r, platform)).time_s);
    amdahl.push_back(a.predict(r.procs));
  }
  x.accuracy = {score("queueing-network", qn, x.tested), score("amdahl", amdahl, x.tested)};
  return x;
}

namespace {

// Mean relative errors of both models fitted on `train` and asked for `test`.
std::pair<double, double> held_out_errors(const std::vector<MeasuredRun>& train, const std::vector<MeasuredRun>& test,
                                          const Platform& platform, ModelVariant variant)
{
  QueueingModel m = fit_queueing_model(train, platform, variant);
  AmdahlModel a = fit_amdahl(train);
  double qn = 0, amdahl = 0;
  for (const MeasuredRun& r : test) {
    qn += std::fabs(predict_run_time(m, platform, host_counts(r, platform)).time_s - r.time_s) / r.time_s;
    amdahl += std::fabs(a.predict(r.procs) - r.time_s) / r.time_s;
  }
  return {qn / static_cast<double>(test.size()), amdahl / static_cast<double>(test.size())};
}

} // namespace

bool amdahl_clearly_better(const std::vector<HeldOutCheck>& checks)
{
  if (checks.empty())
    return false;
  double k = static_cast<double>(checks.size()), qn = 0, amdahl = 0, mean = 0;
  for (const HeldOutCheck& c : checks) {
    qn += c.queueing_error / k;
    amdahl += c.amdahl_error / k;
    mean += (c.queueing_error - c.amdahl_error) / k;
  }
  // a fallback must itself be validated: when both models failed their
  // checks, the structural one stays (warned), since the smooth curve that
  // missed too carries nothing of the network that decides further out
  if (qn <= kTrustedError || amdahl > kTrustedError || mean <= 0)
    return false;
  if (checks.size() < 2)
    return true; // no spread to judge the difference by: the better check wins
  double ss = 0;
  for (const HeldOutCheck& c : checks)
    ss += std::pow(c.queueing_error - c.amdahl_error - mean, 2);
  double se = std::sqrt(ss / (k - 1) / k);
  return mean > 2 * se;
}

Reliability assess_reliability(const std::vector<MeasuredRun>& runs, const Platform& platform, ModelVariant variant)
{
  // two checks, each on runs held out of the fit: "next count" fits every run
  // but those at the largest count and predicts them, the step a user takes;
  // "leave-one-out" holds out each multi-process run in turn (the run alone at
  // the largest count was the next-count check already: not counted twice).
  // One-process runs stay in every training set: they carry W, which nothing
  // else pins as well. A check whose fit is refused (a held-out run was the
  // only one across hosts, say) is skipped.
  Reliability rel;
  std::set<int> counts;
  for (const MeasuredRun& r : runs)
    counts.insert(r.procs);
  std::vector<HeldOutCheck> checks;
  std::string refused;
  auto check = [&](const std::string& method, const std::vector<MeasuredRun>& train,
                   const std::vector<MeasuredRun>& test) {
    try {
      auto [q, a] = held_out_errors(train, test, platform, variant);
      checks.push_back({q, a});
      if (rel.method.find(method) == std::string::npos)
        rel.method += (rel.method.empty() ? "" : " and ") + method;
      return true;
    } catch (const Error& e) {
      refused = e.what();
      return false;
    }
  };
  std::size_t already_held_out = runs.size(); // the next-count check's run, when it held out one
  if (counts.size() >= 3) {
    std::vector<MeasuredRun> train, test;
    std::size_t last = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      bool largest = runs[i].procs == *counts.rbegin();
      (largest ? test : train).push_back(runs[i]);
      if (largest)
        last = i;
    }
    if (check("next count", train, test)) {
      rel.next_from = *std::next(counts.rbegin());
      rel.next_to = *counts.rbegin();
      rel.next_queueing_error = checks.back().queueing_error;
      rel.next_amdahl_error = checks.back().amdahl_error;
      if (test.size() == 1)
        already_held_out = last;
    }
  }
  if (runs.size() >= 3)
    for (std::size_t out = 0; out < runs.size(); ++out) {
      if (runs[out].procs < 2 || out == already_held_out)
        continue;
      std::vector<MeasuredRun> train;
      for (std::size_t i = 0; i < runs.size(); ++i)
        if (i != out)
          train.push_back(runs[i]);
      check("leave-one-out", train, {runs[out]});
    }
  if (checks.empty()) {
    rel.warning = "the queueing model could not be checked on held-out runs" +
                  (refused.empty() ? std::string() : " (" + refused + ")") +
                  ": its predictions are unvalidated; measure runs at three or more process counts";
    return rel;
  }
  double k = static_cast<double>(checks.size());
  rel.queueing_error = rel.amdahl_error = rel.error_difference = 0;
  for (const HeldOutCheck& c : checks) {
    rel.queueing_error += c.queueing_error / k;
    rel.amdahl_error += c.amdahl_error / k;
    rel.error_difference += (c.queueing_error - c.amdahl_error) / k;
  }
  if (checks.size() >= 2) {
    double ss = 0;
    for (const HeldOutCheck& c : checks)
      ss += std::pow(c.queueing_error - c.amdahl_error - rel.error_difference, 2);
    rel.error_difference_se = std::sqrt(ss / (k - 1) / k);
  }
  // the checks fit on 1 to 4 processes and predict up to 8, where a smooth
  // two-constant curve such as Amdahl's law rarely misses by much; what
  // decides 8 times further out is the network the queueing model carries.
  // So it stays recommended unless it failed its checks and Amdahl's law
  // passed its own and did better by more than the checks' own spread
  rel.trusted = rel.queueing_error <= kTrustedError;
  // T = s + p / n with p < 0 is a time that rises with n: outside Amdahl's law (both parts are times), whose
  // curve then levels off at s, where a code slowing with n keeps slowing; it is never the recommended model
  bool rising = runs.size() >= 2 && fit_amdahl(runs).parallel_s < 0;
  bool better = amdahl_clearly_better(checks);
  rel.recommend_amdahl = !rising && better;
  if (!rel.trusted)
    rel.warning = fmt::format(
        "on runs held out of its fit ({}) the queueing model missed by {:.0f}% on average, Amdahl's law by {:.0f}%: "
        "its predictions for this code are a guess; {}",
        rel.method, 100 * rel.queueing_error, 100 * rel.amdahl_error,
        rel.recommend_amdahl ? "the Amdahl baseline is recommended"
        : better
            ? "the queueing model is kept, with care (Amdahl's law did better, but its fit, T(n) = s + p / n with p "
              "< 0, is a time that rises with n and levels off: outside the law, and no guide past the runs)"
        : rel.error_difference <= 0
            ? "the queueing model is kept, with care (Amdahl's law did no better)"
        : rel.amdahl_error > kTrustedError
            ? "the queueing model is kept, with care (Amdahl's law failed its checks too)"
            : fmt::format("the queueing model is kept, with care (Amdahl's law was better by {:.0f} points, within "
                          "twice the standard error, {:.0f}, of the {} checks)",
                          100 * rel.error_difference, 100 * rel.error_difference_se, checks.size()));
  return rel;
}

double prediction_band(const Reliability& rel, bool amdahl, int procs)
{
  double held_out = amdahl ? rel.amdahl_error : rel.queueing_error;
  if (held_out < 0)
    return -1;
  double next = amdahl ? rel.next_amdahl_error : rel.next_queueing_error;
  if (next < 0 || rel.next_to <= rel.next_from || rel.next_from < 1 || procs <= rel.next_to)
    return held_out;
  // a check that moved from next_from to next_to missed by `next`; a count k
  // such steps past the runs compounds k of those misses (to first order)
  double steps = std::log(static_cast<double>(procs) / rel.next_to) /
                 std::log(static_cast<double>(rel.next_to) / rel.next_from);
  return std::max(held_out, next * steps);
}

std::string prediction_warning(const Reliability& rel, bool amdahl, int procs, double queueing_s, double amdahl_s)
{
  double band = prediction_band(rel, amdahl, procs);
  const char* chosen = amdahl ? "Amdahl baseline" : "queueing model";
  if (band > kWarnedBand) {
    double steps = std::log(static_cast<double>(procs) / rel.next_to) /
                   std::log(static_cast<double>(rel.next_to) / rel.next_from);
    return fmt::format("{} processes is {:.1f} steps past the runs (the held-out check stepped {} -> {} and the {} "
                       "missed by {:.0f}%): this prediction may be off by {:.0f}% or more",
                       procs, steps, rel.next_from, rel.next_to, chosen,
                       100 * (amdahl ? rel.next_amdahl_error : rel.next_queueing_error), 100 * band);
  }
  double recommended = amdahl ? amdahl_s : queueing_s;
  double other = amdahl ? queueing_s : amdahl_s;
  double apart = std::fabs(other - recommended) / recommended;
  if (recommended > 0 && apart > kWarnedBand)
    return fmt::format("at {} processes the queueing model ({:.4g} s) and Amdahl's law ({:.4g} s) differ by {:.0f}% "
                       "of the recommended {}'s time: the runs do not tell which extrapolation holds, so this "
                       "prediction may be off by that much",
                       procs, queueing_s, amdahl_s, 100 * apart, chosen);
  return "";
}

BandTerms model_band_terms(const QueueingModel& model, const Platform& platform, const HostCounts& placement)
{
  BandTerms b;
  int n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  double t = predict_run_time(model, platform, placement).time_s;
  if (!(t > 0))
    return b;
  // a Net_Constant fitted on runs where the network is a few percent, or
  // kept at 1 because they cannot tell, moves a prediction in proportion to
  // the network's share of it there (its leverage)
  b.net_constant_uncertainty =
      model.net_constant_uncertainty >= 0 ? model.net_constant_uncertainty : model.net_constant_relative_se;
  b.network_share = network_share(model, platform, placement);
  b.network = b.network_share * b.net_constant_uncertainty;
  // an input fitted by a line through points that go up and down: held at
  // its value at the largest count, the form cannot outgrow the runs, and
  // nothing in them tells the two apart
  if (model.grid && n >= 2) {
    ClassTrafficAt at = grid_class_traffic(*model.grid, n);
    if (at.unseen_messages > 0 || at.unseen_bytes > 0) {
      double rest_bytes = model.run_bytes ? std::max((*model.run_bytes)(n), 0.0) : 0.0;
      double rest_messages = std::max(model.sends(n), 0.0) * n;
      if (model.collectives) {
        CollectiveTrafficAt c = collective_traffic_at(model.collectives->types, n);
        rest_bytes += c.bytes, rest_messages += c.messages;
      }
      double bytes = at.bytes + rest_bytes, messages = at.messages + rest_messages;
      b.unseen = std::max(bytes > 0 ? at.unseen_bytes / bytes : 0.0, messages > 0 ? at.unseen_messages / messages : 0.0);
      b.unseen_classes = at.unseen;
    }
  }
  if (n > model.largest_training_procs && model.largest_training_procs > 0 &&
      (model.work_growth_through_noise || model.sends_through_noise)) {
    QueueingModel held = model;
    double last = model.largest_training_procs;
    if (model.work_growth_through_noise && model.work_growth)
      held.work_growth = Curve{CurveForm::Constant, (*model.work_growth)(last), 0};
    if (model.sends_through_noise)
      held.sends = Curve{CurveForm::Constant, model.sends(last), 0};
    b.held = std::fabs(predict_run_time(held, platform, placement).time_s - t) / t;
  }
  // a grid the training runs cannot tell wrapping or not: the periodic reading's prediction, which they fit as well
  if (model.grid_wrapped) {
    QueueingModel wrapped = model;
    wrapped.grid = model.grid_wrapped;
    wrapped.grid_wrapped.reset();
    b.if_periodic_s = predict_run_time(wrapped, platform, placement).time_s;
    b.wrap = std::fabs(b.if_periodic_s - t) / t;
  }
  return b;
}

double prediction_band(const Reliability& rel, const BandTerms& terms, bool amdahl, int procs)
{
  double band = prediction_band(rel, amdahl, procs);
  if (amdahl || band < 0)
    return band;
  return std::max({band, terms.network, terms.held, terms.wrap}) + terms.unseen;
}

namespace {

std::string grid_or_curves_at(const QueueingModel& model, int procs)
{
  if (model.grid) {
    std::string s = fmt::format("{} ({})", model.grid->describe(), model.grid->rule.describe());
    if (procs >= 1) {
      ClassTrafficAt at = grid_class_traffic(*model.grid, procs);
      s += fmt::format("; {} at {}", at.grid.describe(), procs);
      if (!at.unseen.empty()) {
        std::string names;
        for (const std::string& u : at.unseen)
          names += (names.empty() ? "" : " ") + u;
        s += fmt::format(", {} unseen: {}", at.unseen.size(), names);
      }
    }
    return s;
  }
  if (model.halo)
    return fmt::format("{}-D {}halo exchange across {} (MPI_Dims_create's grid, layout not checked)",
                       model.halo->dimensions, model.halo->periodic ? "periodic " : "",
                       model.halo->diagonals ? "faces, edges and corners" : "faces");
  return "no process grid (point-to-point traffic in the curves s(n), B(n))";
}

} // namespace

std::string structure_at(const QueueingModel& model, int procs)
{
  std::string s = grid_or_curves_at(model, procs);
  if (model.self_traffic)
    s += fmt::format("; {} ({:.4g} messages a rank at {})", model.self_traffic->describe(),
                     model.self_traffic->at(std::max(procs, 1)).messages / std::max(procs, 1), procs);
  return s;
}

std::string collectives_at(const QueueingModel& model, int procs)
{
  if (!model.collectives)
    return "";
  CollectiveTrafficAt at = collective_traffic_at(model.collectives->types, procs);
  return fmt::format("{}, expanded by the replay's default algorithms: {:.4g} messages a rank at {}",
                     model.collectives->describe(), at.messages / std::max(procs, 1), procs);
}

double prediction_band(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                       bool amdahl, int procs)
{
  return prediction_band(model.reliability, amdahl ? BandTerms{} : model_band_terms(model, platform, placement),
                         amdahl, procs);
}

std::string prediction_warning(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                               bool amdahl, int procs, double queueing_s, double amdahl_s)
{
  return prediction_warning(model, amdahl ? BandTerms{} : model_band_terms(model, platform, placement), amdahl, procs,
                            queueing_s, amdahl_s);
}

namespace {

std::string band_warning(const QueueingModel& model, const BandTerms& terms, bool amdahl, int procs,
                         double queueing_s, double amdahl_s)
{
  std::string why = prediction_warning(model.reliability, amdahl, procs, queueing_s, amdahl_s);
  if (!why.empty() || amdahl || prediction_band(model.reliability, amdahl, procs) < 0)
    return why;
  if (terms.network > kWarnedBand && terms.network >= terms.held)
    return fmt::format("at {} processes the network is {:.0f}% of the predicted time and Net_Constant is uncertain by "
                       "{:.0f}% (the training runs' network is at most {:.0f}% of a run): this prediction may be off "
                       "by {:.0f}%",
                       procs, 100 * terms.network_share, 100 * terms.net_constant_uncertainty,
                       100 * std::max(0.0, model.training_network_share), 100 * terms.network);
  if (terms.unseen > 0 && prediction_band(model.reliability, terms, amdahl, procs) > kWarnedBand)
    return fmt::format("at {} processes {:.0f}% of the traffic is in grid classes the training grids never had "
                       "({} class{}), taken as the seen ones' median: this prediction may be off by {:.0f}%",
                       procs, 100 * terms.unseen, terms.unseen_classes.size(),
                       terms.unseen_classes.size() == 1 ? "" : "es",
                       100 * prediction_band(model.reliability, terms, amdahl, procs));
  if (terms.held > kWarnedBand)
    return fmt::format("at {} processes the prediction changes by {:.0f}% when the {} fitted through training points "
                       "that go up and down is held at its value at {} processes: this prediction may be off by that "
                       "much",
                       procs, 100 * terms.held,
                       model.work_growth_through_noise && model.sends_through_noise ? "work and s(n)"
                       : model.work_growth_through_noise                            ? "work"
                                                                                    : "s(n)",
                       model.largest_training_procs);
  return "";
}

} // namespace

std::string prediction_warning(const QueueingModel& model, const BandTerms& terms, bool amdahl, int procs,
                               double queueing_s, double amdahl_s)
{
  std::string why = band_warning(model, terms, amdahl, procs, queueing_s, amdahl_s);
  if (!amdahl && terms.wrap > kUntoldGridNote)
    why += fmt::format("{}at {} processes the grid's periodic reading, which the training runs fit as well, predicts "
                       "{:.4g} s against the non-periodic {:.4g} s ({:+.0f}%): the band spans both",
                       why.empty() ? "" : "; ", procs, terms.if_periodic_s, queueing_s,
                       100 * (terms.if_periodic_s / queueing_s - 1));
  return why;
}

ModelComparison compare_models(const std::vector<MeasuredRun>& runs, const Platform& platform)
{
  ModelComparison c;
  c.runs = runs;
  c.leave_one_out = leave_one_out(runs, platform);
  try {
    c.extrapolation = extrapolation_check(runs, platform);
  } catch (const Error& e) {
    c.no_extrapolation = e.what();
  }
  return c;
}

namespace {

nlohmann::json accuracy_json(const std::vector<Accuracy>& list)
{
  nlohmann::json j = nlohmann::json::array();
  for (const Accuracy& acc : list)
    j.push_back({{"model", acc.model}, {"accuracy_percent", acc.accuracy_percent}, {"cv", acc.cv},
                 {"predicted_s", acc.predicted_s}});
  return j;
}

std::string accuracy_rows(const std::vector<Accuracy>& list)
{
  std::string s = fmt::format("{:<18} {:>12} {:>8}\n", "model", "accuracy_%", "CV");
  for (const Accuracy& acc : list)
    s += fmt::format("{:<18} {:>12.2f} {:>8.3f}\n", acc.model, acc.accuracy_percent, acc.cv);
  return s;
}

} // namespace

nlohmann::json ModelComparison::to_json() const
{
  nlohmann::json j = {{"leave_one_out", accuracy_json(leave_one_out)}};
  if (extrapolation) {
    nlohmann::json tested = nlohmann::json::array();
    for (const MeasuredRun& r : extrapolation->tested)
      tested.push_back({{"procs", r.procs}, {"measured_s", r.time_s}, {"source", r.source}});
    j["extrapolation"] = {{"largest_training_procs", extrapolation->largest_training_procs},
                          {"tested", tested},
                          {"accuracy", accuracy_json(extrapolation->accuracy)}};
  } else {
    j["extrapolation"] = {{"skipped", no_extrapolation}};
  }
  return j;
}

std::string ModelComparison::text() const
{
  std::string s = fmt::format("leave-one-out over {} runs\n\n", runs.size()) + accuracy_rows(leave_one_out);
  s += fmt::format("\n{:>6} {:>12} {:>12} {:>12}  {}\n", "procs", "measured_s", "queueing_s", "amdahl_s", "run");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    double amdahl = leave_one_out[1].predicted_s[i];
    s += fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>12}  {}\n", runs[i].procs, runs[i].time_s,
                     leave_one_out[0].predicted_s[i], amdahl > 0 ? fmt::format("{:.6g}", amdahl) : "n/a",
                     runs[i].source);
  }
  if (!extrapolation)
    return s + "\nextrapolation check skipped: " + no_extrapolation + "\n";
  s += fmt::format("\nextrapolation: fitted on runs of at most {} processes, predicting the {} others\n\n",
                   extrapolation->largest_training_procs, extrapolation->tested.size());
  return s + accuracy_rows(extrapolation->accuracy);
}

} // namespace perfcast

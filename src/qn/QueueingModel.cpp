#include "qn/QueueingModel.hpp"

#include "core/Error.hpp"
#include "qn/ProcessGrid.hpp"
#include "core/Version.hpp"
#include "fit/LeastSquares.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

namespace perfcast {

namespace {

double reference_speed(const MeasuredRun& run, const Platform& platform)
{
  // process-weighted mean core speed of the hosts the run used
  double s = 0;
  for (const auto& [host, count] : run.placement)
    s += platform.hosts()[static_cast<std::size_t>(platform.find_host(host))].speed_flops * count;
  return s / run.procs;
}

// The work of `seconds` of computing on `host` in run r: the seconds at the
// host's speed, times the host's cores over its processes when they outnumber
// the cores and share them; unset when the platform or the run's placement
// lacks the host
std::optional<double> computed_work(const MeasuredRun& r, const std::string& host, double seconds,
                                    const Platform& platform)
{
  int index = platform.find_host(host);
  auto placed = r.placement.find(host);
  if (index < 0 || placed == r.placement.end())
    return std::nullopt;
  const Host& h = platform.hosts()[static_cast<std::size_t>(index)];
  return seconds * h.speed_flops * std::min(1.0, static_cast<double>(h.cores) / placed->second);
}

// The work the runs recorded, relative to the smallest training count, when
// it changes with n by leave-one-out among the constant, a + b n (work
// replicated per process), a + b ln n (a tree's rounds) and a + b / n with
// a, b >= 0 (work that shrinks towards a floor, a per-rank array falling
// into cache), positive and at most linear for every n >= 2, as s(n) is chosen; unset when the constant
// wins or a run does not list its compute time. A rank's work is
// computed_work's
std::optional<Curve> fit_work_growth(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                     bool& through_noise)
{
  through_noise = false;
  std::vector<double> n, work;
  std::set<int> counts;
  for (const MeasuredRun& r : runs) {
    if (r.rank_compute_s.empty())
      return std::nullopt;
    double flops = 0;
    for (const auto& [name, seconds] : r.rank_compute_s) {
      std::optional<double> w = computed_work(r, name, seconds, platform);
      if (!w)
        return std::nullopt;
      flops += *w;
    }
    n.push_back(r.procs);
    work.push_back(flops);
    counts.insert(r.procs);
  }
  if (counts.size() < 3 || !std::all_of(work.begin(), work.end(), [](double w) { return w > 0; }))
    return std::nullopt;
  // a + b / n with a >= 0, b > 0 competes too: work that shrinks with n
  // towards a floor (ISx's per-rank count array falls into cache as n grows),
  // never growing and never below a; with b <= 0 (growing) or a < 0 it is not
  // kept, and the three other forms decide
  auto inverse_shrinks = [](const Curve& c) { return c.form != CurveForm::Inverse || (c.a >= 0 && c.b > 0); };
  CurveChoice choice = choose_curve(
      n, work, {CurveForm::Constant, CurveForm::Linear, CurveForm::LogLinear, CurveForm::Inverse}, CurveForm::Constant,
      true, 1, {}, inverse_shrinks);
  if (!choice.cross_validated || choice.curve.form == CurveForm::Constant)
    return std::nullopt;
  double base = choice.curve(*counts.begin());
  if (!(base > 0))
    return std::nullopt;
  // a line through recorded work that goes up and down with n follows noise,
  // not a trend: said with the prediction, whose band spans the work held at
  // the largest count (prediction_band in src/qn/Study.cpp)
  through_noise = goes_up_and_down(n, work);
  Curve growth = choice.curve;
  growth.a /= base;
  growth.b /= base;
  return growth;
}

// The slowest rank's work over the mean rank's (computed_work, as
// fit_work_growth counts it); -1 when the run does not list its ranks'
// compute times
double rank_work_imbalance(const MeasuredRun& r, const Platform& platform)
{
  if (r.rank_compute_s.size() != static_cast<std::size_t>(r.procs) || r.procs < 2)
    return -1;
  double most = 0, sum = 0;
  for (const auto& [name, seconds] : r.rank_compute_s) {
    std::optional<double> work = computed_work(r, name, seconds, platform);
    if (!work)
      return -1;
    most = std::max(most, *work);
    sum += *work;
  }
  return sum > 0 ? most * r.procs / sum : -1;
}

// The time a run's ranks waited, on average, for its slowest rank to finish
// computing: the mean over ranks of the slowest compute time minus its own
double imbalance_wait_s(const MeasuredRun& r)
{
  if (r.rank_compute_s.empty())
    return 0;
  double most = 0, sum = 0;
  for (const auto& rank : r.rank_compute_s) {
    most = std::max(most, rank.second);
    sum += rank.second;
  }
  return most - sum / static_cast<double>(r.rank_compute_s.size());
}

// The runs' slowest rank's compute time; -1 when a run does not list its ranks'
double slowest_compute_s(const MeasuredRun& r)
{
  if (r.rank_compute_s.empty())
    return -1;
  double most = 0;
  for (const auto& rank : r.rank_compute_s)
    most = std::max(most, rank.second);
  return most;
}

// What the runs say of Net_Constant beside the fit: the CPU side's scatter
// (the model's CPU phase, the prediction with the network off, against the
// replays' slowest rank's compute, one scale fitted in closed form, RMS of the
// misses relative to the run time over k - 1) and the network's largest share
// of a run at Net_Constant 1. Unset when a run lacks its ranks' compute times
// or fewer than 3 runs leave no scatter to measure
struct NetworkEvidence {
  double cpu_scatter = 0, share_max = 0;
};
std::optional<NetworkEvidence> network_evidence(const QueueingModel& fitted, const std::vector<MeasuredRun>& runs,
                                                const std::vector<HostCounts>& placements, const Platform& platform)
{
  if (runs.size() < 3)
    return std::nullopt;
  std::vector<double> cpu, slowest;
  NetworkEvidence e;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    double m = slowest_compute_s(runs[i]);
    if (!(m > 0) || !(runs[i].time_s > 0))
      return std::nullopt;
    QueueingModel off = fitted, at_one = fitted;
    off.net_constant = 0;
    at_one.net_constant = 1;
    double c = predict_run_time(off, platform, placements[i]).time_s;
    double one = predict_run_time(at_one, platform, placements[i]).time_s;
    cpu.push_back(c / runs[i].time_s);
    slowest.push_back(m / runs[i].time_s);
    e.share_max = std::max(e.share_max, (one - c) / runs[i].time_s);
  }
  // the CPU phase is linear in W: the scale alpha minimising sum (alpha c_i - m_i)^2
  double cc = 0, cm = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    cc += cpu[i] * cpu[i];
    cm += cpu[i] * slowest[i];
  }
  if (!(cc > 0))
    return std::nullopt;
  double alpha = cm / cc, ss = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i)
    ss += std::pow(alpha * cpu[i] - slowest[i], 2);
  e.cpu_scatter = std::sqrt(ss / static_cast<double>(cpu.size() - 1));
  return e;
}

} // namespace

double network_share(const QueueingModel& model, const Platform& platform, const HostCounts& placement)
{
  double t = predict_run_time(model, platform, placement).time_s;
  QueueingModel off = model;
  off.net_constant = 0;
  double cpu = predict_run_time(off, platform, placement).time_s;
  return t > 0 ? std::clamp(1 - cpu / t, 0.0, 1.0) : 0.0;
}

bool net_constant_identified(double nc, double share_max, double cpu_scatter)
{
  return share_max * std::fabs(nc - 1) > 2 * cpu_scatter;
}

bool goes_up_and_down(const std::vector<double>& n, const std::vector<double>& y)
{
  // the mean at each count, in increasing n
  std::map<double, std::pair<double, int>> at;
  for (std::size_t i = 0; i < n.size() && i < y.size(); ++i) {
    at[n[i]].first += y[i];
    at[n[i]].second += 1;
  }
  int last_sign = 0;
  double previous = 0;
  bool first = true;
  for (const auto& [count, sum] : at) {
    double mean = sum.first / sum.second;
    if (!first && mean != previous) {
      int sign = mean > previous ? 1 : -1;
      if (last_sign != 0 && sign != last_sign)
        return true;
      last_sign = sign;
    }
    previous = mean;
    first = false;
  }
  return false;
}

HostCounts host_counts(const MeasuredRun& run, const Platform& platform)
{
  HostCounts counts;
  for (const auto& [name, count] : run.placement) {
    int h = platform.find_host(name);
    if (h < 0)
      fail_in(run.source, fmt::format("placement names host '{}', which the platform lacks", name));
    counts[h] += count;
  }
  return counts;
}

Prediction predict_run_time(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                            MvaSolver solver)
{
  int n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  Prediction p;
  p.procs = n;
  p.cycles = cycles_at(model, n);
  if (model.node_classes && model.lockstep) {
    // a node's processes in lockstep (build_class_network): every node
    // computes, then every node's transfers of the phase share the links at
    // once, so the exchange lasts as long as the busiest link it uses takes
    // to carry the phase's bytes (max-min sharing of equal flows ends with
    // the busiest link), not the queueing of customers that interleave;
    // then each process pays its messages' latency. Per node:
    //   R_c = D_c,cpu + max over links k that c uses of sum_c' D_c',k + D_c,latency
    MultiClassNetwork net = build_class_network(model, platform, placement);
    // every class's demand on each station: a link's is the time it carries
    // the phase's bytes, a CPU's the time it computes in the cycle
    std::vector<double> total(net.stations.size(), 0.0);
    for (const CustomerClass& c : net.classes)
      for (std::size_t k = 0; k < net.stations.size(); ++k)
        total[k] += c.demand_s[k];
    std::vector<double> cycle;
    for (const CustomerClass& c : net.classes) {
      double other = 0, exchange = 0;
      for (std::size_t k = 0; k < net.stations.size(); ++k) {
        if (net.stations[k].kind != StationKind::Queue)
          other += c.demand_s[k];
        else if (c.demand_s[k] > 0)
          exchange = std::max(exchange, total[k]);
      }
      cycle.push_back(other + exchange);
    }
    p.response_s = *std::max_element(cycle.begin(), cycle.end());
    p.time_s = p.response_s * p.cycles;
    for (std::size_t k = 0; k < net.stations.size(); ++k) {
      // the share of the slowest node's cycle the station is busy (links and CPUs)
      StationKind kind = net.stations[k].kind;
      double busy = kind == StationKind::Queue || kind == StationKind::MultiServer ? total[k] : 0.0;
      if (busy / p.response_s > p.bottleneck_utilization) {
        p.bottleneck_utilization = busy / p.response_s;
        p.bottleneck = net.stations[k].name;
      }
    }
    return p;
  }
  if (model.node_classes) {
    // one class per node: the run ends with its slowest node's processes,
    // each of which goes through s(n) cycles (eq. 10 per class)
    MultiClassNetwork net = build_class_network(model, platform, placement);
    // exact MVA walks the lattice of population vectors, prod (n_i + 1)
    // points: beyond a budget (4 nodes of 16 processes fit in it, 8 of 4 do
    // not), Bard-Schweitzer
    bool exact = solver == MvaSolver::Exact ||
                 (solver == MvaSolver::Automatic && multiclass_exact_cost(net) <= kExactMultiClassBudget);
    MultiClassResult r = exact ? solve_multiclass_mva(net) : solve_multiclass_mva_approximate(net);
    p.exact = exact;
    p.response_s = *std::max_element(r.cycle_s.begin(), r.cycle_s.end());
    p.time_s = p.response_s * p.cycles;
    for (std::size_t i = 0; i < net.stations.size(); ++i)
      if (r.utilization[i] > p.bottleneck_utilization) {
        p.bottleneck_utilization = r.utilization[i];
        p.bottleneck = net.stations[i].name;
      }
    return p;
  }
  ClosedNetwork net = build_network(model, platform, placement);
  // exact MVA costs n^2 per multi-server station: beyond a budget, approximate
  double exact_cost = static_cast<double>(n) * n * static_cast<double>(placement.size());
  bool exact = solver == MvaSolver::Exact || (solver == MvaSolver::Automatic && exact_cost <= 2e5);
  MvaResult r = exact ? solve_mva(net, n) : solve_mva_approximate(net, n);
  p.exact = exact;
  p.response_s = static_cast<double>(n) / r.throughput; // R including every station
  p.time_s = p.response_s * p.cycles; // eq. 10
  for (std::size_t i = 0; i < net.stations.size(); ++i)
    if (r.stations[i].utilization > p.bottleneck_utilization) {
      p.bottleneck_utilization = r.stations[i].utilization;
      p.bottleneck = net.stations[i].name;
    }
  return p;
}

QueueingModel fit_queueing_model(const std::vector<MeasuredRun>& runs, const Platform& platform,
                                 ModelVariant variant)
{
  if (runs.size() < 2)
    throw Error(fmt::format("the queueing model has 2 constants to fit but {} run{} given (need at least 2)",
                            runs.size(), runs.size() == 1 ? " was" : "s were"));
  QueueingModel model;
  model.duplex_nic = variant.duplex_nic;
  model.latency_delay = variant.latency_delay;
  model.local_via_nic = variant.local_via_nic;
  model.other_partners = variant.other_partners;
  model.node_classes = variant.node_classes;
  model.lockstep = variant.lockstep && variant.node_classes;
  // the network model of the runs, when every run names the same one
  model.smpi_factors = variant.network_factors && std::all_of(runs.begin(), runs.end(), [](const MeasuredRun& r) {
    return r.network == "smpi";
  });
  // point-to-point traffic on a process grid grows with the grid (its faces,
  // a pipeline's chain, a ring beside all pairs), which no curve through 2, 4
  // and 8 processes can tell (2x1, 2x2, 4x2 cut as 1, 2, 4; 8x8 as 14): classed
  // on the grid the user gave or the first MPI_Dims_create grid the partner
  // lists fit, the curves fit the rest of the traffic
  if (variant.traffic_structure && variant.run_bytes) {
    GridFit classed = fit_grid_classes(
        runs, variant.grid_rules.empty() ? grid_rules_from_spec("") : variant.grid_rules, !variant.grid_given, true);
    model.grid = classed.table;
    model.grid_wrapped.reset();
    if (model.grid && !variant.grid_given) {
      PeriodicAmbiguity untold = periodic_ambiguity(runs, *model.grid);
      if (!untold.warning.empty()) {
        model.warnings.push_back(untold.warning);
        model.grid_wrapped = untold.wrapped;
      }
    }
    // a halo on a 1-, 2- or 3-D grid whose layout the lists need not show
    // (counts of neighbours, not which ranks): its neighbours stop growing
    // with the grid's dimensionality, where a power law through 2, 4 and 8
    // processes does not
    if (!model.grid && !variant.grid_given)
      model.halo = find_halo_exchange(runs);
    if (!model.grid && !model.halo && (classed.irregular || variant.grid_given))
      model.warnings.push_back(fmt::format(
          "the point-to-point traffic follows no process grid{}{}: s(n), B(n) and the busiest receiver's share are "
          "curves through the training runs, which cannot know how it grows past them",
          variant.grid_given ? " of --grid" : " that MPI_Dims_create gives",
          classed.why.empty() ? "" : " (" + classed.why + ")"));
    // the collectives' calls, expanded at n by the replay's algorithms, whose message counts change form with n
    // (alltoall's algorithm switches, a linear allgather's n(n-1)) where a curve through 2, 4 and 8 cannot
    model.collectives = fit_collective_traffic(runs, model.warnings);
  }
  // a rank's messages to itself beside the curves (a grid's periodic sides of 1 and a halo explain their own)
  auto fit_self = [&] {
    model.self_traffic.reset();
    if (variant.traffic_structure && variant.run_bytes && variant.self_traffic && !model.grid && !model.halo)
      model.self_traffic = fit_self_traffic(runs);
  };
  fit_self();
  for (const MeasuredRun& r : runs)
    if (variant.traffic_structure && variant.self_traffic && r.procs == 1 && r.partners.size() == 1)
      model.one_process_traffic = self_traffic_of(r).total;
  // what a training run's grid or halo carried, and its traffic to itself (the curves fit the rest)
  auto on_grid_of = [&](const MeasuredRun& r) {
    GridTraffic t = model.grid ? classed_traffic(*model.grid, r) : model.halo ? measured_grid_traffic(r) : GridTraffic{};
    if (model.self_traffic)
      t += self_traffic_of(r).total;
    return t;
  };
  // a training run's messages and bytes beside its grid or halo and its collectives (what the curves fit); a
  // rest under a thousandth of the run's is the rounding of the collectives' mean payloads, not traffic
  auto rest_of = [&](const MeasuredRun& r) {
    GridTraffic on_grid = on_grid_of(r);
    CollectiveTrafficAt collective = model.collectives ? recorded_collective_traffic(r) : CollectiveTrafficAt{};
    double messages = r.procs * r.sends_per_process, bytes = messages * r.message_bytes;
    double rest_messages = std::max(0.0, messages - on_grid.messages - collective.messages);
    double rest_bytes = std::max(0.0, bytes - on_grid.bytes - collective.bytes);
    if (model.collectives && rest_messages <= 1e-3 * messages)
      rest_messages = 0;
    if (model.collectives && (rest_bytes <= 1e-3 * bytes || rest_messages == 0))
      rest_bytes = 0;
    return std::pair{rest_messages, rest_bytes};
  };
  std::vector<double> n, s, m, total, hot_n, hot, hot_sent, hot_sent_messages;
  std::vector<HostCounts> placements;
  for (const MeasuredRun& r : runs) {
    placements.push_back(host_counts(r, platform));
    // a run without messages (one process) says how long the computation
    // takes, not how the messages scale: it enters the fit of W only
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    auto [rest_messages, rest_bytes] = rest_of(r);
    n.push_back(r.procs);
    s.push_back(rest_messages / r.procs);
    m.push_back(rest_messages > 0 ? rest_bytes / rest_messages : 0.0);
    total.push_back(rest_bytes);
    if (r.hot_receive_share > 0) {
      hot_n.push_back(r.procs);
      hot.push_back(r.hot_receive_share);
      hot_sent.push_back(r.hot_send_share);
      hot_sent_messages.push_back(r.hot_send_message_share);
    }
  }
  auto none_or_all = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; }) ||
           std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
  };
  if ((model.grid || model.halo) && (!none_or_all(s) || !none_or_all(total))) {
    // setup traffic (one-off pairs off the exchange, setup_messages_limit) is
    // fitted with the rest beside the grid (minisweep: 1-2% of the messages,
    // next to its collectives in every run); when it alone is beside the grid
    // in some runs and nothing in the others, no curve can follow it, and it
    // is left out (a pair carries at most a tenth of an exchanging pair's
    // messages), rather than the grid
    std::vector<double> s_without, total_without;
    for (std::size_t i = 0, k = 0; i < runs.size(); ++i) {
      const MeasuredRun& r = runs[i];
      if (r.procs < 2 || !(r.sends_per_process > 0))
        continue;
      GridTraffic listed, exchanged = on_grid_of(r);
      for (const auto& list : r.partners)
        for (const PartnerTraffic& p : list)
          listed.messages += p.messages, listed.bytes += p.bytes;
      s_without.push_back(std::max(0.0, s[k] - (listed.messages - exchanged.messages) / r.procs));
      total_without.push_back(std::max(0.0, total[k] - (listed.bytes - exchanged.bytes)));
      ++k;
    }
    auto zero = [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x < 1e-9; });
    };
    if (zero(s_without) && zero(total_without)) {
      for (std::size_t k = 0; k < s.size(); ++k)
        s[k] = 0, m[k] = 0, total[k] = 0;
    } else {
      if (model.grid && variant.grid_given)
        model.warnings.push_back("the traffic beside the grid is in some training runs only (no curve can follow it): "
                                 "the grid is not used, s(n) and B(n) are curves through the runs' totals");
      model.grid.reset(); // traffic beside the grid in some runs only: no curve can follow it, fit the totals
      model.halo.reset();
      fit_self();
      // the rest is now the runs' totals less their collectives
      for (std::size_t i = 0, k = 0; i < runs.size(); ++i) {
        const MeasuredRun& r = runs[i];
        if (r.procs < 2 || !(r.sends_per_process > 0))
          continue;
        auto [rest_messages, rest_bytes] = rest_of(r);
        s[k] = rest_messages / r.procs, m[k] = rest_messages > 0 ? rest_bytes / rest_messages : 0.0;
        total[k] = rest_bytes;
        ++k;
      }
    }
  }
  bool structured = model.grid || model.halo || model.collectives || model.self_traffic;
  if (variant.traffic_structure && model.smpi_factors) {
    // SMPI's factors per message size: the grid's classes and the collectives
    // take their own sizes at n, and the mix is that of the traffic beside
    // them (the largest run's sizes less theirs). A halo (no rank layout, so
    // no sizes per class) stays in the whole run's mix at the mean
    const MeasuredRun* largest = largest_sized_run(runs);
    if ((model.grid || model.collectives || model.self_traffic) && !model.halo && largest != nullptr) {
      std::vector<GridTraffic> carried;
      if (model.grid)
        carried = classed_traffic_by_size(*model.grid, *largest);
      if (model.collectives)
        for (const auto& [size, messages] : recorded_collective_traffic(*largest).sizes)
          carried.push_back({messages, messages * size});
      if (model.self_traffic) {
        SelfTrafficOfRun self = self_traffic_of(*largest);
        if (self.sized)
          for (const auto& [low, k] : self.sizes)
            carried.push_back(k);
        else
          carried.push_back(self.total);
      }
      model.size_mix = size_mix_beside(*largest, carried);
      model.size_mix_of_rest = true;
    } else {
      model.size_mix = size_mix(runs);
    }
  }
  if (structured && std::all_of(s.begin(), s.end(), [](double x) { return x == 0; })) {
    // the grid carries every message
    model.sends = Curve{CurveForm::Constant, 0, 0};
    model.message_bytes = Curve{CurveForm::Constant, 0, 0};
    model.run_bytes = Curve{CurveForm::Constant, 0, 0};
    model.curves_cross_validated = true;
  } else if (n.empty()) {
    // no run sends anything: a computation-only model
    model.sends = Curve{CurveForm::Constant, 0, 0};
    model.message_bytes = Curve{CurveForm::Constant, 0, 0};
  } else {
    // s(n) and m(n): the paper's forms unless cross-validation prefers
    // another; both stay positive and bounded wherever the model extrapolates.
    // A one-process run measured s(1) = B(1) = 0. Collectives' counts vanish
    // there smoothly (log2 n rounds, n - 1 ring steps, (n-1)/n of a tree's
    // data), a fixed halo jumps from 0 to its constant: so the shapes held to
    // 0 at one compete with the free forms rather than the zero entering every
    // fit as a point (which bent a halo's constant). With one coefficient
    // each, they, the constant and (for B) a fixed amount per process, a n,
    // are validated on two sending counts, which the held-out checks have
    bool zero_at_one = variant.traffic_structure && std::any_of(runs.begin(), runs.end(), [](const MeasuredRun& r) {
                         return r.procs == 1 && !(r.sends_per_process > 0);
                       });
    auto sends = choose_curve(n, s, all_curve_forms(), CurveForm::LogLinear, true, 1,
                              zero_at_one ? shapes_zero_at_one(false) : std::vector<Curve>{});
    auto bytes = choose_curve(n, m, all_curve_forms(), CurveForm::Inverse, true);
    model.sends = sends.curve;
    model.message_bytes = bytes.curve;
    model.curves_cross_validated = sends.cross_validated && bytes.cross_validated;
    // the network load is the product s(n) m(n), which the runs measure
    // directly: fitted as one curve of the run's bytes, it follows the code's
    // structure (an allgather's n - 1 blocks, an all-to-all's (n-1)/n of the
    // data) where the two factors, extrapolated apart, compound their errors;
    // a run's total may grow up to n^2 (every pair exchanging a fixed amount)
    if (variant.run_bytes && std::all_of(total.begin(), total.end(), [](double b) { return b > 0; })) {
      auto run = choose_curve(n, total, all_curve_forms(), CurveForm::Power, true, 2,
                              zero_at_one ? shapes_zero_at_one(true) : std::vector<Curve>{});
      model.run_bytes = run.curve;
      // m(n) now follows from B(n): its own curve is not used
      model.curves_cross_validated = sends.cross_validated && run.cross_validated;
    } else if (structured) {
      model.run_bytes = Curve{CurveForm::Constant, 0, 0}; // empty messages beside the grid
    }
  }
  // the busiest receiver's share: 1/n for uniform partners, constant for a
  // reduce's root; a count can only know it from the runs that report it
  if (variant.hot_receiver && !n.empty() && hot.size() == n.size()) {
    model.hot_receive = choose_curve(hot_n, hot, all_curve_forms(), CurveForm::Power, true).curve;
    // and what that rank sends, by the same rules: a reduce's root sends
    // almost nothing, so its node's send queue is idle where uniform senders
    // would split a one-way stream evenly between both directions
    auto known = [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0; });
    };
    if (known(hot_sent) && known(hot_sent_messages)) {
      model.hot_send = choose_curve(hot_n, hot_sent, all_curve_forms(), CurveForm::Power, true).curve;
      model.hot_send_messages =
          choose_curve(hot_n, hot_sent_messages, all_curve_forms(), CurveForm::Power, true).curve;
    }
    // with the collectives expanded, each rank's share of them is known at n; the rest's busiest receiver from
    // the replays' received bytes less the grid's and the collectives'
    if (model.collectives && !model.halo) {
      std::vector<std::pair<int, std::vector<double>>> beside;
      for (const MeasuredRun& r : runs) {
        if (r.procs < 2 || !(r.sends_per_process > 0))
          continue;
        if (r.rank_bytes_received.size() != static_cast<std::size_t>(r.procs)) {
          beside.clear();
          break;
        }
        std::vector<double> rest = r.rank_bytes_received;
        std::vector<double> collective = recorded_collective_traffic(r).received;
        bool listed = r.partners.size() == static_cast<std::size_t>(r.procs);
        std::vector<double> grid = model.grid && listed ? classify_partners(r, model.grid->rule.at(r.procs)).received
                                                        : std::vector<double>(rest.size(), 0.0);
        std::vector<double> self =
            model.self_traffic && listed ? self_traffic_of(r).received : std::vector<double>(rest.size(), 0.0);
        for (std::size_t t = 0; t < rest.size(); ++t)
          rest[t] = std::max(rest[t] - collective[t] - grid[t] - self[t], 0.0);
        beside.emplace_back(r.procs, std::move(rest));
      }
      model.collectives->rest_hot_receive = rest_hot_receive_curve(beside);
    }
  }
  // sub-visit ratios from runs without network traffic (one host, no more
  // processes than cores), as the paper profiles them; else the smallest run
  // that communicates (a one-process run has no communication to profile)
  double comm = 0;
  int used = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (placements[i].size() != 1 || runs[i].procs < 2)
      continue;
    const Host& h = platform.hosts()[static_cast<std::size_t>(placements[i].begin()->first)];
    if (runs[i].procs > h.cores)
      continue;
    comm += runs[i].mpi_s / runs[i].time_s;
    ++used;
  }
  if (used == 0) {
    const MeasuredRun* smallest = nullptr;
    for (const MeasuredRun& r : runs)
      if (r.procs > 1 && (smallest == nullptr || r.procs < smallest->procs))
        smallest = &r;
    // across hosts its MPI time holds network transfers, which the network
    // stations already model: only the waiting for partners is the paper's
    // communication overhead T_oh, when the run file tells it apart; in
    // lockstep, less the waiting for the slowest rank's computation, which
    // the imbalance below models
    if (smallest != nullptr)
      comm = (smallest->wait_s >= 0
                  ? std::max(0.0, smallest->wait_s - (model.lockstep ? imbalance_wait_s(*smallest) : 0.0))
                  : smallest->mpi_s) /
             smallest->time_s;
    used = 1;
  }
  model.v_comm = comm / used;
  model.v_comp = 1 - model.v_comm;
  // in lockstep a node's CPU phase lasts as long as its slowest process: the
  // slowest rank's work over the mean rank's, from the runs of 2 or more that
  // list their ranks' compute times. Their mean: how a split's balance
  // changes past the training counts no curve through a few ratios can tell,
  // and a constant cannot run away
  if (model.lockstep) {
    double sum = 0;
    int known = 0;
    for (const MeasuredRun& r : runs) {
      double ratio = rank_work_imbalance(r, platform);
      if (ratio > 0) {
        sum += ratio;
        ++known;
      }
    }
    model.imbalance = known > 0 ? sum / known : 1.0;
  }
  // the work the runs recorded may grow with n (HPL's polling for messages
  // is recorded as computation): W(n) = W g(n), g from the runs' compute times
  if (variant.work_growth)
    model.work_growth = fit_work_growth(runs, platform, model.work_growth_through_noise);
  for (const MeasuredRun& r : runs)
    model.largest_training_procs = std::max(model.largest_training_procs, r.procs);
  // likewise s(n) fitted through sends per process that go up and down (HPL's
  // P x Q grid: 44, 1,109, 605 a rank at 2, 4, 8)
  model.sends_through_noise = !n.empty() && model.sends.form != CurveForm::Constant && goes_up_and_down(n, s);
  // initial guesses: W from the computing share of each run; Net_Constant = 1
  std::vector<double> w0;
  for (const MeasuredRun& r : runs)
    w0.push_back(r.procs * (r.time_s - r.mpi_s) * reference_speed(r, platform) /
                 (model.work_growth ? std::max((*model.work_growth)(r.procs), 1e-9) : 1.0));
  std::sort(w0.begin(), w0.end());
  double work0 = std::max(w0[w0.size() / 2], 1.0);
  auto residuals = [&](const std::vector<double>& p) {
    QueueingModel trial = model;
    trial.work_flops = p[0];
    if (p.size() > 1)
      trial.net_constant = p[1];
    std::vector<double> r;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      try {
        r.push_back((predict_run_time(trial, platform, placements[i]).time_s - runs[i].time_s) / runs[i].time_s);
      } catch (const Error&) {
        // a trial step so far out that a demand overflows: a failed step, not an error
        r.push_back(std::numeric_limits<double>::quiet_NaN());
      }
    }
    return r;
  };
  FitResult fit = levenberg_marquardt(residuals, {work0, 1.0});
  if (!std::isfinite(fit.cost) || !fit.converged) {
    std::string worst;
    for (std::size_t i = 0; i < runs.size() && i < fit.residuals.size(); ++i)
      worst += fmt::format("\n  {}: {} processes, error {:+.1f}%", runs[i].source, runs[i].procs,
                           100 * fit.residuals[i]);
    throw Error(fmt::format("the queueing model fit did not converge after {} iterations ({}); relative errors at "
                            "the last step:{}",
                            fit.iterations, fit.message, worst));
  }
  // Runs that cannot tell W from Net_Constant (all at one count, or none
  // sending over a network interface) still determine W: fit it alone,
  // keep Net_Constant at 1 and say so; refuse only when even W is undetermined.
  std::string fixed_network;
  if (!fit.identifiable()) {
    std::set<int> counts;
    bool one_host = true;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      counts.insert(runs[i].procs);
      one_host = one_host && placements[i].size() == 1;
    }
    fixed_network = counts.size() == 1 ? fmt::format("every run has {} processes", *counts.begin())
                    : one_host         ? "every run is on one host"
                                       : "the runs load the network too alike";
    double conditioning = fit.jacobian_conditioning;
    fit = levenberg_marquardt(residuals, {work0});
    if (!std::isfinite(fit.cost) || !fit.converged || !fit.identifiable())
      throw Error(fmt::format("the {} runs cannot determine W nor Net_Constant (Jacobian conditioning {:.1e}; {}; "
                              "W alone: {}, conditioning {:.1e}); expected runs at two or more process counts, "
                              "some of them across hosts",
                              runs.size(), conditioning, fixed_network, fit.message, fit.jacobian_conditioning));
  }
  // A Net_Constant whose standard error passes 100% is not pinned by the runs (one process a node in every
  // run: the network shrinks with n as the computation does, and the two trade off): it takes the platform's
  // value, 1, W is fitted alone, and the band keeps the loose constant's uncertainty
  // W alone, Net_Constant kept at 1 (the trial model's), or nothing when that fit fails
  auto fit_work_alone = [&]() -> std::optional<FitResult> {
    FitResult alone = levenberg_marquardt(residuals, {work0});
    if (std::isfinite(alone.cost) && alone.converged && alone.identifiable())
      return alone;
    return std::nullopt;
  };
  double loose_se = 0;
  if (variant.hold_loose_network && fixed_network.empty() && fit.parameters.size() > 1 &&
      fit.standard_errors.size() > 1 && fit.standard_errors[1] > 1.0) {
    if (std::optional<FitResult> alone = fit_work_alone()) {
      loose_se = fit.standard_errors[1];
      model.warnings.push_back(fmt::format(
          "the runs do not pin Net_Constant (fitted {:.3g}, standard error {:.0f}%): it stays 1, the platform's "
          "network model, W is fitted alone, and the band carries the constant's uncertainty; runs with several "
          "processes a node would pin it",
          fit.parameters[1], 100 * fit.standard_errors[1]));
      fit = *alone;
      model.net_constant_identified = false;
    }
  }
  // Net_Constant must be told from the CPU side's misses: with a network of a
  // few percent of the training runs, 2-7% misses of the CPU form (recorded
  // work that goes up and down, the slowest rank changing) are enough to
  // double it (PENNANT's runs do), and it then multiplies a
  // network that is half the run at 64 processes. The runs identify it when
  // its effect on the most network-heavy one passes twice that scatter; when
  // they do not, the fit says so, and with identify_network keeps it at 1
  // (the platform's network model). The evidence is measured whatever the
  // variant (also when the Jacobian kept it at 1): the band carries
  // Net_Constant's uncertainty from it (model_band_terms)
  std::optional<NetworkEvidence> evidence;
  {
    QueueingModel fitted = model;
    fitted.work_flops = fit.parameters[0];
    fitted.net_constant = fit.parameters.size() > 1 ? fit.parameters[1] : 1.0;
    evidence = network_evidence(fitted, runs, placements, platform);
    if (evidence && fixed_network.empty() && fit.parameters.size() > 1 &&
        !net_constant_identified(fit.parameters[1], evidence->share_max, evidence->cpu_scatter)) {
      double nc = fit.parameters[1];
      bool kept = false;
      if (variant.identify_network)
        if (std::optional<FitResult> alone = fit_work_alone()) {
          fit = *alone;
          kept = true;
        }
      model.net_constant_identified = false;
      model.warnings.push_back(fmt::format(
          "the runs do not identify Net_Constant: the network is at most {:.1f}% of a training run (at "
          "Net_Constant 1), and the fitted {:.3g} moves that run by {:.1f}%, within twice the CPU side's scatter "
          "({:.1f}%: the model's CPU phase against the replays' slowest rank); {}the band carries its uncertainty "
          "times the network's share of each prediction",
          100 * evidence->share_max, nc, 100 * evidence->share_max * std::fabs(nc - 1), 100 * evidence->cpu_scatter,
          kept ? "Net_Constant stays 1 (the platform's network model) and " : ""));
    }
  }
  model.work_flops = fit.parameters[0];
  model.net_constant = fixed_network.empty() && fit.parameters.size() > 1 ? fit.parameters[1] : 1.0;
  if (!fixed_network.empty())
    model.net_constant_identified = false;
  model.residuals = fit.residuals;
  model.iterations = fit.iterations;
  model.fit_message = fit.message;
  model.degrees_of_freedom = fit.degrees_of_freedom;
  std::size_t constants = fit.parameters.size();
  if (fit.standard_errors.size() == constants) {
    model.work_relative_se = fit.standard_errors[0];
    model.net_constant_relative_se = constants > 1 ? fit.standard_errors[1] : loose_se;
  }
  if (evidence) {
    model.cpu_scatter = evidence->cpu_scatter;
    model.training_network_share = evidence->share_max;
    double from_cpu = evidence->share_max > 0 ? evidence->cpu_scatter / (evidence->share_max * model.net_constant)
                                              : 1.0;
    model.net_constant_uncertainty =
        std::min(1.0, std::sqrt(std::pow(model.net_constant_relative_se, 2) + from_cpu * from_cpu));
  }
  if (!fixed_network.empty())
    model.warnings.push_back(fmt::format("the runs cannot identify Net_Constant ({}): only W is fitted, Net_Constant "
                                         "stays 1, and predictions that send across hosts are not calibrated on "
                                         "network traffic; add runs at other counts that span hosts",
                                         fixed_network));
  if (fit.degrees_of_freedom == 0)
    model.warnings.push_back(fmt::format("{} runs for {} constant{}: the fit is exact by construction, so it says "
                                         "nothing about whether the model suits this code; measure more runs",
                                         runs.size(), constants, constants == 1 ? "" : "s"));
  if (model.work_growth && model.work_growth_through_noise)
    model.warnings.push_back(fmt::format(
        "the work the runs recorded goes up and down with the process count, and W(n) = W x ({}) is a line through "
        "it: past {} processes the band spans the work held at its value there",
        model.work_growth->describe(), model.largest_training_procs));
  if (model.sends_through_noise)
    model.warnings.push_back(fmt::format(
        "the runs' sends per process go up and down with the process count, and s(n) = {} is a line through them: "
        "past {} processes the band spans s(n) held at its value there",
        model.sends.describe(), model.largest_training_procs));
  nlohmann::json sources = nlohmann::json::array();
  for (const MeasuredRun& r : runs)
    sources.push_back({{"source", r.source}, {"procs", r.procs}, {"time_s", r.time_s}});
  model.provenance = {{"runs", sources}};
  return model;
}

AmdahlModel fit_amdahl(const std::vector<MeasuredRun>& runs)
{
  std::vector<double> n, t;
  for (const MeasuredRun& r : runs) {
    n.push_back(r.procs);
    t.push_back(r.time_s);
  }
  if (runs.size() < 2)
    throw Error("the Amdahl baseline needs at least 2 runs");
  Curve c = fit_curve(CurveForm::Inverse, n, t);
  AmdahlModel a;
  a.serial_s = c.a;
  a.parallel_s = c.form == CurveForm::Inverse ? c.b : 0.0;
  return a;
}

void regrid_queueing_model(QueueingModel& model, const std::string& grid_spec, const std::string& grid_file,
                           const std::string& model_name)
{
  if (!model.grid)
    throw Error(fmt::format("{}: the model has no process grid (fit it with a grid)", model_name));
  GridRule rule;
  if (!grid_file.empty()) {
    rule = load_grid_file(grid_file);
  } else {
    std::vector<GridRule> rules = grid_rules_from_spec(grid_spec);
    rule = model.grid->rule;
    rule.kind = "dims_create";
    rule.grids.clear();
    if (rules.front().dimensions == rules.back().dimensions)
      rule.dimensions = rules.front().dimensions;
    if (grid_spec.find(":periodic") != std::string::npos)
      rule.periodic = true;
    if (grid_spec.find(":transposed") != std::string::npos)
      rule.transposed = true;
  }
  if (rule.dimensions != model.grid->rule.dimensions)
    throw Error(fmt::format("{}: the grid has {} axes, the model's classes {}",
                            grid_file.empty() ? "grid '" + grid_spec + "'" : grid_file, rule.dimensions,
                            model.grid->rule.dimensions));
  model.grid->rule = rule;
}

} // namespace perfcast

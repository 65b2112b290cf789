#include "qn/QueueingModel.hpp"

#include "core/Error.hpp"
#include "core/Version.hpp"
#include "fit/LeastSquares.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <set>

namespace perfcast {

namespace {

// Network start-up and per-byte time of a route: its latency and the
// inverse of its smallest bandwidth.
struct Nic {
  double startup_s = 0;
  double per_byte_s = 0;
  bool exists = false;
};

Nic nic_of_route(const Platform& platform, int src, int dst)
{
  if (!platform.has_route(src, dst))
    return {};
  Route r = platform.route(src, dst);
  if (r.links.empty())
    return {};
  double bw = 0;
  for (int l : r.links) {
    double b = platform.links()[static_cast<std::size_t>(l)].bandwidth_Bps;
    bw = bw == 0 ? b : std::min(bw, b);
  }
  return {r.latency_s, bw > 0 ? 1.0 / bw : 0.0, true};
}

// The route of a host's messages to itself when it crosses the host's own
// NIC (shares a link with its route to another host), as in a SimGrid cluster
// without loopback; none when a loopback or nothing carries them.
Nic self_route_via_nic(const Platform& platform, int host)
{
  if (!platform.has_route(host, host))
    return {};
  Route self = platform.route(host, host);
  int n = static_cast<int>(platform.hosts().size());
  for (int other = 0; other < n; ++other) {
    if (other == host || !platform.has_route(host, other))
      continue;
    Route away = platform.route(host, other);
    for (int l : self.links)
      if (std::find(away.links.begin(), away.links.end(), l) != away.links.end())
        return nic_of_route(platform, host, host);
    return {};
  }
  return nic_of_route(platform, host, host); // a one-host platform: its only route
}

// A host's NIC as seen by messages to another host; none on a one-host platform.
Nic nic_of(const Platform& platform, int host)
{
  int n = static_cast<int>(platform.hosts().size());
  for (int other = 0; other < n; ++other)
    if (other != host && platform.has_route(host, other))
      return nic_of_route(platform, host, other);
  return {};
}

// s(n) as the network uses it: with one process, T = V_comp W / speed for
// any s (eq. 3, 8, 10), so one cycle stands for the run, whatever a curve
// fitted on runs that send says at n = 1
double cycles_at(const QueueingModel& model, double n)
{
  if (n < 2)
    return 1.0;
  double grid = model.grid ? grid_traffic(*model.grid, static_cast<int>(std::lround(n))).messages / n : 0.0;
  return std::max(model.sends(n) + grid, 1e-12);
}

double reference_speed(const MeasuredRun& run, const Platform& platform)
{
  // process-weighted mean core speed of the hosts the run used
  double s = 0;
  for (const auto& [host, count] : run.placement)
    s += platform.hosts()[static_cast<std::size_t>(platform.find_host(host))].speed_flops * count;
  return s / run.procs;
}

} // namespace

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

double message_bytes_at(const QueueingModel& model, double n)
{
  if (!model.run_bytes)
    return std::max(model.message_bytes(n), 0.0);
  // m(n) = B(n) / (n s(n)): the bytes a run sends, spread over its messages
  double messages = n * cycles_at(model, n);
  double grid = model.grid && n >= 2 ? grid_traffic(*model.grid, static_cast<int>(std::lround(n))).bytes : 0.0;
  return (std::max((*model.run_bytes)(n), 0.0) + grid) / messages;
}

double hot_receive_share_at(const QueueingModel& model, double n)
{
  double uniform = 1 / std::max(n, 1.0);
  if (!model.hot_receive)
    return uniform;
  return std::clamp((*model.hot_receive)(n), uniform, 1.0);
}

namespace {

// Where a cycle's message goes, per node: the chance it leaves the node for
// another, enters it from another, or stays between two of its processes.
// Senders are uniform (a process sends with probability 1/n). Receivers: the
// busiest, put on the placement's first host, has weight h, the other n-1
// ranks (1-h)/(n-1) each (h = 1/n: uniform). With `others`, a process sends to
// one of the n-1 others in proportion to their weights (the busiest receiver
// itself sends to the others evenly); without, as the paper's eq. 9, its
// partner may be itself, which halves a 2-process run's network traffic.
struct NodeTraffic {
  double out = 0, in = 0, local = 0;
};

std::vector<NodeTraffic> node_traffic(const HostCounts& placement, double n, double hot, bool others)
{
  std::vector<NodeTraffic> t(placement.size());
  if (n < 2)
    return t;
  double other = (1 - hot) / (n - 1);
  // a plain (not the busiest) source reaches weight 1 - other, its own excluded
  double norm = others ? 1 - other : 1.0;
  int hot_host = placement.begin()->first;
  std::size_t k = 0;
  for (const auto& [host, count] : placement) {
    double ni = count;
    bool has_hot = host == hot_host;
    double weight = has_hot ? hot + (ni - 1) * other : ni * other; // W_i, node i's share as a receiver
    double plain_here = has_hot ? ni - 1 : ni;
    double plain_elsewhere = (n - 1) - plain_here;
    NodeTraffic& x = t[k++];
    x.out = plain_here / n * (1 - weight) / norm;
    x.local = plain_here / n * (weight - other) / norm;
    x.in = plain_elsewhere / n * weight / norm;
    // the busiest receiver as a source: to the n-1 others evenly (with
    // `others`), or by weight, itself included (without)
    if (has_hot) {
      x.out += (others ? (n - ni) / (n - 1) : 1 - weight) / n;
      x.local += (others ? (ni - 1) / (n - 1) : weight - hot) / n;
    } else {
      x.in += (others ? ni / (n - 1) : weight) / n;
    }
    x.local = std::max(0.0, x.local);
  }
  return t;
}

} // namespace

ClosedNetwork build_network(const QueueingModel& model, const Platform& platform, const HostCounts& placement)
{
  double n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  if (n < 1)
    throw Error("placement has no process");
  double s = cycles_at(model, n);
  double m = message_bytes_at(model, n);
  // perfcast: runs simulated by SimGrid's SMPI network (perfcast replay's
  // default) paid each message's route latency times lat_factor and moved it
  // at the bandwidth times bw_factor, both piecewise in its size (envelope
  // included); the paper has one T_w per byte whatever the size. Without the
  // factors, Net_Constant fitted where messages are large (factor 0.94) is
  // wrong by up to 1.6 times where they are small
  constexpr double kEnvelopeBytes = 16;
  // (per size class when the runs reported their sizes: a 64-byte message pays
  // the small messages' latency factor even when the mean is 100 kB)
  auto [latency_factor, per_byte_factor] =
      model.smpi_factors ? smpi_mixed_factors(model.size_mix, m, kEnvelopeBytes) : std::pair{1.0, 1.0};
  std::vector<NodeTraffic> traffic = node_traffic(placement, n, hot_receive_share_at(model, n), model.other_partners);
  ClosedNetwork net;
  double sent_s = 0, received_s = 0; // a cycle's demand at all send queues, and at all receive queues
  std::size_t node = 0;
  for (const auto& [host, count] : placement) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(host)];
    const NodeTraffic& t = traffic[node++];
    double ni = count, share = ni / n, rest = (n - ni) / n, local = (ni - 1) / n;
    double v_cpu = share * model.v_comp + share * local * model.v_comm + rest * share * model.v_comm; // eq. 8
    double s_cpu = model.work_flops / (s * n * h.speed_flops);                                         // eq. 3, 6
    Nic nic = nic_of(platform, host);
    // perfcast: when the platform routes a host's messages to itself over its
    // own links (a SimGrid cluster without loopback), local messages queue at
    // the NIC like remote ones; the paper counts them as CPU overhead only
    Nic self = model.local_via_nic ? self_route_via_nic(platform, host) : Nic{};
    if (!nic.exists)
      nic = self;
    double v_out = t.out + (self.exists ? t.local : 0.0); // first term of eq. 9
    double v_in = t.in + (self.exists ? t.local : 0.0);   // second term of eq. 9
    // eq. 4, 5, 7: Net_Constant corrects the whole message time, start-up included
    double s_net = m * nic.per_byte_s * per_byte_factor * model.net_constant;
    net.stations.push_back({h.name + ".cpu", StationKind::MultiServer, v_cpu * s_cpu, h.cores, {}});
    if (model.duplex_nic) {
      // messages leaving and entering node i queue apart
      net.stations.push_back({h.name + ".net-out", StationKind::Queue, v_out * s_net, 1, {}});
      net.stations.push_back({h.name + ".net-in", StationKind::Queue, v_in * s_net, 1, {}});
      sent_s += v_out * s_net;
      received_s += v_in * s_net;
    } else {
      net.stations.push_back({h.name + ".net", StationKind::Queue, (v_out + v_in) * s_net, 1, {}});
    }
    // the start-up time the paper sets to 0: paid once by every message that
    // leaves node i over a link, but pipelined, so a delay rather than a share
    // of the NIC
    double startup = (t.out * nic.startup_s + (self.exists ? t.local * self.startup_s : 0.0)) * latency_factor;
    if (model.latency_delay && startup > 0)
      net.stations.push_back({h.name + ".latency", StationKind::Delay, startup * model.net_constant, 1, {}});
  }
  // a transfer holds its sender's up link and its receiver's down link at the
  // same time: unhindered, it takes one transfer time, not the sum of the two
  // queues' services. The smaller total is served twice in the residences;
  // counted once, a lone message costs m T_w and a saturated queue still
  // bounds the throughput. Without it Net_Constant halved to fit small runs
  // and then halved the contention of large ones
  if (model.duplex_nic)
    net.overlap_s = std::min(sent_s, received_s);
  return net;
}

Prediction predict_run_time(const QueueingModel& model, const Platform& platform, const HostCounts& placement,
                            MvaSolver solver)
{
  ClosedNetwork net = build_network(model, platform, placement);
  int n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  // exact MVA costs n^2 per multi-server station: beyond a budget, approximate
  double exact_cost = static_cast<double>(n) * n * static_cast<double>(placement.size());
  bool exact = solver == MvaSolver::Exact || (solver == MvaSolver::Automatic && exact_cost <= 2e5);
  MvaResult r = exact ? solve_mva(net, n) : solve_mva_approximate(net, n);
  Prediction p;
  p.procs = n;
  p.exact = exact;
  p.response_s = static_cast<double>(n) / r.throughput; // R including every station
  p.cycles = cycles_at(model, n);
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
  // the network model of the runs, when every run names the same one
  model.smpi_factors = variant.network_factors && std::all_of(runs.begin(), runs.end(), [](const MeasuredRun& r) {
    return r.network == "smpi";
  });
  // a halo exchange on a grid grows with the grid's cut lines, which no curve
  // through 2, 4 and 8 processes can tell (2x1, 2x2, 2x4 cut as 1, 2, 4; 4x4
  // as 6): taken from the partner lists, the curves fit the rest of the traffic
  if (variant.traffic_structure && variant.run_bytes)
    model.grid = find_grid_exchange(runs);
  if (variant.traffic_structure && model.smpi_factors)
    model.size_mix = size_mix(runs);
  std::vector<double> n, s, m, total, hot_n, hot;
  std::vector<HostCounts> placements;
  for (const MeasuredRun& r : runs) {
    placements.push_back(host_counts(r, platform));
    // a run without messages (one process) says how long the computation
    // takes, not how the messages scale: it enters the fit of W only
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    GridTraffic on_grid = model.grid ? measured_grid_traffic(r) : GridTraffic{};
    double rest_messages = std::max(0.0, r.procs * r.sends_per_process - on_grid.messages);
    double rest_bytes = std::max(0.0, r.procs * r.sends_per_process * r.message_bytes - on_grid.bytes);
    n.push_back(r.procs);
    s.push_back(rest_messages / r.procs);
    m.push_back(rest_messages > 0 ? rest_bytes / rest_messages : 0.0);
    total.push_back(rest_bytes);
    if (r.hot_receive_share > 0) {
      hot_n.push_back(r.procs);
      hot.push_back(r.hot_receive_share);
    }
  }
  auto none_or_all = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; }) ||
           std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
  };
  if (model.grid && (!none_or_all(s) || !none_or_all(total)))
    model.grid.reset(); // traffic beside the grid in some runs only: no curve can follow it, fit the totals
  if (!model.grid)
    for (std::size_t i = 0, k = 0; i < runs.size(); ++i) {
      const MeasuredRun& r = runs[i];
      if (r.procs < 2 || !(r.sends_per_process > 0))
        continue;
      s[k] = r.sends_per_process, m[k] = r.message_bytes, total[k] = r.procs * r.sends_per_process * r.message_bytes;
      ++k;
    }
  if (model.grid && std::all_of(s.begin(), s.end(), [](double x) { return x == 0; })) {
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
    } else if (model.grid) {
      model.run_bytes = Curve{CurveForm::Constant, 0, 0}; // empty messages beside the grid
    }
  }
  // the busiest receiver's share: 1/n for uniform partners, constant for a
  // reduce's root; a count can only know it from the runs that report it
  if (variant.hot_receiver && !n.empty() && hot.size() == n.size())
    model.hot_receive = choose_curve(hot_n, hot, all_curve_forms(), CurveForm::Power, true).curve;
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
    // communication overhead T_oh, when the run file tells it apart
    if (smallest != nullptr)
      comm = (smallest->wait_s >= 0 ? smallest->wait_s : smallest->mpi_s) / smallest->time_s;
    used = 1;
  }
  model.v_comm = comm / used;
  model.v_comp = 1 - model.v_comm;
  // initial guesses: W from the computing share of each run; Net_Constant = 1
  std::vector<double> w0;
  for (const MeasuredRun& r : runs)
    w0.push_back(r.procs * (r.time_s - r.mpi_s) * reference_speed(r, platform));
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
  model.work_flops = fit.parameters[0];
  model.net_constant = fixed_network.empty() ? fit.parameters[1] : 1.0;
  model.residuals = fit.residuals;
  model.iterations = fit.iterations;
  model.fit_message = fit.message;
  model.degrees_of_freedom = fit.degrees_of_freedom;
  std::size_t constants = fit.parameters.size();
  if (fit.standard_errors.size() == constants) {
    model.work_relative_se = fit.standard_errors[0];
    model.net_constant_relative_se = constants > 1 ? fit.standard_errors[1] : 0.0;
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

} // namespace perfcast

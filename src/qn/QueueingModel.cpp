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
  return n < 2 ? 1.0 : std::max(model.sends(n), 1e-12);
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

ClosedNetwork build_network(const QueueingModel& model, const Platform& platform, const HostCounts& placement)
{
  double n = 0;
  for (const auto& [host, count] : placement)
    n += count;
  if (n < 1)
    throw Error("placement has no process");
  double s = cycles_at(model, n);
  double m = std::max(model.message_bytes(n), 0.0);
  ClosedNetwork net;
  for (const auto& [host, count] : placement) {
    const Host& h = platform.hosts()[static_cast<std::size_t>(host)];
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
    double v_out = share * rest + (self.exists ? share * local : 0.0); // first term of eq. 9
    double v_in = rest * share + (self.exists ? share * local : 0.0);  // second term of eq. 9
    // eq. 4, 5, 7: Net_Constant corrects the whole message time, start-up included
    double s_net = m * nic.per_byte_s * model.net_constant;
    net.stations.push_back({h.name + ".cpu", StationKind::MultiServer, v_cpu * s_cpu, h.cores, {}});
    if (model.duplex_nic) {
      // messages leaving and entering node i queue apart
      net.stations.push_back({h.name + ".net-out", StationKind::Queue, v_out * s_net, 1, {}});
      net.stations.push_back({h.name + ".net-in", StationKind::Queue, v_in * s_net, 1, {}});
    } else {
      net.stations.push_back({h.name + ".net", StationKind::Queue, (v_out + v_in) * s_net, 1, {}});
    }
    // the start-up time the paper sets to 0: paid once by every message that
    // leaves node i over a link, but pipelined, so a delay rather than a share
    // of the NIC
    double startup = share * rest * nic.startup_s + (self.exists ? share * local * self.startup_s : 0.0);
    if (model.latency_delay && startup > 0)
      net.stations.push_back({h.name + ".latency", StationKind::Delay, startup * model.net_constant, 1, {}});
  }
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
  std::vector<double> n, s, m;
  std::vector<HostCounts> placements;
  for (const MeasuredRun& r : runs) {
    placements.push_back(host_counts(r, platform));
    // a run without messages (one process) says how long the computation
    // takes, not how the messages scale: it enters the fit of W only
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    n.push_back(r.procs);
    s.push_back(r.sends_per_process);
    m.push_back(r.message_bytes);
  }
  if (n.empty()) {
    // no run sends anything: a computation-only model
    model.sends = Curve{CurveForm::Constant, 0, 0};
    model.message_bytes = Curve{CurveForm::Constant, 0, 0};
  } else {
    // s(n) and m(n): the paper's forms unless cross-validation prefers
    // another; both stay positive and bounded wherever the model extrapolates
    auto sends = choose_curve(n, s, all_curve_forms(), CurveForm::LogLinear, true);
    auto bytes = choose_curve(n, m, all_curve_forms(), CurveForm::Inverse, true);
    model.sends = sends.curve;
    model.message_bytes = bytes.curve;
    model.curves_cross_validated = sends.cross_validated && bytes.cross_validated;
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
      throw Error(fmt::format("the {} runs cannot determine W nor Net_Constant (Jacobian conditioning {:.1e}; {}); "
                              "expected runs at two or more process counts, some of them across hosts",
                              runs.size(), conditioning, fixed_network));
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

namespace {

nlohmann::json curve_json(const Curve& c) { return {{"form", curve_form_name(c.form)}, {"a", c.a}, {"b", c.b}}; }

Curve curve_from(const nlohmann::json& j, const std::string& where)
{
  Curve c;
  try {
    c.form = curve_form_from_name(j.at("form").get<std::string>());
  } catch (const Error& e) {
    fail_in(where, e.what());
  }
  c.a = j.at("a").get<double>();
  c.b = j.at("b").get<double>();
  return c;
}

} // namespace

nlohmann::json model_to_json(const QueueingModel& m, const AmdahlModel& a)
{
  return {{"format", "perfcast-model"},
          {"version", 1},
          {"model", "queueing-network"},
          {"paper", "Saad, El-Mahdy, El-Shishiny, RAPIDO 2019"},
          {"sends_per_process", curve_json(m.sends)},
          {"message_bytes", curve_json(m.message_bytes)},
          {"v_comp", m.v_comp},
          {"v_comm", m.v_comm},
          {"work_flops", m.work_flops},
          {"net_constant", m.net_constant},
          {"duplex_nic", m.duplex_nic},
          {"latency_delay", m.latency_delay},
          {"local_via_nic", m.local_via_nic},
          {"fit", {{"relative_residuals", m.residuals}, {"iterations", m.iterations}, {"message", m.fit_message},
                   {"curves_cross_validated", m.curves_cross_validated},
                   {"degrees_of_freedom", m.degrees_of_freedom},
                   {"relative_standard_errors", {{"work_flops", m.work_relative_se},
                                                 {"net_constant", m.net_constant_relative_se}}},
                   {"warnings", m.warnings}}},
          {"reliability", {{"method", m.reliability.method}, {"queueing_error", m.reliability.queueing_error},
                           {"amdahl_error", m.reliability.amdahl_error}, {"trusted", m.reliability.trusted},
                           {"warning", m.reliability.warning}}},
          {"generator", kPerfcastGenerator},
          {"provenance", m.provenance},
          {"amdahl", {{"serial_s", a.serial_s}, {"parallel_s", a.parallel_s}}}};
}

std::pair<QueueingModel, AmdahlModel> model_from_json(const std::string& text, const std::string& path)
{
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("format", "") != "perfcast-model" || j.value("model", "") != "queueing-network")
      fail_in(path, "expected a perfcast queueing-network model (\"format\": \"perfcast-model\")");
    QueueingModel m;
    m.sends = curve_from(j.at("sends_per_process"), path);
    m.message_bytes = curve_from(j.at("message_bytes"), path);
    m.v_comp = j.at("v_comp").get<double>();
    m.v_comm = j.at("v_comm").get<double>();
    m.work_flops = j.at("work_flops").get<double>();
    m.net_constant = j.at("net_constant").get<double>();
    m.duplex_nic = j.value("duplex_nic", true);
    m.latency_delay = j.value("latency_delay", true);
    m.local_via_nic = j.value("local_via_nic", false);
    if (!(m.work_flops > 0) || !(m.net_constant > 0) || !std::isfinite(m.work_flops) || !std::isfinite(m.net_constant))
      fail_in(path, "expected positive finite work_flops and net_constant");
    if (j.contains("fit")) {
      const auto& fit = j.at("fit");
      m.degrees_of_freedom = fit.value("degrees_of_freedom", 0);
      if (fit.contains("warnings"))
        m.warnings = fit.at("warnings").get<std::vector<std::string>>();
    }
    if (j.contains("reliability")) {
      const auto& rel = j.at("reliability");
      m.reliability.method = rel.value("method", "");
      m.reliability.queueing_error = rel.value("queueing_error", -1.0);
      m.reliability.amdahl_error = rel.value("amdahl_error", -1.0);
      m.reliability.trusted = rel.value("trusted", false);
      m.reliability.warning = rel.value("warning", "");
    }
    if (j.contains("provenance"))
      m.provenance = j.at("provenance");
    AmdahlModel a;
    a.serial_s = j.at("amdahl").at("serial_s").get<double>();
    a.parallel_s = j.at("amdahl").at("parallel_s").get<double>();
    return {m, a};
  } catch (const nlohmann::json::exception& e) {
    fail_in(path, fmt::format("not a valid model file: {}", e.what()));
  }
}

} // namespace perfcast

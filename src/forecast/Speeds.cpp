#include "forecast/Speeds.hpp"

#include "core/Error.hpp"
#include "core/Statistics.hpp"
#include "trace/Tracing.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace perfcast {
namespace {

namespace fs = std::filesystem;

/// z(0.95): a nominal 90% interval is this many standard deviations either side.
constexpr double kZ90 = 1.6448536;

/// "PREFIX=REST" or "REST": the prefix ("" for every host) and the rest.
std::pair<std::string, std::string> split_hosts(const std::string& text)
{
  auto eq = text.find('=');
  if (eq == std::string::npos)
    return {"", text};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool positive_number(const std::string& text, double& out)
{
  std::istringstream in(text);
  in >> out;
  return in && in.peek() == std::char_traits<char>::eof() && std::isfinite(out) && out > 0;
}

/// The directory of a perfcast trace when `trace` is one (the directory itself, or an index beside its profile), ""
/// otherwise.
std::string perfcast_trace_dir(const std::string& trace)
{
  std::error_code ec;
  fs::path dir = fs::is_directory(trace, ec) ? fs::path(trace) : fs::path(trace).parent_path();
  if (dir.empty())
    dir = ".";
  if (!fs::exists(dir / "profile.json", ec) || !fs::exists(dir / "rank-0.txt", ec))
    return "";
  std::ifstream in(dir / "rank-0.txt");
  std::string line;
  std::getline(in, line);
  return line.rfind("# perfcast: header ", 0) == 0 ? dir.string() : "";
}

} // namespace

SpeedRule speed_factor_rule(const std::string& text)
{
  auto [hosts, value] = split_hosts(text);
  SpeedRule r;
  r.hosts = hosts;
  if (!positive_number(value, r.factor))
    throw Error(fmt::format("--speed-factor '{}': expected [HOST_PREFIX=]F with F a positive number, how many times "
                            "as fast as the traced machine the hosts run the computation (2 for twice)",
                            text));
  r.how = fmt::format("--speed-factor {}", text);
  return r;
}

SpeedRule benchmark_rule(const std::string& text)
{
  auto [hosts, rest] = split_hosts(text);
  auto c1 = rest.find(':');
  auto c2 = c1 == std::string::npos ? c1 : rest.find(':', c1 + 1);
  double target = 0, traced = 0;
  if (c1 == 0 || c2 == std::string::npos || !positive_number(rest.substr(c1 + 1, c2 - c1 - 1), target) ||
      !positive_number(rest.substr(c2 + 1), traced))
    throw Error(fmt::format("--benchmark '{}': expected [HOST_PREFIX=]NAME:TARGET:TRACED, the rates of one benchmark "
                            "(any unit, the same for both) on a core of the target and of the traced machine, such "
                            "as hpl-core:38.4:19.2",
                            text));
  SpeedRule r;
  r.hosts = hosts;
  r.factor = target / traced;
  r.how = fmt::format("--benchmark {}: {} at {:g} on the target against {:g} on the traced machine", text,
                      rest.substr(0, c1), target, traced);
  return r;
}

SpeedRule probe_rule(const std::string& text)
{
  auto [hosts, path] = split_hosts(text);
  std::ifstream in(path);
  if (!in)
    throw Error(fmt::format("--probe {}: cannot read the file", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    fail_in(path, fmt::format("expected the JSON platform a `perfcast probe -o FILE` wrote on a node of the target "
                              "(not JSON: {})",
                              e.what()));
  }
  const nlohmann::json* cpu = nullptr;
  if (j.is_object() && j.value("format", "") == "perfcast-platform" && j.contains("description") &&
      j["description"].is_object() && j["description"].contains("figures") &&
      j["description"]["figures"].is_object() && j["description"]["figures"].contains("cpu"))
    cpu = &j["description"]["figures"]["cpu"];
  if (!cpu || !cpu->is_object() || !cpu->contains("rate_per_s") || !(*cpu)["rate_per_s"].is_object() ||
      !(*cpu)["rate_per_s"].contains("mean") || !(*cpu)["rate_per_s"]["mean"].is_number())
    fail_in(path, "expected the platform a `perfcast probe -o FILE` wrote on a node of the target, with its measured "
                  "figures (description.figures.cpu.rate_per_s); a platform from elsewhere states a speed but not "
                  "on the tracer's kernel: give --speed-factor or --benchmark instead");
  const nlohmann::json& rate = (*cpu)["rate_per_s"];
  SpeedRule r;
  r.hosts = hosts;
  r.target_rate = rate["mean"].get<double>();
  if (!(r.target_rate > 0))
    fail_in(path, "description.figures.cpu.rate_per_s.mean: expected a positive rate");
  std::string unit = cpu->value("unit", "");
  if (unit != "flop" && unit != "instructions")
    fail_in(path, fmt::format("description.figures.cpu.unit '{}': expected flop or instructions", unit));
  r.unit = unit == "flop" ? "flops" : "instructions";
  // the probe's 95% interval of its mean, as a nominal 90% half-width
  if (rate.contains("ci95") && rate["ci95"].is_array() && rate["ci95"].size() == 2 && rate["ci95"][0].is_number() &&
      rate["ci95"][1].is_number())
    r.uncertainty = (rate["ci95"][1].get<double>() - rate["ci95"][0].get<double>()) / 2 / r.target_rate * kZ90 /
                    1.959964;
  std::string host = j["description"]["figures"].value("host", "");
  r.how = fmt::format("--probe {}: {:.4g} G{}/s a core{}", path, r.target_rate / 1e9,
                      r.unit == "flops" ? "flop" : "instruction", host.empty() ? "" : " on " + host);
  return r;
}

TracedRates traced_rates(const std::vector<std::string>& traces, double given_rate)
{
  TracedRates out;
  std::vector<std::vector<TracedRankHeader>> headers;
  for (const std::string& t : traces) {
    std::string dir = perfcast_trace_dir(t);
    if (dir.empty()) {
      if (out.without_header.empty())
        out.without_header = t;
      headers.emplace_back();
      out.program.emplace_back();
      continue;
    }
    headers.push_back(read_trace_headers(dir));
    out.program.push_back(headers.back().empty() ? "" : headers.back().front().program);
    for (const TracedRankHeader& h : headers.back()) {
      if (out.unit.empty())
        out.unit = h.compute_unit;
      else if (h.compute_unit != out.unit)
        fail_in(t, fmt::format("rank {} counts computation in {} but the first run in {}: runs traced with and "
                               "without hardware counters cannot be compared (expected one unit)",
                               h.rank, h.compute_unit, out.unit));
    }
  }
  if (!out.without_header.empty())
    out.unit.clear();
  auto rate_of = [&](const TracedRankHeader& h) { return out.unit == "instructions" ? h.instructions_per_s : h.flops_per_s; };
  if (!out.unit.empty()) {
    std::vector<double> all, run_medians;
    std::vector<std::vector<double>> per_host;
    for (const auto& run : headers) {
      std::vector<double> rates;
      for (const TracedRankHeader& h : run) {
        double r = rate_of(h);
        if (!(r > 0))
          continue;
        rates.push_back(r);
        all.push_back(r);
        auto it = std::find(out.hosts.begin(), out.hosts.end(), h.host);
        if (it == out.hosts.end()) {
          out.hosts.push_back(h.host);
          per_host.emplace_back();
          it = out.hosts.end() - 1;
        }
        per_host[static_cast<std::size_t>(it - out.hosts.begin())].push_back(r);
      }
      if (!rates.empty())
        run_medians.push_back(median(rates));
    }
    out.reference = median(all);
    for (const auto& v : per_host)
      out.host_rate.push_back(median(v));
    if (run_medians.size() > 1 && out.reference > 0) {
      double mean = 0, ss = 0;
      for (double m : run_medians)
        mean += m / static_cast<double>(run_medians.size());
      for (double m : run_medians)
        ss += (m - mean) * (m - mean);
      out.spread = kZ90 * std::sqrt(ss / static_cast<double>(run_medians.size() - 1)) / out.reference;
    }
    // counts of instructions are counts; computation counted as CPU seconds times a measured rate goes back to
    // seconds and on at its host's rate
    for (const auto& run : headers) {
      std::vector<double> scale;
      if (out.unit == "flops")
        for (const TracedRankHeader& h : run) {
          auto it = std::find(out.hosts.begin(), out.hosts.end(), h.host);
          double own = rate_of(h);
          scale.push_back(own > 0 && it != out.hosts.end()
                              ? out.host_rate[static_cast<std::size_t>(it - out.hosts.begin())] / own
                              : 1.0);
        }
      out.compute_scale.push_back(std::move(scale));
    }
  } else {
    out.compute_scale.assign(traces.size(), {});
  }
  if (given_rate > 0) {
    out.reference = given_rate;
    out.spread = 0;
  }
  return out;
}

TargetSpeeds apply_speeds(const Platform& target, const std::vector<SpeedRule>& rules, const TracedRates& traced)
{
  TargetSpeeds out;
  out.platform = target;
  const auto& hosts = target.hosts();
  out.factor.assign(hosts.size(), 0);
  std::vector<int> rule_of(hosts.size(), -1);
  std::vector<int> matched(rules.size(), 0);
  for (std::size_t h = 0; h < hosts.size(); ++h)
    for (std::size_t k = 0; k < rules.size(); ++k) {
      if (hosts[h].name.rfind(rules[k].hosts, 0) != 0)
        continue;
      int& best = rule_of[h];
      if (best >= 0 && rules[static_cast<std::size_t>(best)].hosts.size() == rules[k].hosts.size())
        throw Error(fmt::format("{} and {}: both state the speed of host {} (expected one rule per host prefix)",
                                rules[static_cast<std::size_t>(best)].how, rules[k].how, hosts[h].name));
      if (best < 0 || rules[static_cast<std::size_t>(best)].hosts.size() < rules[k].hosts.size())
        best = static_cast<int>(k);
    }
  bool known = traced.reference > 0;
  std::string unknown_why =
      traced.without_header.empty()
          ? std::string("the traces record no positive rate")
          : fmt::format("{} has no tracer header saying what rate its computation was counted at",
                        traced.without_header);
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t h = 0; h < hosts.size(); ++h)
    if (rule_of[h] >= 0)
      ++matched[static_cast<std::size_t>(rule_of[h])];
  for (std::size_t k = 0; k < rules.size(); ++k) {
    const SpeedRule& r = rules[k];
    if (matched[k] == 0)
      throw Error(fmt::format("{}: no host of the target platform {} has a name starting with '{}'", r.how,
                              target.source(), r.hosts));
    if (!known)
      throw Error(fmt::format("{}: the speed is relative to the traced machine, but {}: give its rate with "
                              "--traced-speed (the smpi/host-speed the trace was recorded with, for smpirun)",
                              r.how, unknown_why));
    if (r.target_rate > 0 && r.unit != (traced.unit.empty() ? "flops" : traced.unit))
      throw Error(fmt::format("{}: the probe counted {} but the traces count {} (expected one unit: probe the "
                              "target as the traces were taken, with or without hardware counters)",
                              r.how, r.unit, traced.unit));
    double f = r.factor > 0 ? r.factor : r.target_rate / traced.reference;
    double u = r.target_rate > 0 ? std::hypot(r.uncertainty, traced.spread) : 0;
    for (std::size_t h = 0; h < hosts.size(); ++h)
      if (rule_of[h] == static_cast<int>(k)) {
        out.factor[h] = f;
        out.platform.set_host_speed(static_cast<int>(h), f * traced.reference);
      }
    out.uncertainty = std::max(out.uncertainty, u);
    rows.push_back({{"hosts", r.hosts.empty() ? "*" : r.hosts + "*"},
                    {"how", r.how},
                    {"factor", f},
                    {"speed", f * traced.reference},
                    {"matched", matched[k]},
                    {"uncertainty", u}});
    out.notes.push_back(fmt::format("{} host{} ({}): {:.4g} times the traced machine, {:.4g} G{}/s{}", matched[k],
                                    matched[k] == 1 ? "" : "s", r.hosts.empty() ? "every host" : r.hosts + "*", f,
                                    f * traced.reference / 1e9, traced.unit == "instructions" ? "instruction" : "flop",
                                    u > 0 ? fmt::format(" (+-{:.1f}%)", 100 * u) : ""));
  }
  int unmatched = 0;
  for (std::size_t h = 0; h < hosts.size(); ++h)
    if (rule_of[h] < 0) {
      ++unmatched;
      if (known)
        out.factor[h] = hosts[h].speed_flops / traced.reference;
    }
  if (unmatched > 0 && known && traced.spread > 0)
    out.uncertainty = std::max(out.uncertainty, traced.spread);
  if (unmatched > 0)
    out.notes.push_back(
        known ? fmt::format("{} host{} at the platform's speed, read as {} per second of the tracer's kernel: the "
                            "traced machine's rate {:.4g} G/s{}",
                            unmatched, unmatched == 1 ? "" : "s", traced.unit, traced.reference / 1e9,
                            traced.spread > 0 ? fmt::format(", known to +-{:.1f}%", 100 * traced.spread) : "")
              : fmt::format("{} host{} at the platform's speed, in the traces' own unit ({})", unmatched,
                            unmatched == 1 ? "" : "s", unknown_why));
  out.report = {{"unit", traced.unit.empty() ? nlohmann::json(nullptr) : nlohmann::json(traced.unit)},
                {"traced_rate", traced.reference},
                {"spread", traced.spread},
                {"uncertainty", out.uncertainty},
                {"rules", rows},
                {"hosts_at_platform_speed", unmatched}};
  return out;
}

} // namespace perfcast

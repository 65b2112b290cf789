// Placement policies of the process scheduling simulator (the family the
// UniMPP paper belongs to; ../shared/REFERENCE.md section 8). Loads compare
// resident processes per core; ties go to the lower computer index.
#include "core/Error.hpp"
#include "core/NamedSpec.hpp"
#include "sched/BatchSim.hpp"
#include "sched/ProcessSim.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>

namespace perfcast::sched {
namespace {

double per_core(const ComputerLoad& l, const ComputerSpec& c) { return l.resident / static_cast<double>(c.cores); }

int uniform_index(Rng& rng, std::size_t n)
{
  return static_cast<int>(std::min<double>(static_cast<double>(n) - 1, std::floor(rng.uniform01() * n)));
}

/// L distinct computers drawn at random (all of them when L >= n), in draw
/// order: a partial Fisher-Yates shuffle of 0..n-1. With few probes only the
/// swapped positions are stored, so a draw costs O(L) and not O(n), with the
/// same random numbers and the same result as the shuffle of the whole array.
std::vector<int> probe(Rng& rng, std::size_t n, int probes)
{
  std::size_t k = std::min<std::size_t>(n, static_cast<std::size_t>(probes));
  if (k > 32) {
    std::vector<int> all(n);
    for (std::size_t i = 0; i < n; ++i)
      all[i] = static_cast<int>(i);
    for (std::size_t i = 0; i < k; ++i)
      std::swap(all[i], all[i + static_cast<std::size_t>(uniform_index(rng, n - i))]);
    all.resize(k);
    return all;
  }
  std::vector<std::pair<std::size_t, int>> moved; // position -> value, where it differs from the identity
  auto value = [&](std::size_t pos) {
    for (const auto& [at, v] : moved)
      if (at == pos)
        return v;
    return static_cast<int>(pos);
  };
  auto set = [&](std::size_t pos, int v) {
    for (auto& entry : moved)
      if (entry.first == pos) {
        entry.second = v;
        return;
      }
    moved.emplace_back(pos, v);
  };
  std::vector<int> out(k);
  for (std::size_t i = 0; i < k; ++i) {
    std::size_t j = i + static_cast<std::size_t>(uniform_index(rng, n - i));
    int vi = value(i), vj = value(j);
    set(i, vj);
    set(j, vi);
    out[i] = vj;
  }
  return out;
}

/// The least loaded of the given computers; ties to the lower index.
int least_loaded(const std::vector<int>& among, const std::vector<ComputerSpec>& cs, const LoadView& loads)
{
  int best = among.front();
  double lb = per_core(loads.at(best), cs[static_cast<std::size_t>(best)]);
  for (int i : among) {
    double li = per_core(loads.at(i), cs[static_cast<std::size_t>(i)]);
    if (li < lb || (li == lb && i < best)) {
      best = i;
      lb = li;
    }
  }
  return best;
}

class RandomPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const LoadView&, Rng& rng) override
  {
    return uniform_index(rng, cs.size());
  }
};

class RoundRobinPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const LoadView&, Rng&) override
  {
    return static_cast<int>(next_++ % cs.size());
  }

private:
  std::size_t next_ = 0;
};

class LeastWorkPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>&, const LoadView& loads, Rng&) override
  {
    return loads.least_work_per_core();
  }
};

class LowestPolicy : public PlacementPolicy {
public:
  explicit LowestPolicy(int probes) : probes_(probes) {}
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const LoadView& loads,
            Rng& rng) override
  {
    return least_loaded(probe(rng, cs.size(), probes_), cs, loads);
  }

private:
  int probes_;
};

class ThresholdPolicy : public PlacementPolicy {
public:
  ThresholdPolicy(int probes, double limit) : probes_(probes), limit_(limit) {}
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const LoadView& loads,
            Rng& rng) override
  {
    std::vector<int> probed = probe(rng, cs.size(), probes_);
    for (int i : probed)
      if (per_core(loads.at(i), cs[static_cast<std::size_t>(i)]) < limit_)
        return i;
    return least_loaded(probed, cs, loads); // nobody under the limit: the least loaded of those probed
  }

private:
  int probes_;
  double limit_;
};

class MostFreeMemoryPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>&, const LoadView& loads, Rng&) override
  {
    return loads.most_free_memory();
  }
};

/// Places like lowest, and every `period` seconds moves one process in a CPU
/// stage from the computer with the most CPU jobs per core to the one with
/// the fewest, when the move shortens that process's remaining CPU time by
/// more than the migration costs (its memory over the route, plus latency).
class BalancePolicy : public PlacementPolicy {
public:
  BalancePolicy(double period, int probes) : period_(period), lowest_(probes) {}
  int place(const ProcessSpec& p, const std::vector<ComputerSpec>& cs, const LoadView& loads, Rng& rng) override
  {
    return lowest_.place(p, cs, loads, rng);
  }
  double rebalance_period_s() const override { return period_; }
  std::vector<Migration> rebalance(const std::vector<ComputerSpec>& cs, const LoadView& loads) override
  {
    int most = 0, least = 0;
    std::vector<ComputerLoad> now(cs.size());
    auto jobs_per_core = [&](int i) { return now[static_cast<std::size_t>(i)].cpu_jobs / static_cast<double>(cs[static_cast<std::size_t>(i)].cores); };
    for (std::size_t i = 0; i < cs.size(); ++i) {
      now[i] = loads.at(static_cast<int>(i));
      int c = static_cast<int>(i);
      if (jobs_per_core(c) > jobs_per_core(most))
        most = c;
      if (jobs_per_core(c) < jobs_per_core(least))
        least = c;
    }
    if (most == least)
      return {};
    // instructions per second one more CPU job gets on computer i holding n of them
    auto rate = [&](int i, int n, double memory_mb) {
      const ComputerSpec& c = cs[static_cast<std::size_t>(i)];
      double share = n <= c.cores ? 1.0 : c.cores / static_cast<double>(n);
      return c.model.instructions_per_s * share / (1 + c.model.slowdown.alpha(memory_mb, c.model.main_memory_mb));
    };
    const ComputerLoad& from = now[static_cast<std::size_t>(most)];
    const ComputerLoad& to = now[static_cast<std::size_t>(least)];
    Migration best;
    double best_gain = 0;
    for (const RunningProcess& r : loads.running(most)) {
      double stay = r.remaining_instructions / rate(most, from.cpu_jobs, from.memory_in_use_mb);
      double move = loads.migration_cost_s(r.memory_mb, most, least) +
                    r.remaining_instructions / rate(least, to.cpu_jobs + 1, to.memory_in_use_mb + r.memory_mb);
      if (stay - move > best_gain) {
        best_gain = stay - move;
        best = {r.process, least};
      }
    }
    if (best.process < 0)
      return {};
    return {best};
  }

private:
  double period_;
  LowestPolicy lowest_;
};

struct PolicyInfo {
  std::vector<std::pair<std::string, double>> parameters; // name, default
  const char* meaning;
};

const std::map<std::string, PolicyInfo>& policies()
{
  static const std::map<std::string, PolicyInfo> table{
      {"random", {{}, "a computer drawn uniformly"}},
      {"round-robin", {{}, "computers in turn"}},
      {"least-work", {{}, "least CPU work left per core"}},
      {"lowest", {{{"probes", 2}}, "probe L computers at random, take the one with fewest processes per core"}},
      {"threshold",
       {{{"probes", 3}, {"limit", 1}},
        "probe up to L computers at random, take the first under T processes per core, else the least loaded probed"}},
      {"most-free-memory", {{}, "the computer with the most main memory free"}},
      {"balance",
       {{{"period", 10}, {"probes", 2}},
        "place like lowest; every P seconds move one running process from the computer with the most CPU jobs per "
        "core to the one with the fewest when its remaining time drops by more than the migration cost"}}};
  return table;
}

} // namespace

std::unique_ptr<PlacementPolicy> make_policy(const std::string& spec)
{
  NamedSpec parsed = parse_named_spec(spec, "policy");
  const std::string& name = parsed.name;
  auto it = policies().find(name);
  if (it == policies().end()) {
    std::vector<std::string> names;
    for (const auto& entry : policies())
      names.push_back(entry.first);
    for (const char* batch : {"fcfs", "easy", "conservative"})
      names.push_back(batch);
    throw Error(fmt::format("policy '{}': unknown (expected one of: {})", spec, join_names(names)));
  }
  std::map<std::string, double> values;
  for (const auto& [key, value] : it->second.parameters)
    values[key] = value;
  for (const auto& [key, value] : parsed.values) {
    if (!values.count(key))
      throw Error(fmt::format("policy '{}': '{}' is not a parameter of {}", spec, key, name));
    if (value <= 0)
      throw Error(fmt::format("policy '{}': {} must be a positive number", spec, key));
    if (key == "probes" && (value != std::floor(value) || value > 1e9))
      throw Error(fmt::format("policy '{}': probes must be a whole number of computers", spec));
    values[key] = value;
  }
  if (name == "random")
    return std::make_unique<RandomPolicy>();
  if (name == "round-robin")
    return std::make_unique<RoundRobinPolicy>();
  if (name == "least-work")
    return std::make_unique<LeastWorkPolicy>();
  if (name == "lowest")
    return std::make_unique<LowestPolicy>(static_cast<int>(values["probes"]));
  if (name == "threshold")
    return std::make_unique<ThresholdPolicy>(static_cast<int>(values["probes"]), values["limit"]);
  if (name == "balance")
    return std::make_unique<BalancePolicy>(values["period"], static_cast<int>(values["probes"]));
  return std::make_unique<MostFreeMemoryPolicy>();
}

std::vector<std::string> describe_policies()
{
  std::vector<std::string> rows;
  for (const auto& [name, info] : policies()) {
    std::string params;
    for (const auto& [key, value] : info.parameters)
      params += fmt::format("{}{}={:g}", params.empty() ? ":" : ",", key, value);
    rows.push_back(fmt::format("{}{}  {}", name, params, info.meaning));
  }
  for (const std::string& row : describe_batch_policies())
    rows.push_back(row + " (rigid jobs)");
  return rows;
}

} // namespace perfcast::sched

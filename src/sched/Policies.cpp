// Placement policies of the process scheduling simulator (the family the
// UniMPP paper belongs to; ../shared/REFERENCE.md section 8). Loads compare
// resident processes per core; ties go to the lower computer index.
#include "core/Error.hpp"
#include "core/NamedSpec.hpp"
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

/// L distinct computers drawn at random (all of them when L >= n), in draw order.
std::vector<int> probe(Rng& rng, std::size_t n, int probes)
{
  std::vector<int> all(n);
  for (std::size_t i = 0; i < n; ++i)
    all[i] = static_cast<int>(i);
  std::size_t k = std::min<std::size_t>(n, static_cast<std::size_t>(probes));
  for (std::size_t i = 0; i < k; ++i) // partial Fisher-Yates
    std::swap(all[i], all[i + static_cast<std::size_t>(uniform_index(rng, n - i))]);
  all.resize(k);
  return all;
}

/// The least loaded of the given computers; ties to the lower index.
int least_loaded(const std::vector<int>& among, const std::vector<ComputerSpec>& cs,
                 const std::vector<ComputerLoad>& loads)
{
  int best = among.front();
  for (int i : among) {
    double li = per_core(loads[static_cast<std::size_t>(i)], cs[static_cast<std::size_t>(i)]);
    double lb = per_core(loads[static_cast<std::size_t>(best)], cs[static_cast<std::size_t>(best)]);
    if (li < lb || (li == lb && i < best))
      best = i;
  }
  return best;
}

class RandomPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>&, Rng& rng) override
  {
    return uniform_index(rng, cs.size());
  }
};

class RoundRobinPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>&, Rng&) override
  {
    return static_cast<int>(next_++ % cs.size());
  }

private:
  std::size_t next_ = 0;
};

class LeastWorkPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>& loads,
            Rng&) override
  {
    int best = 0;
    for (std::size_t i = 1; i < cs.size(); ++i)
      if (loads[i].cpu_work_s / cs[i].cores < loads[static_cast<std::size_t>(best)].cpu_work_s / cs[static_cast<std::size_t>(best)].cores)
        best = static_cast<int>(i);
    return best;
  }
};

class LowestPolicy : public PlacementPolicy {
public:
  explicit LowestPolicy(int probes) : probes_(probes) {}
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>& loads,
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
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>& loads,
            Rng& rng) override
  {
    std::vector<int> probed = probe(rng, cs.size(), probes_);
    for (int i : probed)
      if (per_core(loads[static_cast<std::size_t>(i)], cs[static_cast<std::size_t>(i)]) < limit_)
        return i;
    return least_loaded(probed, cs, loads); // nobody under the limit: the least loaded of those probed
  }

private:
  int probes_;
  double limit_;
};

class MostFreeMemoryPolicy : public PlacementPolicy {
public:
  int place(const ProcessSpec&, const std::vector<ComputerSpec>& cs, const std::vector<ComputerLoad>& loads,
            Rng&) override
  {
    int best = 0;
    auto free_mb = [&](std::size_t i) { return cs[i].model.main_memory_mb - loads[i].memory_in_use_mb; };
    for (std::size_t i = 1; i < cs.size(); ++i)
      if (free_mb(i) > free_mb(static_cast<std::size_t>(best)))
        best = static_cast<int>(i);
    return best;
  }
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
      {"most-free-memory", {{}, "the computer with the most main memory free"}}};
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
  return rows;
}

} // namespace perfcast::sched

#include "lb/LoadBalancer.hpp"

#include "core/Error.hpp"
#include "lb/Strategies.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast::lb {

void check_problem(const LbProblem& problem)
{
  bool any_available = false;
  for (std::size_t p = 0; p < problem.pes.size(); ++p) {
    const PeState& pe = problem.pes[p];
    if (!std::isfinite(pe.background_s) || pe.background_s < 0)
      throw Error(fmt::format("PE {}: background load {} is not a finite number >= 0", p, pe.background_s));
    if (!std::isfinite(pe.speed) || pe.speed <= 0)
      throw Error(fmt::format("PE {}: speed {} is not a finite number > 0", p, pe.speed));
    any_available = any_available || pe.available;
  }
  if (!any_available)
    throw Error("no available PE to place objects on");
  for (std::size_t o = 0; o < problem.objects.size(); ++o) {
    const ObjectState& obj = problem.objects[o];
    if (obj.pe < 0 || static_cast<std::size_t>(obj.pe) >= problem.pes.size())
      throw Error(fmt::format("object {}: PE {} does not exist (PEs are 0..{})", o, obj.pe, problem.pes.size() - 1));
    if (!std::isfinite(obj.load_s) || obj.load_s < 0)
      throw Error(fmt::format("object {}: load {} is not a finite number >= 0", o, obj.load_s));
    if (!obj.migratable && !problem.pes[obj.pe].available)
      throw Error(fmt::format("object {}: non-migratable but on unavailable PE {}", o, obj.pe));
  }
}

LbDecision decide(const BalancerConfig& config, const LbProblem& problem)
{
  check_problem(problem);
  LbDecision d;
  switch (config.kind) {
  case BalancerKind::Greedy:
    d.new_pe = detail::greedy(problem);
    break;
  case BalancerKind::Refine:
    d.new_pe = detail::refine_a(problem);
    break;
  case BalancerKind::RefineClassic:
    d.new_pe = detail::refine_classic(problem);
    break;
  case BalancerKind::GreedyRefine:
    d.new_pe = detail::greedy_refine(problem, config.tolerance);
    break;
  case BalancerKind::Rotate:
    d.new_pe = detail::rotate(problem);
    break;
  case BalancerKind::Random:
    d.new_pe = detail::random(problem, config.seed);
    break;
  case BalancerKind::None:
    d.new_pe = detail::current_mapping(problem);
    break;
  }
  for (std::size_t o = 0; o < problem.objects.size(); ++o)
    d.migrations += d.new_pe[o] != problem.objects[o].pe ? 1 : 0;
  return d;
}

std::vector<double> pe_loads(const LbProblem& problem, const std::vector<int>& object_pe)
{
  std::vector<double> load(problem.pes.size());
  for (std::size_t p = 0; p < load.size(); ++p)
    load[p] = problem.pes[p].background_s;
  for (std::size_t o = 0; o < problem.objects.size(); ++o) {
    const ObjectState& obj = problem.objects[o];
    int to = object_pe[o];
    if (problem.use_pe_speed)
      load[to] += obj.load_s * problem.pes[obj.pe].speed / problem.pes[to].speed;
    else
      load[to] += obj.load_s;
  }
  return load;
}

namespace detail {

std::vector<int> current_mapping(const LbProblem& problem)
{
  std::vector<int> map(problem.objects.size());
  for (std::size_t o = 0; o < map.size(); ++o)
    map[o] = problem.objects[o].pe;
  return map;
}

int first_available_pe(const LbProblem& problem)
{
  for (std::size_t p = 0; p < problem.pes.size(); ++p)
    if (problem.pes[p].available)
      return static_cast<int>(p);
  return -1;
}

TreeView make_tree_view(const LbProblem& problem)
{
  // TreeLevel.h (PELevel::getStats, commit 2ff9e15): non-migratable loads are
  // added to the background load in double, then the sum is sent as a float;
  // a migratable object's load is float(wall time), times its PE's speed when
  // the strategy is speed-aware.
  TreeView v;
  std::size_t npes = problem.pes.size();
  std::vector<double> base(npes);
  v.speed.resize(npes);
  for (std::size_t p = 0; p < npes; ++p) {
    base[p] = problem.pes[p].background_s;
    v.speed[p] = problem.use_pe_speed ? static_cast<float>(problem.pes[p].speed) : 1.0f;
    if (problem.pes[p].available)
      v.pes.push_back(static_cast<int>(p));
  }
  v.work.assign(problem.objects.size(), 0.0f);
  v.on_available.assign(problem.objects.size(), false);
  for (std::size_t o = 0; o < problem.objects.size(); ++o) {
    const ObjectState& obj = problem.objects[o];
    v.on_available[o] = problem.pes[obj.pe].available;
    if (!obj.migratable) {
      base[obj.pe] += obj.load_s;
      continue;
    }
    v.work[o] = static_cast<float>(obj.load_s) * v.speed[obj.pe];
    v.objects.push_back(static_cast<int>(o));
  }
  v.base.resize(npes);
  for (std::size_t p = 0; p < npes; ++p)
    v.base[p] = static_cast<float>(base[p]);
  // greedy.h sorts with std::sort (not stable); perfcast breaks ties by lower id
  std::stable_sort(v.objects.begin(), v.objects.end(), [&](int a, int b) { return v.work[a] > v.work[b]; });
  return v;
}

} // namespace detail

} // namespace perfcast::lb

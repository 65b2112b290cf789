// RefineA, the strategy behind RefineLB since Charm++ 7.0, read in
// src/ck-ldb/refine.h (RefineA::solve) and pheap.h at charmplusplus/charm
// commit 2ff9e15. Single precision as in Charm++.
//
// Outline: M0 is greedy's max load. A binary search on a threshold M in
// [M0, 1.5 M0] runs until the bounds are within 1%. Each pass restarts from
// the current mapping: while a PE is above M, its heaviest object that would
// fit on the lightest PE that started the pass at or below M is moved to the
// first such PE, in processor order, where it fits. The pass with the smallest
// resulting max load wins (the first one on equal max loads).
//
// Faithful details: the donor loses the object's work unscaled by speed while
// the receiver gains work / speed; PEs that fall to M or below during a pass
// are never receivers in that pass. perfcast's rules where Charm++ has none:
// equally heavy donors go by lower PE id, equal objects by lower id; an object
// on an unavailable PE starts on the lowest available PE (Charm++ picks one at
// random); when M0 is 0 (no load to move) the current mapping is kept.
#include "lb/Strategies.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

namespace perfcast::lb::detail {

namespace {

struct Pass {
  std::vector<int> map;
  float max_load = 0;
};

/// One pass at threshold m from the starting loads and per-PE object lists.
Pass run_pass(const TreeView& view, float m, std::vector<int> map, std::vector<float> load,
              std::vector<std::vector<int>> pe_objects)
{
  // the heavy heap: heaviest first, ties by lower PE id
  auto heavier = [](const std::pair<float, int>& a, const std::pair<float, int>& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::set<std::pair<float, int>, decltype(heavier)> heavy(heavier);
  std::vector<int> light;             // processor order; later arrivals appended
  std::set<std::pair<float, int>> lightest; // the PEs light at the start, by load
  float light_max = 0;
  for (int p : view.pes) {
    if (load[p] > m) {
      heavy.insert({load[p], p});
    } else {
      light.push_back(p);
      lightest.insert({load[p], p});
      light_max = std::max(light_max, load[p]);
    }
  }
  while (!heavy.empty() && !light.empty()) {
    auto [donor_load, donor] = *heavy.begin();
    std::vector<int>& objs = pe_objects[donor];
    float least = lightest.begin()->first;
    auto it = std::find_if(objs.begin(), objs.end(), [&](int o) { return least + view.work[o] <= m; });
    if (it == objs.end())
      break;
    int o = *it;
    heavy.erase(heavy.begin());
    donor_load -= view.work[o];
    for (int p : light) {
      if (load[p] + view.work[o] <= m) {
        lightest.erase({load[p], p});
        load[p] += view.work[o] / view.speed[p];
        lightest.insert({load[p], p});
        map[o] = p;
        light_max = std::max(light_max, load[p]);
        break;
      }
    }
    objs.erase(it);
    load[donor] = donor_load;
    if (donor_load > m) {
      heavy.insert({donor_load, donor});
    } else {
      light.push_back(donor);
      light_max = std::max(light_max, donor_load);
    }
  }
  Pass pass;
  pass.max_load = heavy.empty() ? light_max : heavy.begin()->first;
  pass.map = std::move(map);
  return pass;
}

float ratio_of_larger(float a, float b) { return std::max(a, b) / std::min(a, b); }

} // namespace

std::vector<int> refine_a(const LbProblem& problem)
{
  TreeView view = make_tree_view(problem);
  float m0 = greedy_max_load(view);
  std::vector<int> map = current_mapping(problem);
  int fallback = first_available_pe(problem);
  std::vector<float> load = view.base;
  std::vector<std::vector<int>> pe_objects(problem.pes.size());
  for (int o : view.objects) { // heaviest first, so each list is sorted too
    int p = view.on_available[o] ? problem.objects[o].pe : fallback;
    map[o] = p;
    load[p] += view.work[o] / view.speed[p];
    pe_objects[p].push_back(o);
  }
  if (m0 <= 0)
    return map;
  float lower = m0;
  float upper = lower * 1.5f;
  float best_load = std::numeric_limits<float>::max();
  std::vector<int> best;
  // the bounds test compares a float ratio with the double 1.01, as refine.h does
  while (static_cast<double>(ratio_of_larger(lower, upper)) > 1.01) {
    float m = (lower + upper) / 2;
    Pass pass = run_pass(view, m, map, load, pe_objects);
    if (pass.max_load < best_load) {
      best_load = pass.max_load;
      best = std::move(pass.map);
    }
    if (static_cast<double>(pass.max_load / m) < 1.01)
      upper = m;
    else
      lower = m;
  }
  // no pass ran only when the bounds are not finite (loads beyond float's range)
  return best.empty() ? map : best;
}

} // namespace perfcast::lb::detail

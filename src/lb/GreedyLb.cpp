// Greedy and GreedyRefine as Charm++ 7.x's TreeLB runs them, read in
// src/ck-ldb/greedy.h and TreeStrategyBase.h at charmplusplus/charm commit
// 2ff9e15 (2025). The 6.x GreedyLB.C (commit 57ea1f2) places objects the same
// way in double precision; perfcast follows 7.x's single precision.
//
// Where Charm++ leaves the order to std::sort or to heap mechanics (equal
// loads), perfcast takes the lower object id first and, among equally loaded
// PEs, the lower PE id.
#include "lb/Strategies.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace perfcast::lb::detail {

namespace {

/// Available PEs ordered by (load, id): begin() is the least-loaded one.
class LightestFirst {
public:
  LightestFirst(const TreeView& view) : load_(view.base)
  {
    for (int p : view.pes)
      order_.insert({load_[p], p});
  }
  int lightest() const { return order_.begin()->second; }
  float load(int pe) const { return load_[pe]; }
  /// Adds an object's work to a PE (Proc<1, rateAware>::assign).
  void add(int pe, float work, float speed)
  {
    order_.erase({load_[pe], pe});
    load_[pe] += work / speed;
    order_.insert({load_[pe], pe});
  }

private:
  std::vector<float> load_;
  std::set<std::pair<float, int>> order_;
};

} // namespace

float greedy_max_load(const TreeView& view)
{
  // calcGreedyMaxload: the maximum is taken over the PEs that received an
  // object, right after each assignment, starting from 0
  LightestFirst heap(view);
  float max_load = 0;
  for (int o : view.objects) {
    int p = heap.lightest();
    heap.add(p, view.work[o], view.speed[p]);
    max_load = std::max(max_load, heap.load(p));
  }
  return max_load;
}

std::vector<int> greedy(const LbProblem& problem)
{
  // Greedy::solve: heaviest object first, each onto the least-loaded PE
  TreeView view = make_tree_view(problem);
  std::vector<int> map = current_mapping(problem);
  if (std::all_of(view.objects.begin(), view.objects.end(), [&](int o) { return view.work[o] == 0; })) {
    // perfcast's rule: with no load to place, Greedy's order is all ties and
    // would pile every object on one PE; keep objects where they are instead,
    // moving only those on unavailable PEs, to the lowest available PE
    for (int o : view.objects)
      if (!view.on_available[o])
        map[o] = first_available_pe(problem);
    return map;
  }
  LightestFirst heap(view);
  for (int o : view.objects) {
    int p = heap.lightest();
    heap.add(p, view.work[o], view.speed[p]);
    map[o] = p;
  }
  return map;
}

std::vector<int> greedy_refine(const LbProblem& problem, double tolerance)
{
  // GreedyRefine::solve: M = tolerance x greedy's max load; heaviest object
  // first, it stays on its PE when that PE's load plus the object's work is at
  // most M, else it goes to the least-loaded PE; M rises to any load above it.
  // An object on an unavailable PE has no home in the heap (ProcHeap returns a
  // PE with id -1), so it always goes to the least-loaded PE.
  TreeView view = make_tree_view(problem);
  std::vector<int> map = current_mapping(problem);
  float limit = greedy_max_load(view) * static_cast<float>(tolerance);
  LightestFirst heap(view);
  for (int o : view.objects) {
    int home = problem.objects[o].pe;
    int p = view.on_available[o] && heap.load(home) + view.work[o] <= limit ? home : heap.lightest();
    heap.add(p, view.work[o], view.speed[p]);
    map[o] = p;
    limit = std::max(limit, heap.load(p));
  }
  return map;
}

} // namespace perfcast::lb::detail

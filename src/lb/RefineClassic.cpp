// RefineLB as Charm++ 6.x ran it: src/ck-ldb/RefineLB.C, Refiner.C, ckset.C
// and ckheap.C at charmplusplus/charm commit 57ea1f2 (the parent of 1f95ab6,
// which removed them in 7.0). Double precision as in Charm++.
//
// Refiner::Refine puts every object (non-migratable ones too) on its PE,
// moves the objects of unavailable PEs to the lowest available PE
// (removeComputes), then runs multirefine: refine() with the overload factor
// f = 1.05 + 0.01 k for k = 0; if that pass fails, for k_max = (int)((max/avg
// - 1.05) / 0.01 + 1) from what the failed pass left; then a binary search on
// k in [0, k_max], each probe restarting from the original mapping, until
// k_max - k_min <= 1. The result is whatever the last pass left.
//
// refine(): heavy PEs (load > f x avg; an unavailable PE holding objects)
// form a max-heap, light PEs (load < avg) a set. The heaviest donor gives the
// largest migratable object that fits on some light PE below f x avg; the
// first fitting light PE in set order takes it. The pass fails when the
// donor has nothing that fits.
//
// Reproduced on purpose, because they change results: Charm++'s sets are
// lists with insertion at the head, so light PEs and a PE's objects are
// visited newest first; restarting from the original mapping clears the
// object lists but leaves a PE that starts with no object at the load the
// previous pass gave it. perfcast's rule for ties Charm++ leaves to heap
// mechanics: equally heavy donors go by lower PE id.
#include "lb/Strategies.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace perfcast::lb::detail {

namespace {

struct Processor {
  double background = 0;
  double compute_load = 0;
  double load = 0;
  double speed = 1;
  bool available = true;
  std::vector<int> objects; // insertion order; visited from the back (the list head)
};

class Refiner {
public:
  explicit Refiner(const LbProblem& problem) : problem_(problem), where_(problem.objects.size(), -1)
  {
    for (const PeState& pe : problem.pes) {
      Processor p;
      p.background = pe.background_s;
      p.load = pe.background_s;
      p.speed = problem.use_pe_speed ? pe.speed : 1.0;
      p.available = pe.available;
      available_count_ += pe.available ? 1 : 0;
      procs_.push_back(std::move(p));
    }
  }

  std::vector<int> run()
  {
    place_all_home();
    int first = first_available_pe(problem_);
    for (std::size_t p = 0; p < procs_.size(); ++p) {
      if (procs_[p].available)
        continue;
      std::vector<int> leaving = procs_[p].objects;
      for (auto it = leaving.rbegin(); it != leaving.rend(); ++it) {
        unassign(*it, static_cast<int>(p));
        assign(*it, first);
      }
    }
    compute_average();
    multirefine();
    return where_;
  }

private:
  double cost_on(int o, int p) const
  {
    const ObjectState& obj = problem_.objects[o];
    return obj.load_s * (procs_[obj.pe].speed / procs_[p].speed);
  }
  void assign(int o, int p)
  {
    Processor& pr = procs_[p];
    where_[o] = p;
    pr.objects.push_back(o);
    pr.compute_load += cost_on(o, p);
    pr.load = pr.compute_load + pr.background;
  }
  void unassign(int o, int p)
  {
    Processor& pr = procs_[p];
    where_[o] = -1;
    pr.objects.erase(std::find(pr.objects.begin(), pr.objects.end(), o));
    pr.compute_load -= cost_on(o, p);
    pr.load = pr.compute_load + pr.background;
  }
  void place_all_home()
  {
    for (std::size_t o = 0; o < problem_.objects.size(); ++o)
      assign(static_cast<int>(o), problem_.objects[o].pe);
  }
  void compute_average()
  {
    double total = 0;
    for (const ObjectState& obj : problem_.objects)
      total += obj.load_s;
    for (const Processor& p : procs_)
      if (p.available)
        total += p.background;
    average_ = total / available_count_;
  }
  double max_load() const
  {
    double max = -1.0;
    for (const Processor& p : procs_)
      if (p.available && p.load > max)
        max = p.load;
    return max;
  }
  bool is_heavy(const Processor& p) const
  {
    return p.available ? p.load > overload_ * average_ : !p.objects.empty();
  }
  bool is_light(const Processor& p) const { return p.available && p.load < average_; }

  bool refine();
  void multirefine();
  void find_move(int donor, const std::vector<int>& light, int& object, int& receiver) const;
  void find_move_exhaustive(int donor, const std::vector<int>& light, int& object, int& receiver) const;

  const LbProblem& problem_;
  std::vector<Processor> procs_;
  std::vector<int> where_;
  int available_count_ = 0;
  double average_ = 0;
  double overload_ = 1.05;

public:
  bool exhaustive_ = false; ///< always use Charm++'s quadratic search (for checking)
};

void Refiner::find_move_exhaustive(int donor, const std::vector<int>& light, int& object, int& receiver) const
{
  // Refiner::refine's search as written: light PEs outer, donor objects
  // inner, both newest first; a later pair wins only with a larger load
  double best_size = 0;
  const std::vector<int>& objs = procs_[donor].objects;
  for (auto lp = light.rbegin(); lp != light.rend(); ++lp) {
    for (auto oc = objs.rbegin(); oc != objs.rend(); ++oc) {
      if (!problem_.objects[*oc].migratable)
        continue;
      double load = problem_.objects[*oc].load_s;
      if (cost_on(*oc, *lp) + procs_[*lp].load < overload_ * average_ && load > best_size) {
        best_size = load;
        object = *oc;
        receiver = *lp;
      }
    }
  }
}

void Refiner::find_move(int donor, const std::vector<int>& light, int& object, int& receiver) const
{
  // The same answer in linear time when an object costs its load everywhere
  // (no speeds): an object fits somewhere iff it fits on the least-loaded
  // light PE, so the winning load is the largest such; the winning pair is
  // the first light PE it fits on and the first object with that load, in
  // visiting order. Checked against find_move_exhaustive by a test.
  if (light.empty())
    return;
  const double limit = overload_ * average_;
  double least = procs_[light.front()].load;
  for (int p : light)
    least = std::min(least, procs_[p].load);
  double best_size = 0;
  const std::vector<int>& objs = procs_[donor].objects;
  for (int o : objs) {
    double load = problem_.objects[o].load_s;
    if (problem_.objects[o].migratable && load + least < limit && load > best_size)
      best_size = load;
  }
  if (best_size == 0)
    return;
  for (auto lp = light.rbegin(); lp != light.rend() && receiver < 0; ++lp)
    if (best_size + procs_[*lp].load < limit)
      receiver = *lp;
  for (auto oc = objs.rbegin(); oc != objs.rend() && object < 0; ++oc)
    if (problem_.objects[*oc].migratable && problem_.objects[*oc].load_s == best_size)
      object = *oc;
}

bool Refiner::refine()
{
  auto heavier = [](const std::pair<double, int>& a, const std::pair<double, int>& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  };
  std::set<std::pair<double, int>, decltype(heavier)> heavy(heavier);
  std::vector<int> light; // a ckset list: the newest entry (the head) is at the back
  auto insert_light = [&](int p) {
    if (std::find(light.begin(), light.end(), p) == light.end())
      light.push_back(p);
  };
  for (std::size_t i = 0; i < procs_.size(); ++i) {
    if (is_heavy(procs_[i]))
      heavy.insert({procs_[i].load, static_cast<int>(i)});
    else if (is_light(procs_[i]))
      insert_light(static_cast<int>(i));
  }
  while (!heavy.empty()) {
    int donor = heavy.begin()->second;
    heavy.erase(heavy.begin());
    int best_object = -1;
    int best_receiver = -1;
    if (exhaustive_ || problem_.use_pe_speed)
      find_move_exhaustive(donor, light, best_object, best_receiver);
    else
      find_move(donor, light, best_object, best_receiver);
    if (best_object < 0)
      return false;
    unassign(best_object, donor);
    assign(best_object, best_receiver);
    if (procs_[best_receiver].load > average_)
      light.erase(std::find(light.begin(), light.end(), best_receiver));
    if (is_heavy(procs_[donor]))
      heavy.insert({procs_[donor].load, donor});
    else if (is_light(procs_[donor]))
      insert_light(donor);
  }
  return true;
}

void Refiner::multirefine()
{
  const double step = 0.01;
  const double start = overload_;
  compute_average();
  double ratio = max_load() / average_;
  int k_min = 0;
  // refine() at k = 0 can only fail when some PE is above 1.05 x average,
  // so the ratio is finite there; the guard keeps the cast defined anyway
  int k_max = std::isfinite(ratio) ? static_cast<int>((ratio - start) / step + 1) : 1;
  overload_ = k_min * step + start;
  if (refine())
    return;
  overload_ = k_max * step + start;
  if (!refine())
    return; // Charm++ prints "Could not refine at max overload" and keeps this state
  while (k_max - k_min > 1) {
    int k = (k_max + k_min) / 2;
    overload_ = k * step + start;
    for (Processor& p : procs_) { // p.load is left as it was, as in Charm++
      p.compute_load = 0;
      p.objects.clear();
    }
    place_all_home();
    if (refine())
      k_max = k;
    else
      k_min = k;
  }
}

} // namespace

std::vector<int> refine_classic(const LbProblem& problem, bool exhaustive)
{
  Refiner refiner(problem);
  refiner.exhaustive_ = exhaustive;
  return refiner.run();
}

} // namespace perfcast::lb::detail

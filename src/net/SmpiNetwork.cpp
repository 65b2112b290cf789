// SimGrid 3.32's SMPI network model (src/surf/network_cm02.cpp and
// network_smpi.cpp), re-implemented. For a message of S bytes (payload + 16 byte
// envelope) over a route of latency L and smallest bandwidth B:
//   latency phase:   L * lat_factor(S)
//   bandwidth phase: weighted max-min sharing of the links; the flow's variable
//                    is bounded by min(B, gamma / (2 L)) and its penalty is
//                    L + sum(8775 / bw_link); the transfer progresses at
//                    value * bw_factor(S).
// Each flow also loads its reverse route with weight 0.05 (cross-traffic).
// Only the connected component of links touched by a change is re-solved, and
// the solve works on route groups: flows on one route share links, penalty and
// bound, so max-min gives them one value; a group counts its flows.
// While one link is crossed by every active group and saturates first, the
// solution is that link's fill level over each group's penalty: the groups then
// move on one clock of that link, and a change costs the links it touches, not
// a pass over every group (the bottleneck clock, below).
#include "core/SlotPool.hpp"
#include "net/CompletionHeap.hpp"
#include "net/NetworkModel.hpp"
#include "net/SmpiFactors.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace perfcast {

namespace {

constexpr double kTcpGamma = 4194304.0;
constexpr double kWeightS = 8775.0;
constexpr double kCrossTrafficWeight = 0.05;

struct RouteInfo {
  std::uint32_t id = 0;                            // index of its group
  std::vector<std::pair<int, double>> shared_uses; // (link, coefficient) on shared links
  std::vector<double> shared_weights;              // coefficient / penalty, per use
  double latency_s = 0;
  double bound = kNever;   // min bandwidth, fatpipe limits and the TCP window cap
  double penalty = 0;      // sharing weight
};

struct Flow {
  const RouteInfo* route = nullptr;
  double factor = 1;
  double remaining = 0;  // bytes: the size, and what is left of a flow without shared links
  double finish_v = 0;   // the group's virtual progress at which it ends
  std::uint64_t seq = 0; // order of activation, for ties
};

// The active flows of one route: max-min gives them one value. A flow of the
// group moves at value * factor, so with the group's virtual progress V
// (dV/dt = value) a flow of B bytes activated at V0 ends when V reaches
// V0 + B / factor, whatever the values in between. The group keeps its flows
// in a heap on that mark and has one entry in the event heap: a change of
// value touches the group, not its flows.
struct Group {
  const RouteInfo* route = nullptr;
  std::vector<std::uint32_t> flows; // min-heap on (finish_v, seq)
  std::vector<std::uint32_t> slot;  // position in each used link's group list
  std::uint32_t active_slot = 0;    // position in the list of groups sharing links
  std::uint32_t mark = 0;
  bool touched = false; // flows joined or left since the last solve
  double value = 0;     // current max-min value
  double v = 0;         // virtual progress at last_update
  double last_update = 0;
  std::uint32_t solve_index = 0; // position in comp_groups_ while mark == the solve's mark
  double front_finish_v = 0;     // finish_v of flows.front(): a re-solve reads it here, not in a cold Flow
  double penalty = 0, bound = 0; // the route's, copied: a solve of many groups reads them for each
  double lambda_bound = 0;       // the fill level at which the group reaches its bound
  double anchor = 0;             // under the bottleneck clock: the clock's reading when v was last brought up
  double load_mv = 0;            // flows x value as counted in link_load_ (0 while it has no flows)
};

struct LinkUse {
  std::uint32_t group;
  std::uint32_t use; // index into the route's shared_uses
};

class SmpiNetwork final : public NetworkModel {
public:
  SmpiNetwork(const Platform& platform, const NetworkOptions& options)
      : platform_(platform), crosstraffic_(options.crosstraffic), use_cache_(options.solution_cache),
        use_clock_(options.bottleneck_clock), use_loose_(options.loose_links), link_groups_(platform.links().size()),
        link_mark_(platform.links().size(), 0), link_slot_(platform.links().size(), 0),
        link_dirty_(platform.links().size(), false), link_weight_sum_(platform.links().size(), 0.0),
        link_active_slot_(platform.links().size(), 0), cache_(options.solution_cache ? kCacheSlots : 0),
        link_load_(platform.links().size(), 0.0), link_loose_(platform.links().size(), 0)
  {
  }

  std::uint32_t start(int src, int dst, double bytes, double now) override
  {
    std::uint32_t id = flows_.acquire();
    Flow& f = flows_[id];
    f.route = &route_info(src, dst);
    f.remaining = bytes;
    f.factor = smpi_bw_factor(bytes);
    double latency = f.route->latency_s * smpi_lat_factor(bytes);
    if (latency > 0) {
      latency_heap_.schedule(id, now + latency);
    } else {
      activate(id, now);
    }
    return id;
  }

  double next_completion() override
  {
    solve_dirty();
    double t = std::min({latency_heap_.top_time(), done_heap_.top_time(), solo_heap_.top_time()});
    if (on_clock_ && !clock_heap_.empty())
      t = std::min(t, clock_time_of(clock_heap_.top_time()));
    return t;
  }

  void advance(double t, std::vector<std::uint32_t>& completed) override
  {
    now_ = t;
    std::uint32_t id;
    while (solo_heap_.pop_until(t, id)) {
      flows_.release(id);
      completed.push_back(id);
    }
    while (done_heap_.pop_until(t, id))
      finish_group_flows(groups_[id], t, completed);
    if (on_clock_) // each call ends the group's first flow, so the loop ends
      while (!clock_heap_.empty() && clock_time_of(clock_heap_.top_time()) <= t)
        finish_group_flows(groups_[clock_heap_.top_id()], t, completed);
    while (latency_heap_.pop_until(t, id))
      activate(id, t);
  }

  std::string_view name() const override { return "smpi"; }
  NetworkCounters counters() const override { return counters_; }

private:
  const RouteInfo& route_info(int src, int dst)
  {
    std::uint64_t key = static_cast<std::uint64_t>(src) * platform_.hosts().size() + static_cast<std::uint64_t>(dst);
    auto it = routes_.find(key);
    if (it != routes_.end())
      return it->second;
    RouteInfo info;
    Route fwd = platform_.route(src, dst);
    info.latency_s = fwd.latency_s;
    info.penalty = fwd.latency_s;
    auto use = [&](int link, double coefficient) {
      const Link& l = platform_.links()[static_cast<std::size_t>(link)];
      if (l.sharing == SharingPolicy::Fatpipe) {
        info.bound = std::min(info.bound, l.bandwidth_Bps / coefficient);
        return;
      }
      for (auto& u : info.shared_uses)
        if (u.first == link) {
          u.second += coefficient;
          return;
        }
      info.shared_uses.emplace_back(link, coefficient);
    };
    for (int l : fwd.links) {
      const Link& link = platform_.links()[static_cast<std::size_t>(l)];
      info.bound = std::min(info.bound, link.bandwidth_Bps);
      info.penalty += kWeightS / link.bandwidth_Bps;
      use(l, 1.0);
    }
    if (crosstraffic_) {
      Route back = platform_.route(dst, src);
      for (int l : back.links)
        use(l, kCrossTrafficWeight);
    }
    if (info.latency_s > 0)
      info.bound = std::min(info.bound, kTcpGamma / (2.0 * info.latency_s));
    for (const auto& use : info.shared_uses)
      info.shared_weights.push_back(use.second / info.penalty);
    info.id = static_cast<std::uint32_t>(groups_.size());
    const RouteInfo& stored = routes_.emplace(key, std::move(info)).first->second;
    groups_.emplace_back();
    groups_.back().route = &stored;
    groups_.back().penalty = stored.penalty;
    groups_.back().bound = stored.bound;
    groups_.back().lambda_bound = stored.bound < kNever ? stored.bound * stored.penalty : kNever;
    return stored;
  }

  // Group flow heap order: earlier virtual end first, then earlier activation.
  bool later(std::uint32_t a, std::uint32_t b) const
  {
    const Flow& x = flows_[a];
    const Flow& y = flows_[b];
    return x.finish_v != y.finish_v ? x.finish_v > y.finish_v : x.seq > y.seq;
  }

  void bring_up_to_date(Group& g, double now)
  {
    if (on_clock_) {
      // the group's value is lambda / penalty, so its progress is the clock's over its penalty
      double c = clock_at(now);
      g.v += (c - g.anchor) / g.penalty;
      g.anchor = c;
    } else {
      g.v += g.value * (now - g.last_update);
    }
    g.last_update = now;
  }

  void activate(std::uint32_t id, double now)
  {
    Flow& f = flows_[id];
    const RouteInfo& route = *f.route;
    if (route.shared_uses.empty()) {
      // no shared link: only the bound limits it (SimGrid: an empty route completes at once)
      double rate = route.bound * f.factor;
      solo_heap_.schedule(id, rate == kNever || rate <= 0 ? now : now + f.remaining / rate);
      return;
    }
    Group& g = groups_[route.id];
    if (g.flows.empty()) {
      g.v = 0; // a new busy period: virtual progress restarts
      g.value = 0;
      g.last_update = now;
      g.anchor = on_clock_ ? clock_at(now) : 0;
      if (use_clock_ && g.lambda_bound < kNever)
        ++bound_counts_[g.lambda_bound];
      g.slot.resize(route.shared_uses.size());
      g.active_slot = static_cast<std::uint32_t>(active_groups_.size());
      active_groups_.push_back(route.id);
      for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
        auto li = static_cast<std::size_t>(route.shared_uses[u].first);
        auto& list = link_groups_[li];
        if (list.empty()) {
          link_active_slot_[li] = static_cast<std::uint32_t>(active_links_.size());
          active_links_.push_back(route.shared_uses[u].first);
        }
        g.slot[u] = static_cast<std::uint32_t>(list.size());
        list.push_back({route.id, u});
      }
    } else {
      bring_up_to_date(g, now);
    }
    f.finish_v = g.v + f.remaining / f.factor;
    f.seq = seq_++;
    g.flows.push_back(id);
    std::push_heap(g.flows.begin(), g.flows.end(), [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
    g.front_finish_v = flows_[g.flows.front()].finish_v;
    g.touched = true;
    touched_list_.push_back(route.id);
    if (on_clock_)
      clock_heap_.schedule(route.id, clock_end(g));
    for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
      link_weight_sum_[static_cast<std::size_t>(route.shared_uses[u].first)] += route.shared_weights[u];
      mark_dirty(route.shared_uses[u].first);
    }
  }

  // The group's event came: its first flow ends now, with any that end at the same mark.
  void finish_group_flows(Group& g, double t, std::vector<std::uint32_t>& completed)
  {
    bring_up_to_date(g, t);
    const RouteInfo& route = *g.route;
    auto order = [this](std::uint32_t a, std::uint32_t b) { return later(a, b); };
    double mark = std::max(g.v, flows_[g.flows.front()].finish_v);
    g.v = mark;
    std::size_t ended = 0;
    while (!g.flows.empty() && flows_[g.flows.front()].finish_v <= mark) {
      std::uint32_t id = g.flows.front();
      std::pop_heap(g.flows.begin(), g.flows.end(), order);
      g.flows.pop_back();
      flows_.release(id);
      completed.push_back(id);
      ++ended;
    }
    if (!g.flows.empty()) {
      g.front_finish_v = flows_[g.flows.front()].finish_v;
      if (on_clock_)
        clock_heap_.schedule(route.id, clock_end(g));
    }
    g.touched = true;
    touched_list_.push_back(route.id);
    for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
      link_weight_sum_[static_cast<std::size_t>(route.shared_uses[u].first)] -=
          static_cast<double>(ended) * route.shared_weights[u];
      mark_dirty(route.shared_uses[u].first);
    }
    if (!g.flows.empty())
      return;
    if (on_clock_)
      clock_heap_.remove(route.id);
    if (use_clock_ && g.lambda_bound < kNever) {
      auto it = bound_counts_.find(g.lambda_bound);
      if (--it->second == 0)
        bound_counts_.erase(it);
    }
    std::uint32_t a = g.active_slot;
    active_groups_[a] = active_groups_.back();
    groups_[active_groups_[a]].active_slot = a;
    active_groups_.pop_back();
    for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
      auto li = static_cast<std::size_t>(route.shared_uses[u].first);
      auto& list = link_groups_[li];
      std::uint32_t slot = g.slot[u];
      list[slot] = list.back();
      groups_[list[slot].group].slot[list[slot].use] = slot;
      list.pop_back();
      if (list.empty()) {
        link_weight_sum_[li] = 0; // no floating residue on an idle link
        std::uint32_t la = link_active_slot_[li];
        active_links_[la] = active_links_.back();
        link_active_slot_[static_cast<std::size_t>(active_links_[la])] = la;
        active_links_.pop_back();
      }
    }
  }

  void mark_dirty(int link)
  {
    if (!link_dirty_[static_cast<std::size_t>(link)]) {
      link_dirty_[static_cast<std::size_t>(link)] = true;
      dirty_links_.push_back(link);
    }
  }

  // Re-solves the max-min sharing of every component that holds a dirty link.
  void solve_dirty()
  {
    if (dirty_links_.empty())
      return;
    if (use_clock_) {
      for (int l : dirty_links_) {
        auto li = static_cast<std::size_t>(l);
        if (link_groups_[li].empty())
          link_levels_.remove(static_cast<std::uint32_t>(l));
        else
          link_levels_.schedule(static_cast<std::uint32_t>(l), fill_level(li));
      }
      if (clock_holds()) {
        ++counters_.clock_steps;
        for (int l : dirty_links_)
          link_dirty_[static_cast<std::size_t>(l)] = false;
        dirty_links_.clear();
        release_finished_loads();
        return;
      }
    }
    // leaving the clock, which links were saturated before the change is not known: the whole component decides
    bool left_clock = on_clock_;
    if (left_clock)
      leave_clock();
    ++counters_.solves;
    // parts that lately were (nearly) the whole component, or failed, are tried again every 32nd solve only
    bool try_part = use_loose_ && !left_clock && (!part_futile_ || (++solves_since_part_ & 31) == 0);
    if (try_part && solve_changed_part()) {
      ++counters_.part_solves;
      for (int l : dirty_links_)
        link_dirty_[static_cast<std::size_t>(l)] = false;
      dirty_links_.clear();
      return;
    }
    ++mark_;
    comp_links_.clear();
    comp_groups_.clear();
    for (int l : dirty_links_)
      link_dirty_[static_cast<std::size_t>(l)] = false;
    // When the components touched have lately been (nearly) every active
    // group, solving all of them at once gives the same allocation without the
    // search; every 32nd solve looks again.
    bool all = solve_all_ && (++solves_since_search_ & 31) != 0;
    if (all) {
      dirty_links_.clear();
      for (std::uint32_t gid : active_groups_)
        join_component(gid);
    } else {
      for (int l : dirty_links_)
        visit_link(l);
      dirty_links_.clear();
      search_component();
      solve_all_ = comp_groups_.size() * 10 >= active_groups_.size() * 9;
    }
    release_finished_loads();
    if (comp_groups_.empty())
      return;
    if (!cached_solution()) {
      if (all)
        for (int l : active_links_)
          visit_link(l);
      solve_maxmin();
      store_solution();
    }
    apply_solution();
  }

  // The solved values to their groups: their progress, their ends and their load on the links.
  void apply_solution()
  {
    for (std::size_t k = 0; k < comp_groups_.size(); ++k) {
      Group& g = groups_[comp_groups_[k]];
      double value = sg_[k].value;
      count_load(g, static_cast<double>(g.flows.size()) * value);
      if (value == g.value && !g.touched)
        continue; // same rate, same flows: its scheduled end still holds
      bring_up_to_date(g, now_);
      g.value = value;
      g.touched = false;
      if (g.flows.empty())
        continue;
      double left = std::max(0.0, g.front_finish_v - g.v);
      done_heap_.schedule(comp_groups_[k], value > 0 ? now_ + left / value : kNever);
    }
  }

  // Loose links. A link whose flows use less than its capacity (by kLooseMargin) is nobody's bottleneck, and
  // the max-min allocation stays the same without it as long as it stays unsaturated. The part of the
  // network a change can move is then the groups reached from the changed ones through saturated links
  // only: a group outside it keeps a saturated link on which nothing changed, so its value holds. That
  // part is solved with each loose link it crosses at the capacity the groups outside leave; should a loose
  // link saturate in it (or a cached solution overfill one), the whole component is solved instead. A
  // cluster's backbone that does not saturate then no longer ties every node's flows into one solve.
  static constexpr double kLooseMargin = 1e-6;

  bool loose_at(std::size_t li, double load) const
  {
    return load < platform_.links()[li].bandwidth_Bps * (1 - kLooseMargin);
  }
  bool loose(std::size_t li) const { return loose_at(li, link_load_[li]); }

  // Records flows x value of a group in the load of its links.
  void count_load(Group& g, double mv)
  {
    if (!use_loose_ || mv == g.load_mv)
      return;
    const RouteInfo& route = *g.route;
    for (const auto& use : route.shared_uses) {
      auto li = static_cast<std::size_t>(use.first);
      link_load_[li] = link_groups_[li].empty() ? 0 : link_load_[li] + (mv - g.load_mv) * use.second;
    }
    g.load_mv = mv;
  }

  // The groups whose flows all ended since the last solve leave the links' load (they stayed in it so that
  // the links they saturated were searched through), and the list of changed groups is emptied.
  void release_finished_loads()
  {
    for (std::uint32_t gid : touched_list_)
      if (groups_[gid].flows.empty())
        count_load(groups_[gid], 0);
    touched_list_.clear();
  }

  void visit_link_in_part(int l)
  {
    auto li = static_cast<std::size_t>(l);
    if (link_mark_[li] == mark_)
      return;
    visit_link(l);
    link_loose_[li] = loose(li) ? 1 : 0;
  }

  void join_part(std::uint32_t gid)
  {
    join_component(gid);
    for (const auto& use : groups_[gid].route->shared_uses)
      visit_link_in_part(use.first);
  }

  // Solves the part of the network the changed groups reach through saturated links; false when the whole
  // component must be solved instead (nothing has been changed then).
  bool solve_changed_part()
  {
    ++mark_;
    comp_links_.clear();
    comp_groups_.clear();
    for (std::uint32_t gid : touched_list_) {
      Group& g = groups_[gid];
      if (!g.flows.empty() && g.mark != mark_)
        join_part(gid);
      else if (g.flows.empty())
        for (const auto& use : g.route->shared_uses)
          visit_link_in_part(use.first);
    }
    for (int l : dirty_links_)
      visit_link_in_part(l);
    for (std::size_t i = 0; i < comp_links_.size(); ++i) {
      auto li = static_cast<std::size_t>(comp_links_[i]);
      if (link_loose_[li])
        continue;
      for (const LinkUse& lu : link_groups_[li])
        if (groups_[lu.group].mark != mark_)
          join_part(lu.group);
    }
    release_finished_loads(); // which links were saturated is decided: what the ended groups used is free
    if (comp_groups_.empty())
      return true;
    bool cached = cached_solution();
    if ((!cached && !solve_maxmin()) || !loose_links_hold()) {
      part_futile_ = true;
      return false;
    }
    part_futile_ = comp_groups_.size() * 10 >= active_groups_.size() * 9;
    if (!cached)
      store_solution();
    apply_solution();
    return true;
  }

  // Whether the part's values leave every loose link it crosses unsaturated.
  bool loose_links_hold()
  {
    load_now_.assign(comp_links_.size(), 0.0);
    for (std::size_t k = 0; k < comp_groups_.size(); ++k) {
      const Group& g = groups_[comp_groups_[k]];
      double mv = static_cast<double>(g.flows.size()) * sg_[k].value;
      for (const auto& use : g.route->shared_uses) {
        auto li = static_cast<std::size_t>(use.first);
        if (link_loose_[li])
          load_now_[link_slot_[li]] += (mv - g.load_mv) * use.second;
      }
    }
    for (std::size_t j = 0; j < comp_links_.size(); ++j) {
      auto li = static_cast<std::size_t>(comp_links_[j]);
      if (link_loose_[li] && !loose_at(li, link_load_[li] + load_now_[j]))
        return false;
    }
    return true;
  }

  // The bottleneck clock. Progressive filling starts from every link's fill level, its capacity over the
  // summed weights of its flows. When the lowest level belongs to a link that every active group crosses,
  // and no group reaches its bound below it, that first round fixes every group at level / penalty: the
  // whole allocation is one number. The groups then progress on the clock C(t), the integral of that
  // level over time: a group of penalty p gains (C(t1) - C(t0)) / p of virtual progress between t0 and
  // t1, so the reading of C at which its first flow ends stays put while the level changes. A change of
  // flows then updates the levels of the links it touches, in a heap of the active links, and the clock's
  // rate; no group is visited. The same allocation as a re-solve, to rounding. Below kClockMinGroups
  // groups a re-solve is cheap and the solution cache serves, so the clock is not used.
  static constexpr std::size_t kClockMinGroups = 256;

  double fill_level(std::size_t li) const
  {
    double usage = link_weight_sum_[li];
    return usage > 0 ? platform_.links()[li].bandwidth_Bps / usage : kNever;
  }
  double clock_at(double t) const { return clock_ + lambda_ * (t - clock_time_); }
  // the clock's reading at which g's first flow ends
  double clock_end(const Group& g) const { return g.anchor + std::max(0.0, g.front_finish_v - g.v) * g.penalty; }
  double clock_time_of(double reading) const { return clock_time_ + std::max(0.0, reading - clock_) / lambda_; }

  // True when the allocation is one link's level (and the clock now runs at it).
  bool clock_holds()
  {
    if (active_groups_.size() < kClockMinGroups || link_levels_.empty())
      return false;
    double lambda = link_levels_.top_time();
    if (!(lambda > 0) || lambda == kNever)
      return false;
    if (link_groups_[link_levels_.top_id()].size() != active_groups_.size())
      return false;
    if (!bound_counts_.empty() && bound_counts_.begin()->first <= lambda)
      return false;
    if (!on_clock_) {
      for (std::uint32_t gid : active_groups_) {
        Group& g = groups_[gid];
        bring_up_to_date(g, now_);
        done_heap_.remove(gid);
      }
      on_clock_ = true;
      clock_ = 0;
      clock_time_ = now_;
      lambda_ = lambda;
      for (std::uint32_t gid : active_groups_) {
        Group& g = groups_[gid];
        g.anchor = 0;
        clock_heap_.schedule(gid, clock_end(g));
      }
      return true;
    }
    clock_ = clock_at(now_);
    clock_time_ = now_;
    lambda_ = lambda;
    return true;
  }

  // Back to per-group values: each group keeps the clock's last allocation until a re-solve changes it.
  void leave_clock()
  {
    for (std::uint32_t gid : active_groups_) {
      Group& g = groups_[gid];
      bring_up_to_date(g, now_);
      clock_heap_.remove(gid);
    }
    on_clock_ = false;
    for (std::uint32_t gid : active_groups_) {
      Group& g = groups_[gid];
      g.value = lambda_ / g.penalty;
      count_load(g, static_cast<double>(g.flows.size()) * g.value);
      g.last_update = now_;
      g.touched = false;
      done_heap_.schedule(gid, now_ + std::max(0.0, g.front_finish_v - g.v) / g.value);
    }
  }

  // The allocation of a component depends only on which groups it holds and
  // how many flows each has: capacities, penalties and bounds are fixed. An
  // iterative application goes through the same few configurations again and
  // again (a 64-rank stencil: under 200 distinct ones in 160,000 solves), so
  // solutions are kept in a direct-mapped table keyed by that configuration
  // and reused after a full comparison of the key. The table has a fixed size,
  // so memory stays flat however long the trace.
  static constexpr std::size_t kCacheSlots = 2048;
  static constexpr std::size_t kCacheMaxGroups = 256;
  struct CachedGroup {
    std::uint32_t group;
    std::uint32_t flows;
    double value;
  };
  struct CachedSolution {
    std::uint64_t hash = 0;
    std::vector<CachedGroup> groups;
  };

  static std::uint64_t mix(std::uint64_t x)
  {
    // splitmix64's finalizer
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  // Fills sg_[k].value from the table when this configuration was solved before.
  bool cached_solution()
  {
    if (!use_cache_ || comp_groups_.size() > kCacheMaxGroups)
      return false;
    std::uint64_t h = 0; // a sum, so the order of the groups does not matter
    for (std::uint32_t gid : comp_groups_)
      h += mix((static_cast<std::uint64_t>(gid) << 32) | groups_[gid].flows.size());
    comp_hash_ = h;
    const CachedSolution& c = cache_[h & (kCacheSlots - 1)];
    if (c.hash != h || c.groups.size() != comp_groups_.size())
      return false;
    // same size, and every cached group is in the component with the same flow count
    for (const CachedGroup& cg : c.groups)
      if (groups_[cg.group].mark != mark_ || groups_[cg.group].flows.size() != cg.flows)
        return false;
    sg_.resize(comp_groups_.size());
    for (const CachedGroup& cg : c.groups)
      sg_[groups_[cg.group].solve_index].value = cg.value;
    return true;
  }

  void store_solution()
  {
    if (!use_cache_ || comp_groups_.size() > kCacheMaxGroups)
      return;
    CachedSolution& c = cache_[comp_hash_ & (kCacheSlots - 1)];
    c.hash = comp_hash_;
    c.groups.clear();
    for (std::size_t k = 0; k < comp_groups_.size(); ++k)
      c.groups.push_back({comp_groups_[k], static_cast<std::uint32_t>(groups_[comp_groups_[k]].flows.size()), sg_[k].value});
  }

  void join_component(std::uint32_t gid)
  {
    Group& g = groups_[gid];
    g.mark = mark_;
    g.solve_index = static_cast<std::uint32_t>(comp_groups_.size());
    comp_groups_.push_back(gid);
  }

  // Breadth-first over links and groups from the dirty links.
  void search_component()
  {
    for (std::size_t i = 0; i < comp_links_.size(); ++i)
      for (const LinkUse& lu : link_groups_[static_cast<std::size_t>(comp_links_[i])]) {
        Group& g = groups_[lu.group];
        if (g.mark == mark_)
          continue;
        join_component(lu.group);
        for (const auto& use : g.route->shared_uses)
          visit_link(use.first);
      }
  }

  void visit_link(int l)
  {
    auto li = static_cast<std::size_t>(l);
    if (link_mark_[li] == mark_)
      return;
    link_mark_[li] = mark_;
    link_slot_[li] = static_cast<std::uint32_t>(comp_links_.size());
    link_loose_[li] = 0;
    comp_links_.push_back(l);
  }

  // Weighted max-min fairness with per-flow bounds (progressive filling): every
  // unfixed flow i gets lambda / penalty_i; lambda rises until a link saturates
  // (its remaining capacity over the summed inverse penalties of its unfixed
  // flows) or a flow reaches its bound. Components are small (tens of groups),
  // so plain scans beat heaps here. Results go to sg_[k].value for the k-th
  // group of comp_groups_.
  // Returns false, leaving the groups as they were, when a loose link of a part (solve_changed_part) would
  // saturate.
  bool solve_maxmin()
  {
    std::size_t nl = comp_links_.size();
    cap_.resize(nl);
    usage_.resize(nl);
    users_.resize(nl);
    level_.resize(nl);
    // every group on a component link is in the component: the running sums apply; a loose link of a part
    // offers what the groups outside it leave, to the part's groups
    bool any_loose = false;
    for (std::size_t j = 0; j < nl; ++j) {
      auto li = static_cast<std::size_t>(comp_links_[j]);
      cap_[j] = platform_.links()[li].bandwidth_Bps;
      usage_[j] = link_weight_sum_[li];
      users_[j] = static_cast<std::uint32_t>(link_groups_[li].size());
      if (link_loose_[li]) {
        any_loose = true;
        cap_[j] -= link_load_[li];
        usage_[j] = 0;
        users_[j] = 0;
      }
    }
    std::size_t ng = comp_groups_.size();
    if (any_loose) {
      for (std::uint32_t gid : comp_groups_) {
        const Group& g = groups_[gid];
        const RouteInfo& route = *g.route;
        double m = static_cast<double>(g.flows.size());
        for (std::size_t u = 0; u < route.shared_uses.size(); ++u) {
          auto li = static_cast<std::size_t>(route.shared_uses[u].first);
          if (!link_loose_[li])
            continue;
          std::size_t j = link_slot_[li];
          cap_[j] += g.load_mv * route.shared_uses[u].second;
          usage_[j] += m * route.shared_weights[u];
          ++users_[j];
        }
      }
      for (std::size_t j = 0; j < nl; ++j)
        cap_[j] = std::max(0.0, cap_[j]);
    }
    sg_.resize(ng);
    for (std::size_t k = 0; k < ng; ++k) {
      const Group& g = groups_[comp_groups_[k]];
      SolveGroup& s = sg_[k];
      s.penalty = g.penalty;
      s.bound = g.bound;
      s.lambda_bound = g.lambda_bound;
      s.value = -1; // unfixed
    }
    std::size_t unfixed = ng;
    auto fix = [&](std::size_t k, double value) {
      sg_[k].value = value;
      --unfixed;
      const Group& g = groups_[comp_groups_[k]];
      const RouteInfo& route = *g.route;
      double m = static_cast<double>(g.flows.size());
      for (std::size_t u = 0; u < route.shared_uses.size(); ++u) {
        std::size_t j = link_slot_[static_cast<std::size_t>(route.shared_uses[u].first)];
        cap_[j] = std::max(0.0, cap_[j] - m * route.shared_uses[u].second * value);
        usage_[j] -= m * route.shared_weights[u];
        if (--users_[j] == 0 || usage_[j] < 0)
          usage_[j] = 0; // no floating residue once the last group is fixed
      }
    };
    constexpr double kTie = 1 + 1e-12;
    while (unfixed > 0) {
      std::size_t before = unfixed;
      // each link's fill level, computed once per round
      double lambda_c = kNever;
      for (std::size_t j = 0; j < nl; ++j) {
        level_[j] = usage_[j] > 0 ? cap_[j] / usage_[j] : kNever;
        lambda_c = std::min(lambda_c, level_[j]);
      }
      double lambda_b = kNever;
      for (const SolveGroup& s : sg_)
        if (s.value == -1)
          lambda_b = std::min(lambda_b, s.lambda_bound);
      if (lambda_c == kNever && lambda_b == kNever) {
        for (std::size_t k = 0; k < ng; ++k)
          if (sg_[k].value == -1)
            fix(k, 0);
        break;
      }
      // Select the groups this level fixes: those at their bound, or those
      // crossing a saturated link. When they are all that is left (the usual
      // last round), assign them without updating the links.
      bool by_bound = lambda_b <= lambda_c;
      selected_.clear();
      if (by_bound) {
        for (std::size_t k = 0; k < ng; ++k)
          if (sg_[k].value == -1 && sg_[k].lambda_bound <= lambda_b * kTie) {
            sg_[k].value = -2;
            selected_.push_back(static_cast<std::uint32_t>(k));
          }
      } else {
        for (std::size_t j = 0; j < nl; ++j) {
          if (level_[j] > lambda_c * kTie)
            continue;
          if (link_loose_[static_cast<std::size_t>(comp_links_[j])])
            return false; // a loose link would saturate: the whole component decides
          for (const LinkUse& lu : link_groups_[static_cast<std::size_t>(comp_links_[j])]) {
            std::uint32_t k = groups_[lu.group].solve_index;
            if (sg_[k].value == -1) {
              sg_[k].value = -2;
              selected_.push_back(k);
            }
          }
        }
      }
      auto level_value = [&](const SolveGroup& s) { return by_bound ? s.bound : lambda_c / s.penalty; };
      if (selected_.size() == unfixed) {
        for (std::uint32_t k : selected_)
          sg_[k].value = level_value(sg_[k]);
        break;
      }
      for (std::uint32_t k : selected_)
        fix(k, level_value(sg_[k]));
      if (unfixed == before) // cannot happen with exact arithmetic; never loop forever
        for (std::size_t k = 0; k < ng; ++k)
          if (sg_[k].value < 0)
            fix(k, std::min(sg_[k].bound, lambda_c / sg_[k].penalty));
    }
    return true;
  }

  struct SolveGroup {
    double penalty, bound, lambda_bound;
    double value; // -1 unfixed, -2 selected at this level, then the result
  };

  const Platform& platform_;
  bool crosstraffic_;
  bool use_cache_;
  bool use_clock_;
  bool use_loose_;
  SlotPool<Flow> flows_;
  std::unordered_map<std::uint64_t, RouteInfo> routes_;
  std::vector<Group> groups_; // one per route, indexed by RouteInfo::id
  std::vector<std::vector<LinkUse>> link_groups_;
  std::vector<std::uint32_t> link_mark_;
  std::vector<std::uint32_t> link_slot_;
  std::vector<bool> link_dirty_;
  std::vector<int> dirty_links_;
  std::vector<int> comp_links_;
  std::vector<std::uint32_t> comp_groups_;
  std::vector<double> cap_, usage_, level_;
  std::vector<double> link_weight_sum_;          // running sum of coefficient / penalty of a link's flows
  std::vector<std::uint32_t> link_active_slot_;
  std::vector<std::uint32_t> active_groups_;     // groups with flows in their bandwidth phase
  std::vector<int> active_links_;                // links carrying at least one such flow
  bool solve_all_ = false;
  std::uint32_t solves_since_search_ = 0;
  std::vector<std::uint32_t> users_;
  std::vector<SolveGroup> sg_;
  std::vector<std::uint32_t> selected_;
  std::vector<CachedSolution> cache_;
  std::uint64_t comp_hash_ = 0;

  CompletionHeap latency_heap_;
  CompletionHeap done_heap_; // one entry per group with flows, keyed by group id
  CompletionHeap solo_heap_; // flows on routes without a shared link
  // the bottleneck clock
  bool on_clock_ = false;
  double clock_ = 0, clock_time_ = 0, lambda_ = 0; // its reading at clock_time_, and its rate since
  CompletionHeap link_levels_;                      // active links by fill level
  CompletionHeap clock_heap_;                       // groups on the clock, by the reading at which their first flow ends
  std::map<double, std::uint32_t> bound_counts_;    // active groups per finite lambda_bound
  std::vector<double> link_load_;         // per link: the flows' use of it at their values (loose links)
  std::vector<std::uint8_t> link_loose_;  // per link visited in this solve: loose, not searched through
  std::vector<std::uint32_t> touched_list_; // groups whose flows changed since the last solve
  std::vector<double> load_now_;
  bool part_futile_ = false;           // the last part was (nearly) the whole component, or failed
  std::uint32_t solves_since_part_ = 0;          // per component link: how a part's new values change its load
  NetworkCounters counters_;
  std::uint64_t seq_ = 0;
  std::uint32_t mark_ = 0;
  double now_ = 0;
};

} // namespace

std::unique_ptr<NetworkModel> make_smpi_network(const Platform& platform, const NetworkOptions& options)
{
  return std::make_unique<SmpiNetwork>(platform, options);
}

} // namespace perfcast

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
#include "net/CompletionHeap.hpp"
#include "net/NetworkModel.hpp"
#include "net/SmpiFactors.hpp"

#include <algorithm>
#include <cmath>
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
  double remaining = 0;
  double factor = 1;
  double value = 0; // max-min variable; progress rate is value * factor
  double last_update = 0;
  std::uint32_t group_pos = 0; // position in its group's flow list
};

// The active flows of one route: they get one max-min value.
struct Group {
  const RouteInfo* route = nullptr;
  std::vector<std::uint32_t> flows;
  std::vector<std::uint32_t> slot; // position in each used link's group list
  std::uint32_t active_slot = 0;   // position in the list of groups sharing links
  std::uint32_t mark = 0;
  double value = 0; // during a solve: -1 unfixed, -2 selected at this level
};

struct LinkUse {
  std::uint32_t group;
  std::uint32_t use; // index into the route's shared_uses
};

class SmpiNetwork final : public NetworkModel {
public:
  SmpiNetwork(const Platform& platform, const NetworkOptions& options)
      : platform_(platform), crosstraffic_(options.crosstraffic), link_groups_(platform.links().size()), link_mark_(platform.links().size(), 0),
        link_slot_(platform.links().size(), 0),
        link_dirty_(platform.links().size(), false), link_weight_sum_(platform.links().size(), 0.0),
        link_active_slot_(platform.links().size(), 0)
  {
  }

  std::uint32_t start(int src, int dst, double bytes, double now) override
  {
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(flows_.size());
      flows_.emplace_back();
    }
    Flow& f = flows_[id];
    f.route = &route_info(src, dst);
    f.remaining = bytes;
    f.factor = smpi_bw_factor(bytes);
    f.value = 0;
    f.last_update = now;
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
    return std::min(latency_heap_.top_time(), done_heap_.top_time());
  }

  void advance(double t, std::vector<std::uint32_t>& completed) override
  {
    now_ = t;
    std::uint32_t id;
    while (done_heap_.pop_until(t, id)) {
      detach(id);
      free_.push_back(id);
      completed.push_back(id);
    }
    while (latency_heap_.pop_until(t, id))
      activate(id, t);
  }

  std::string_view name() const override { return "smpi"; }

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
    return stored;
  }

  void activate(std::uint32_t id, double now)
  {
    Flow& f = flows_[id];
    f.last_update = now;
    const RouteInfo& route = *f.route;
    if (route.shared_uses.empty()) {
      // no shared link: only the bound limits it (SimGrid: an empty route completes at once)
      f.value = route.bound;
      double rate = f.value * f.factor;
      done_heap_.schedule(id, rate == kNever || rate <= 0 ? now : now + f.remaining / rate);
      return;
    }
    f.value = 0;
    Group& g = groups_[route.id];
    if (g.flows.empty()) {
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
    }
    f.group_pos = static_cast<std::uint32_t>(g.flows.size());
    g.flows.push_back(id);
    for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
      link_weight_sum_[static_cast<std::size_t>(route.shared_uses[u].first)] += route.shared_weights[u];
      mark_dirty(route.shared_uses[u].first);
    }
  }

  void detach(std::uint32_t id)
  {
    Flow& f = flows_[id];
    const RouteInfo& route = *f.route;
    if (route.shared_uses.empty())
      return;
    Group& g = groups_[route.id];
    std::uint32_t at = f.group_pos;
    g.flows[at] = g.flows.back();
    flows_[g.flows[at]].group_pos = at;
    g.flows.pop_back();
    for (std::uint32_t u = 0; u < route.shared_uses.size(); ++u) {
      link_weight_sum_[static_cast<std::size_t>(route.shared_uses[u].first)] -= route.shared_weights[u];
      mark_dirty(route.shared_uses[u].first);
    }
    if (!g.flows.empty())
      return;
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
    ++mark_;
    comp_links_.clear();
    comp_groups_.clear();
    for (int l : dirty_links_)
      link_dirty_[static_cast<std::size_t>(l)] = false;
    // When the components touched have lately been (nearly) every active
    // group, solving all of them at once gives the same allocation without the
    // search; every 32nd solve looks again.
    if (solve_all_ && (++solves_since_search_ & 31) != 0) {
      dirty_links_.clear();
      comp_groups_ = active_groups_;
      for (int l : active_links_)
        visit_link(l);
      for (std::uint32_t gid : comp_groups_)
        groups_[gid].mark = mark_;
    } else {
      for (int l : dirty_links_)
        visit_link(l);
      dirty_links_.clear();
      search_component();
      solve_all_ = comp_groups_.size() * 10 >= active_groups_.size() * 9;
    }
    if (comp_groups_.empty())
      return;
    finish_solve();
  }

  // Breadth-first over links and groups from the dirty links.
  void search_component()
  {
    for (std::size_t i = 0; i < comp_links_.size(); ++i)
      for (const LinkUse& lu : link_groups_[static_cast<std::size_t>(comp_links_[i])]) {
        Group& g = groups_[lu.group];
        if (g.mark == mark_)
          continue;
        g.mark = mark_;
        comp_groups_.push_back(lu.group);
        for (const auto& use : g.route->shared_uses)
          visit_link(use.first);
      }
  }

  void finish_solve()
  {
    // bring remaining bytes up to now at the old rates
    for (std::uint32_t gid : comp_groups_)
      for (std::uint32_t fid : groups_[gid].flows) {
        Flow& f = flows_[fid];
        f.remaining = std::max(0.0, f.remaining - f.value * f.factor * (now_ - f.last_update));
        f.last_update = now_;
      }
    solve_maxmin();
    for (std::uint32_t gid : comp_groups_) {
      double value = groups_[gid].value;
      for (std::uint32_t fid : groups_[gid].flows) {
        Flow& f = flows_[fid];
        if (f.value == value && value > 0)
          continue; // same rate: its scheduled end still holds
        f.value = value;
        double rate = value * f.factor;
        done_heap_.schedule(fid, rate > 0 ? now_ + f.remaining / rate : kNever);
      }
    }
  }

  void visit_link(int l)
  {
    auto li = static_cast<std::size_t>(l);
    if (link_mark_[li] == mark_)
      return;
    link_mark_[li] = mark_;
    link_slot_[li] = comp_links_.size();
    comp_links_.push_back(l);
  }

  // Weighted max-min fairness with per-flow bounds (progressive filling): every
  // unfixed flow i gets lambda / penalty_i; lambda rises until a link saturates
  // (its remaining capacity over the summed inverse penalties of its unfixed
  // flows) or a flow reaches its bound. Components are small (tens of flows),
  // so plain scans beat heaps here.
  void solve_maxmin()
  {
    std::size_t nl = comp_links_.size();
    cap_.resize(nl);
    usage_.resize(nl);
    users_.resize(nl);
    level_.resize(nl);
    // every group on a component link is in the component: the running sums apply
    for (std::size_t j = 0; j < nl; ++j) {
      auto li = static_cast<std::size_t>(comp_links_[j]);
      cap_[j] = platform_.links()[li].bandwidth_Bps;
      usage_[j] = link_weight_sum_[li];
      users_[j] = static_cast<std::uint32_t>(link_groups_[li].size());
    }
    for (std::uint32_t gid : comp_groups_)
      groups_[gid].value = -1; // unfixed
    std::size_t unfixed = comp_groups_.size();
    auto fix = [&](Group& g, double value) {
      g.value = value;
      --unfixed;
      double m = static_cast<double>(g.flows.size());
      const RouteInfo& route = *g.route;
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
      for (std::uint32_t gid : comp_groups_) {
        const Group& g = groups_[gid];
        if (g.value < 0 && g.route->bound < kNever)
          lambda_b = std::min(lambda_b, g.route->bound * g.route->penalty);
      }
      if (lambda_c == kNever && lambda_b == kNever) {
        for (std::uint32_t gid : comp_groups_)
          if (groups_[gid].value < 0)
            fix(groups_[gid], 0);
        break;
      }
      // Select the groups this level fixes; when they are all that is left
      // (the usual last round) assign them without updating the links.
      selected_.clear();
      if (lambda_b <= lambda_c) {
        for (std::uint32_t gid : comp_groups_) {
          Group& g = groups_[gid];
          if (g.value == -1 && g.route->bound * g.route->penalty <= lambda_b * kTie) {
            g.value = -2;
            selected_.push_back(gid);
          }
        }
      } else {
        for (std::size_t j = 0; j < nl; ++j) {
          if (level_[j] > lambda_c * kTie)
            continue;
          for (const LinkUse& lu : link_groups_[static_cast<std::size_t>(comp_links_[j])]) {
            Group& g = groups_[lu.group];
            if (g.value == -1) {
              g.value = -2;
              selected_.push_back(lu.group);
            }
          }
        }
      }
      auto level_value = [&](const Group& g) {
        return lambda_b <= lambda_c ? g.route->bound : lambda_c / g.route->penalty;
      };
      if (selected_.size() == unfixed) {
        for (std::uint32_t gid : selected_)
          groups_[gid].value = level_value(groups_[gid]);
        break;
      }
      for (std::uint32_t gid : selected_)
        fix(groups_[gid], level_value(groups_[gid]));
      if (unfixed == before) // cannot happen with exact arithmetic; never loop forever
        for (std::uint32_t gid : comp_groups_)
          if (groups_[gid].value < 0)
            fix(groups_[gid], std::min(groups_[gid].route->bound, lambda_c / groups_[gid].route->penalty));
    }
  }

  const Platform& platform_;
  bool crosstraffic_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::unordered_map<std::uint64_t, RouteInfo> routes_;
  std::vector<Group> groups_; // one per route, indexed by RouteInfo::id
  std::vector<std::vector<LinkUse>> link_groups_;
  std::vector<std::uint32_t> link_mark_;
  std::vector<std::size_t> link_slot_;
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
  std::vector<std::uint32_t> selected_;

  CompletionHeap latency_heap_, done_heap_;
  std::uint32_t mark_ = 0;
  double now_ = 0;
};

} // namespace

std::unique_ptr<NetworkModel> make_smpi_network(const Platform& platform, const NetworkOptions& options)
{
  return std::make_unique<SmpiNetwork>(platform, options);
}

} // namespace perfcast

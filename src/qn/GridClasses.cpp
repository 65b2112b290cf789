#include "qn/GridClasses.hpp"

#include "core/Error.hpp"
#include "core/Statistics.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace perfcast {

namespace {

using Offset = std::vector<int>;

// A pair off the grid with at most this share of the run's largest pair's bytes is beside the grid (left to
// the curves with the setup traffic), not a reason to refuse the grid
constexpr double kSmallFarPair = 0.05;

// Every offset in {-1, 0, 1}^d but the zero one, in a fixed order.
std::vector<Offset> all_offsets(std::size_t d)
{
  std::vector<Offset> out;
  int total = 1;
  for (std::size_t i = 0; i < d; ++i)
    total *= 3;
  for (int code = 0; code < total; ++code) {
    Offset o;
    bool zero = true;
    for (int c = code, i = 0; i < static_cast<int>(d); ++i, c /= 3) {
      o.push_back(c % 3 - 1);
      zero = zero && o.back() == 0;
    }
    if (!zero)
      out.push_back(o);
  }
  return out;
}

int nonzero(const Offset& o)
{
  return static_cast<int>(std::count_if(o.begin(), o.end(), [](int x) { return x != 0; }));
}

// The rank an offset leads to from `coords`, or -1 off a non-periodic edge.
int target_of(const ProcessGrid& g, const std::vector<int>& coords, const Offset& o)
{
  std::vector<int> c = coords;
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] += o[i];
    int p = g.dims[i];
    if (g.periodic[i])
      c[i] = ((c[i] % p) + p) % p;
    else if (c[i] < 0 || c[i] >= p)
      return -1;
  }
  return g.rank_at(c);
}

// The crossed face's share of the domain's cross-section: prod over the axes the offset does not cross of 1/p_j.
double area_of(const ProcessGrid& g, const Offset& o)
{
  double a = 1;
  for (std::size_t j = 0; j < o.size(); ++j)
    if (o[j] == 0)
      a /= g.dims[j];
  return a;
}

// Per rank, the targets its offsets reach, each with the offsets that reach it by the fewest axes crossed (on a
// periodic side of 2 a rank's +1 and -1 neighbours are one rank; on a periodic side of 1 they are itself, and a
// face is preferred to an edge or a corner that lands on the same rank).
std::vector<std::map<int, std::vector<Offset>>> neighbourhoods(const ProcessGrid& g,
                                                               const std::vector<Offset>& offsets)
{
  int n = g.procs();
  std::vector<std::map<int, std::vector<Offset>>> out(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    std::vector<int> c = g.coordinates(r);
    auto& near = out[static_cast<std::size_t>(r)];
    for (const Offset& o : offsets) {
      int t = target_of(g, c, o);
      if (t < 0)
        continue;
      auto& list = near[t];
      if (!list.empty() && nonzero(list.front()) < nonzero(o))
        continue;
      if (!list.empty() && nonzero(list.front()) > nonzero(o))
        list.clear();
      list.push_back(o);
    }
  }
  return out;
}

std::string offset_name(const Offset& o)
{
  if (o.empty())
    return "all-to-all";
  std::string s = "(";
  for (std::size_t i = 0; i < o.size(); ++i)
    s += (i ? "," : "") + (o[i] > 0 ? std::string("+1") : o[i] < 0 ? std::string("-1") : std::string("0"));
  return s + ")";
}

// A class's sizes relative to its mean in one run; empty when some pair did not give its sizes.
std::vector<SizeShare> class_size_mix(const ClassedRun::Observation& x)
{
  std::vector<SizeShare> mix;
  if (!x.sized || !(x.messages > 0) || !(x.bytes > 0))
    return mix;
  double mean = x.bytes / x.messages;
  for (const auto& [low, k] : x.sizes)
    if (k.messages > 0)
      mix.push_back({k.bytes / k.messages / mean, k.messages / x.messages});
  return mix;
}

// Whether the runs' periodic sides of 2 carry one offset's traffic to the one partner rather than the sum of the
// offsets that reach it: each offset's messages per pair from the runs where its pairs are reached by it alone (0
// where silent), then over every pair several offsets reach, the messages it carried against that sum and against
// the offsets' mean. One offset's (within 10%), and not the sum, for the runs as a whole
bool sends_side_two_once(const std::vector<ClassedRun>& classed)
{
  std::map<Offset, std::pair<double, int>> alone; // offset -> (sum of messages per pair, runs)
  for (const ClassedRun& c : classed)
    for (const auto& x : c.classes)
      if (!x.offset.empty() && !x.shared && x.pairs > 0) {
        alone[x.offset].first += x.messages / x.pairs;
        alone[x.offset].second += 1;
      }
  double carried = 0, sum = 0, one = 0;
  for (const ClassedRun& c : classed)
    for (const auto& [list, messages] : c.shared_pairs) {
      double s = 0;
      bool known = true;
      for (const Offset& o : list) {
        auto it = alone.find(o);
        known = known && it != alone.end();
        if (known)
          s += it->second.first / it->second.second;
      }
      if (!known)
        continue;
      carried += messages, sum += s, one += s / static_cast<double>(list.size());
    }
  auto near = [](double a, double b) { return std::fabs(a - b) <= 0.1 * b; };
  return one > 0 && near(carried, one) && !near(carried, sum);
}

} // namespace

std::string GridClass::name() const { return offset_name(offset); }

std::string GridClasses::describe() const
{
  std::size_t neighbours = 0;
  bool all = false;
  for (const GridClass& c : classes) {
    if (c.offset.empty())
      all = true;
    else
      ++neighbours;
  }
  bool periodic = rule.kind == "file" ? !rule.grids.empty() && !rule.grids.begin()->second.periodic.empty() &&
                                            rule.grids.begin()->second.periodic.front()
                                      : rule.periodic;
  return fmt::format("{}-D {}grid, {} class{}{}{}", rule.dimensions, periodic ? "periodic " : "", neighbours,
                     neighbours == 1 ? "" : "es", all ? " + all-to-all" : "",
                     side_two_once ? " (a side of 2: one offset's traffic to the one partner)" : "");
}

ClassedRun classify_partners(const MeasuredRun& run, const ProcessGrid& grid, bool once)
{
  if (grid.procs() != run.procs)
    fail_in(run.source, fmt::format("the grid {} holds {} processes, the run {}", grid.describe(), grid.procs(),
                                    run.procs));
  ClassedRun out;
  out.procs = run.procs;
  out.grid = grid;
  int n = run.procs;
  // the pairs' traffic
  struct Pair {
    double messages = 0, bytes = 0;
    std::map<double, GridTraffic> sizes; // by size class
    bool sized = true;
  };
  std::map<std::pair<int, int>, Pair> pairs;
  for (int r = 0; r < n && static_cast<std::size_t>(r) < run.partners.size(); ++r)
    for (const PartnerTraffic& p : run.partners[static_cast<std::size_t>(r)]) {
      if (!(p.messages > 0))
        continue;
      Pair& t = pairs[{r, p.to}];
      t.messages += p.messages, t.bytes += p.bytes;
      t.sized = t.sized && !p.sizes.empty();
      for (const SizeClass& c : p.sizes) {
        GridTraffic& k = t.sizes[c.min_bytes];
        k.messages += c.messages, k.bytes += c.bytes;
      }
    }
  std::vector<Offset> offsets = all_offsets(grid.dims.size());
  auto near = neighbourhoods(grid, offsets);
  // setup pairs aside (a rank's messages to itself are never setup), unless every far pair talks: an all-to-all
  double far_pairs = 0, far_talking = 0;
  for (int r = 0; r < n; ++r)
    for (int t = 0; t < n; ++t)
      if (t != r && !near[static_cast<std::size_t>(r)].count(t)) {
        far_pairs += 1;
        far_talking += pairs.count({r, t});
      }
  bool all_to_all = far_pairs > 0 && far_talking == far_pairs;
  double setup = all_to_all ? 0.0 : setup_messages_limit(run);
  // and, off the grid only, a pair of at most kSmallFarPair of the largest pair's bytes (PENNANT's 43 messages
  // of 80 bytes from one rank to rank 0 beside faces of 193 kB; the prototype's rule, report-grid.md step 2)
  double largest = 0;
  for (const auto& [pair, t] : pairs)
    if (pair.first != pair.second)
      largest = std::max(largest, t.bytes);
  const Pair none;
  auto traffic = [&](int r, int t) -> const Pair& {
    auto it = pairs.find({r, t});
    if (it == pairs.end() || (t != r && is_setup_pair(it->second.messages, setup)))
      return none;
    if (!all_to_all && t != r && !near[static_cast<std::size_t>(r)].count(t) &&
        it->second.bytes <= kSmallFarPair * largest)
      return none;
    return it->second;
  };
  out.received.assign(static_cast<std::size_t>(n), 0.0);
  std::map<Offset, ClassedRun::Observation> seen;
  // a pair's traffic, or a share of it (a pair reached by several offsets), in class o
  auto observe = [&](const Offset& o, const Pair& p, double share, bool itself, bool shared) {
    double messages = p.messages * share, bytes = p.bytes * share;
    auto [it, fresh] = seen.try_emplace(o);
    ClassedRun::Observation& x = it->second;
    x.to_itself = x.to_itself && itself;
    x.shared = x.shared || shared;
    if (fresh) {
      x.offset = o;
      x.least = messages;
      x.area = o.empty() ? 1.0 : area_of(grid, o);
    }
    x.messages += messages, x.bytes += bytes, x.pairs += 1;
    if (messages > 0) {
      x.sized = x.sized && p.sized;
      for (const auto& [low, k] : p.sizes) {
        GridTraffic& s = x.sizes[low];
        s.messages += k.messages * share, s.bytes += k.bytes * share;
      }
    }
    x.least = std::min(x.least, messages), x.most = std::max(x.most, messages);
    if (messages > 0) {
      double size = bytes / messages;
      x.smallest = x.smallest > 0 ? std::min(x.smallest, size) : size;
      x.largest = std::max(x.largest, size);
    }
  };
  for (int r = 0; r < n; ++r) {
    const auto& mine = near[static_cast<std::size_t>(r)];
    for (const auto& [t, list] : mine) {
      const Pair& p = traffic(r, t);
      out.classed.messages += p.messages, out.classed.bytes += p.bytes;
      out.received[static_cast<std::size_t>(t)] += p.bytes;
      if (t == r)
        out.classed.self_messages += p.messages, out.classed.self_bytes += p.bytes;
      double share = once ? 1.0 : 1.0 / static_cast<double>(list.size());
      if (list.size() > 1)
        out.shared_pairs.emplace_back(list, p.messages);
      for (const Offset& o : list)
        observe(o, p, share, t == r, list.size() > 1);
    }
    for (int t = 0; t < n; ++t) {
      if (mine.count(t))
        continue;
      const Pair& p = traffic(r, t);
      if (t == r) {
        out.self_unexplained += p.messages;
        continue;
      }
      out.far_pairs += 1;
      if (p.messages > 0)
        out.far_present += 1;
      out.classed.messages += p.messages, out.classed.bytes += p.bytes;
      out.received[static_cast<std::size_t>(t)] += p.bytes;
      observe({}, p, 1.0, false, false);
    }
  }
  for (auto& [o, x] : seen)
    out.classes.push_back(x);
  return out;
}

GridFit fit_grid_classes(const std::vector<MeasuredRun>& runs, const std::vector<GridRule>& rules, bool strict,
                         bool local_copies)
{
  GridFit result;
  std::vector<const MeasuredRun*> sending;
  for (const MeasuredRun& r : runs) {
    if (r.procs < 2 || !(r.sends_per_process > 0))
      continue;
    if (r.partners.size() != static_cast<std::size_t>(r.procs))
      return result; // a run without partner lists: nothing to class
    sending.push_back(&r);
  }
  bool any_pair = std::any_of(sending.begin(), sending.end(), [](const MeasuredRun* r) {
    return measured_grid_traffic(*r).messages > 0;
  });
  if (sending.empty() || !any_pair)
    return result;
  std::string first_why;
  int furthest = 0; // the count at which the irregular rule that held longest broke
  for (const GridRule& rule : rules) {
    std::vector<ClassedRun> classed;
    std::string why;
    int broke = 0;
    for (const MeasuredRun* r : sending) {
      ClassedRun c = classify_partners(*r, rule.at(r->procs));
      if ((c.irregular() || c.self_unexplained > 0) && why.empty())
        broke = r->procs;
      if (c.irregular() && why.empty())
        why = fmt::format("at {} processes on {}, {} of the {} pairs that are no grid neighbours carry messages "
                          "(neither all of them nor setup traffic)",
                          r->procs, c.grid.describe(), c.far_present, c.far_pairs);
      if (c.self_unexplained > 0 && why.empty())
        why = fmt::format("at {} processes on {}, ranks send themselves {:.0f} messages that no periodic side of 1 "
                          "explains",
                          r->procs, c.grid.describe(), c.self_unexplained);
      classed.push_back(std::move(c));
    }
    if (!why.empty()) {
      if (broke > furthest) {
        furthest = broke;
        first_why = why;
      }
      continue;
    }
    bool once = sends_side_two_once(classed);
    if (once)
      for (std::size_t i = 0; i < sending.size(); ++i)
        classed[i] = classify_partners(*sending[i], rule.at(sending[i]->procs), true);
    // per class: the runs whose grid has it, and those where it carried messages
    std::map<Offset, std::vector<const ClassedRun::Observation*>> has;
    std::map<Offset, std::vector<int>> procs_of;
    for (const ClassedRun& c : classed)
      for (const auto& x : c.classes) {
        has[x.offset].push_back(&x);
        procs_of[x.offset].push_back(c.procs);
      }
    bool fits = true;
    if (strict) {
      std::set<int> counts;
      for (const ClassedRun& c : classed)
        counts.insert(c.procs);
      if (counts.size() < 2)
        fits = false;
      for (const auto& [o, list] : has) {
        bool carried = false, silent = false;
        for (const auto* x : list) {
          if (local_copies && x->to_itself && !(x->messages > 0))
            continue; // a side of 1 the code copies without a message
          (x->messages > 0 ? carried : silent) = true;
          if (x->messages > 0 &&
              (!(x->least > 0) || x->most > 1.1 * x->least || x->largest > 1.5 * x->smallest))
            fits = false; // uneven pairs: not one class
        }
        if (carried && silent)
          fits = false; // carried in one run, silent in another
      }
    }
    if (!fits)
      continue;
    GridClasses table;
    table.rule = rule;
    table.side_two_once = once;
    std::vector<double> identified_k;
    std::vector<std::pair<std::size_t, std::vector<std::pair<double, double>>>> unidentified;
    for (const auto& [o, list] : has) {
      std::vector<std::pair<double, double>> by_area, by_procs;
      GridClass k;
      k.offset = o;
      const std::vector<int>& counts = procs_of[o];
      int largest = 0;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const auto* x = list[i];
        if (counts[i] >= largest) {
          largest = counts[i];
          k.messages_per_pair = x->messages / x->pairs;
          k.mix = class_size_mix(*x);
        }
        if (!(x->messages > 0))
          continue;
        k.seen_at.push_back(counts[i]);
        double size = x->bytes / x->messages;
        if (size > 0) {
          by_area.emplace_back(x->area, size);
          by_procs.emplace_back(counts[i], size);
        }
      }
      if (k.seen_at.empty()) {
        table.silent.push_back(o);
        continue;
      }
      if (by_area.empty()) {
        k.bytes = 0; // empty messages
      } else if (o.empty()) {
        PowerFit p = fit_power(by_procs, -2, 0, -1);
        k.cut = false, k.bytes = p.c, k.exponent = -p.k;
      } else {
        std::set<double> areas, procs;
        for (const auto& [a, s] : by_area)
          areas.insert(a);
        for (const auto& [n, s] : by_procs)
          procs.insert(n);
        PowerFit cut = fit_power(by_area, 0, 1, 1);
        PowerFit power = fit_power(by_procs, -2, 0, -1);
        // the cut of the domain unless n^-k fits the runs clearly better (a 1-D grid's faces have A = 1)
        if (procs.size() >= 2 && power.error < cut.error - 1e-4 * static_cast<double>(by_area.size())) {
          k.cut = false, k.bytes = power.c, k.exponent = -power.k;
        } else {
          k.cut = true, k.bytes = cut.c, k.exponent = cut.k;
          if (areas.size() >= 2)
            identified_k.push_back(cut.k);
          else
            unidentified.emplace_back(table.classes.size(), by_area);
        }
      }
      table.classes.push_back(k);
    }
    // a class whose face was the same share in every run borrows the others' exponent (else 1, a fixed domain)
    double borrowed = identified_k.empty() ? 1.0 : median(identified_k);
    for (const auto& [i, by_area] : unidentified) {
      PowerFit f = fit_power(by_area, borrowed, borrowed, borrowed);
      table.classes[i].bytes = f.c, table.classes[i].exponent = f.k;
    }
    // the busiest receiver of the traffic beside the grid (a rooted collective's root), from the replays'
    // received bytes less the grid's
    std::vector<std::pair<int, std::vector<double>>> beside;
    for (std::size_t i = 0; i < sending.size(); ++i) {
      const MeasuredRun* r = sending[i];
      if (r->rank_bytes_received.size() != static_cast<std::size_t>(r->procs)) {
        beside.clear();
        break;
      }
      std::vector<double> rest = r->rank_bytes_received;
      for (std::size_t t = 0; t < rest.size(); ++t)
        rest[t] = std::max(rest[t] - classed[i].received[t], 0.0);
      beside.emplace_back(r->procs, std::move(rest));
    }
    table.rest_hot_receive = rest_hot_receive_curve(beside);
    result.table = std::move(table);
    return result;
  }
  if (!first_why.empty()) {
    result.irregular = true;
    result.why = first_why;
  }
  return result;
}

GridTraffic classed_traffic(const GridClasses& table, const MeasuredRun& run)
{
  if (run.procs < 2 || run.partners.size() != static_cast<std::size_t>(run.procs))
    return {};
  return classify_partners(run, table.rule.at(run.procs)).classed;
}

std::vector<GridTraffic> classed_traffic_by_size(const GridClasses& table, const MeasuredRun& run)
{
  std::vector<GridTraffic> classes;
  if (run.procs < 2 || run.partners.size() != static_cast<std::size_t>(run.procs))
    return classes;
  for (const ClassedRun::Observation& o : classify_partners(run, table.rule.at(run.procs)).classes) {
    if (!(o.messages > 0))
      continue;
    if (o.sized)
      for (const auto& [low, k] : o.sizes)
        classes.push_back(k);
    else
      classes.push_back({o.messages, o.bytes});
  }
  return classes;
}

ClassTrafficAt grid_class_traffic(const GridClasses& table, int procs)
{
  ClassTrafficAt t;
  int n = std::max(procs, 1);
  t.grid = table.rule.at(n);
  t.received.assign(static_cast<std::size_t>(n), 0.0);
  std::map<Offset, const GridClass*> by_offset;
  const GridClass* all = nullptr;
  for (const GridClass& k : table.classes)
    if (k.offset.empty())
      all = &k;
    else
      by_offset[k.offset] = &k;
  std::set<Offset> silent(table.silent.begin(), table.silent.end());
  // a class's bytes per message at this grid (`o` its offset; the all-to-all class is never a cut)
  auto size_of = [&](const GridClass& k, const Offset& o) {
    return k.cut ? k.bytes * std::pow(area_of(t.grid, o), k.exponent) : k.bytes * std::pow(n, -k.exponent);
  };
  // an unseen offset crossing `axes` axes: the median messages per pair and bytes per message at this grid of the
  // carried classes crossing as many (or the fewest); none when no neighbour class carried messages
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> carried; // axes -> (messages, sizes)
  for (const GridClass& k : table.classes)
    if (!k.offset.empty() && k.messages_per_pair > 0) {
      auto& [messages, sizes] = carried[nonzero(k.offset)];
      messages.push_back(k.messages_per_pair);
      sizes.push_back(size_of(k, k.offset));
    }
  int most_axes = carried.empty() ? 0 : carried.rbegin()->first;
  auto guess = [&](const Offset& o) {
    auto it = carried.find(nonzero(o));
    const auto& [messages, sizes] = it != carried.end() ? it->second : carried.begin()->second;
    return std::pair{median(messages), median(sizes)};
  };
  std::vector<Offset> offsets = all_offsets(t.grid.dims.size());
  auto near = neighbourhoods(t.grid, offsets);
  std::set<std::string> unseen;
  std::map<double, double> by_size; // bytes per message -> messages
  for (int r = 0; r < n; ++r) {
    const auto& mine = near[static_cast<std::size_t>(r)];
    for (const auto& [to, list] : mine)
      for (const Offset& o : list) {
        auto it = by_offset.find(o);
        double messages = 0, size = 0;
        if (it != by_offset.end()) {
          messages = it->second->messages_per_pair;
          size = size_of(*it->second, o);
        } else {
          if (silent.count(o) || carried.empty())
            continue;
          unseen.insert(offset_name(o));
          auto [m, guessed] = guess(o);
          t.unseen_messages += m, t.unseen_bytes += m * guessed;
          if (nonzero(o) > most_axes)
            continue; // a diagonal where only faces carried: silent, its guess only in the unseen share
          messages = m, size = guessed;
        }
        if (table.side_two_once)
          messages /= static_cast<double>(list.size()); // one offset's traffic to a partner several reach
        double bytes = messages * size;
        if (messages > 0) {
          if (it != by_offset.end() && !it->second->mix.empty())
            for (const SizeShare& s : it->second->mix)
              by_size[size * s.relative_size] += messages * s.message_share;
          else
            by_size[size] += messages;
        }
        t.messages += messages, t.bytes += bytes;
        t.received[static_cast<std::size_t>(to)] += bytes;
        if (to == r)
          t.self_messages += messages, t.self_bytes += bytes;
      }
    if (all != nullptr) {
      // every rank that is no grid neighbour: neighbourhoods are symmetric (the offsets come in +- pairs, and a
      // wrap or an edge treats both ways alike), so as many ranks send to r in the class as r sends to, and a
      // count replaces a pass over all n ranks per rank (n^2 at a large target)
      double others = static_cast<double>(n - 1) - static_cast<double>(mine.size() - mine.count(r));
      double messages = others * all->messages_per_pair, size = size_of(*all, {}), bytes = messages * size;
      if (messages > 0) {
        if (!all->mix.empty())
          for (const SizeShare& s : all->mix)
            by_size[size * s.relative_size] += messages * s.message_share;
        else
          by_size[size] += messages;
      }
      t.messages += messages, t.bytes += bytes;
      t.received[static_cast<std::size_t>(r)] += bytes;
    }
  }
  t.unseen.assign(unseen.begin(), unseen.end());
  for (const auto& [size, messages] : by_size)
    t.sizes.push_back({size, messages});
  return t;
}

double grid_hot_receive_share(const GridClasses& table, const ClassTrafficAt& at, double rest_bytes)
{
  double n = static_cast<double>(at.received.size());
  return busiest_receive_share(at.received, rest_bytes,
                               table.rest_hot_receive ? (*table.rest_hot_receive)(n) : 1 / std::max(n, 1.0));
}

PeriodicAmbiguity periodic_ambiguity(const std::vector<MeasuredRun>& runs, const GridClasses& table)
{
  if (table.rule.kind != "dims_create" || table.rule.periodic)
    return {};
  GridRule twin = table.rule;
  twin.periodic = true;
  GridFit other = fit_grid_classes(runs, {twin}, true, true);
  if (!other.table)
    return {};
  int largest = 0;
  for (const MeasuredRun& r : runs)
    largest = std::max(largest, r.procs);
  int at = 8 * largest;
  ClassTrafficAt open = grid_class_traffic(table, at), wrapped = grid_class_traffic(*other.table, at);
  auto apart = [](double a, double b) { return std::fabs(a - b) > 0.05 * std::max(a, b); };
  if (!apart(open.messages, wrapped.messages) && !apart(open.bytes, wrapped.bytes))
    return {};
  // the smallest count whose grid has a side of 4 or more, whose ends are no neighbours unless it wraps (on a
  // side of 3 every rank neighbours both others, and the ends' traffic reads as an all-to-all class)
  auto wide = [&](int n) {
    ProcessGrid g = table.rule.at(n);
    return std::any_of(g.dims.begin(), g.dims.end(), [](int d) { return d >= 4; });
  };
  int any = 4, two = 4;
  while (!wide(any))
    ++any;
  while (!wide(two))
    two *= 2;
  double per = 1.0 / at;
  PeriodicAmbiguity out;
  out.wrapped = other.table;
  out.warning = fmt::format(
      "the training runs cannot tell whether the {}-D grid wraps: no side of their grids is over 2, where a "
      "periodic grid sends both faces of an axis to its one partner and a non-periodic grid its one face (or the "
      "code copies its sides of 1 without a message); the non-periodic reading is taken, {:.0f} messages and {:.3g} "
      "bytes a rank at {} processes, where the periodic one gives {:.0f} and {:.3g}; if the code's domain wraps "
      "(molecular dynamics and periodic boundaries do), fit with --grid dims_create:{}:periodic{}; a training run "
      "whose grid has a side of 4 or more ({} processes here, {} in powers of two) would show it",
      table.rule.dimensions, open.messages * per, open.bytes * per, at, wrapped.messages * per, wrapped.bytes * per,
      table.rule.dimensions, table.rule.transposed ? ":transposed" : "", any, two);
  return out;
}

void to_json(nlohmann::json& j, const GridClasses& t)
{
  nlohmann::json classes = nlohmann::json::array();
  for (const GridClass& k : t.classes) {
    nlohmann::json c{{"offset", k.offset}, {"name", k.name()}, {"messages_per_pair", k.messages_per_pair},
                     {"size", k.cut ? "cut" : "power"}, {"bytes", k.bytes}, {"exponent", k.exponent},
                     {"seen_at", k.seen_at}};
    if (!k.mix.empty()) {
      nlohmann::json mix = nlohmann::json::array();
      for (const SizeShare& s : k.mix)
        mix.push_back({{"relative_size", s.relative_size}, {"message_share", s.message_share}});
      c["size_mix"] = std::move(mix);
    }
    classes.push_back(std::move(c));
  }
  j = {{"rule", t.rule}, {"structure", t.describe()}, {"classes", classes}, {"silent", t.silent}};
  if (t.side_two_once)
    j["side_two_once"] = true;
  if (t.rest_hot_receive)
    j["rest_hot_receive_share"] = {{"form", curve_form_name(t.rest_hot_receive->form)},
                                   {"a", t.rest_hot_receive->a},
                                   {"b", t.rest_hot_receive->b}};
}

void from_json(const nlohmann::json& j, GridClasses& t)
{
  j.at("rule").get_to(t.rule);
  t.side_two_once = j.value("side_two_once", false);
  t.classes.clear();
  for (const auto& c : j.at("classes")) {
    GridClass k;
    c.at("offset").get_to(k.offset);
    c.at("messages_per_pair").get_to(k.messages_per_pair);
    k.cut = c.at("size").get<std::string>() == "cut";
    c.at("bytes").get_to(k.bytes);
    c.at("exponent").get_to(k.exponent);
    k.seen_at = c.value("seen_at", std::vector<int>{});
    if (c.contains("size_mix"))
      for (const auto& s : c.at("size_mix"))
        k.mix.push_back({s.at("relative_size").get<double>(), s.at("message_share").get<double>()});
    t.classes.push_back(k);
  }
  t.silent = j.value("silent", std::vector<std::vector<int>>{});
  t.rest_hot_receive.reset();
  if (j.contains("rest_hot_receive_share")) {
    const auto& c = j.at("rest_hot_receive_share");
    t.rest_hot_receive = Curve{curve_form_from_name(c.at("form").get<std::string>()), c.at("a").get<double>(),
                               c.at("b").get<double>()};
  }
}

} // namespace perfcast

#include "appmodel/TraceCompare.hpp"

#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "trace/TraceIndex.hpp"
#include "trace/TraceReader.hpp"
#include "trace/TraceWriter.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

bool same(const Action& a, const Action& b)
{
  if (a.type != b.type || a.nonblocking != b.nonblocking || a.partner != b.partner || a.partner2 != b.partner2 ||
      a.tag != b.tag || a.comm != b.comm || a.bytes != b.bytes || a.recv_bytes != b.recv_bytes ||
      a.send_counts != b.send_counts || a.recv_counts != b.recv_counts || a.color != b.color || a.key != b.key)
    return false;
  if (a.type == ActionType::Compute || a.type == ActionType::Sleep)
    return true; // measured computation differs from run to run: its error per rank is reported apart
  double scale = std::max(std::fabs(a.value), std::fabs(b.value));
  return std::fabs(a.value - b.value) <= 1e-5 * scale; // a trace line keeps 6 significant digits
}

bool same_structure(const Action& a, const Action& b)
{
  return a.type == b.type && a.nonblocking == b.nonblocking && a.partner == b.partner && a.partner2 == b.partner2 &&
         a.tag == b.tag && a.comm == b.comm;
}

bool sends(const Action& a)
{
  switch (a.type) {
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
  case ActionType::SendRecv: return true;
  default: return false;
  }
}

double relative(double actual, double expected)
{
  if (expected == 0)
    return actual == 0 ? 0 : 1;
  return std::fabs(actual - expected) / expected;
}

} // namespace

TraceComparison compare_traces(const std::string& expected_index, const std::string& actual_index)
{
  TraceIndex ei = read_trace_index(expected_index), ai = read_trace_index(actual_index);
  if (ei.ranks() != ai.ranks())
    throw Error(fmt::format("{} has {} ranks and {} has {}: compare traces of one count", expected_index, ei.ranks(),
                            actual_index, ai.ranks()));
  TraceSource es(ei), as(ai);
  return compare_ranks(
      ei.ranks(), [&](int r) -> std::unique_ptr<ActionStream> { return es.open_rank(r); },
      [&](int r) -> std::unique_ptr<ActionStream> { return as.open_rank(r); });
}

TraceComparison compare_ranks(int ranks, const RankOpener& expected, const RankOpener& actual, bool structure_only)
{
  TraceComparison c;
  c.ranks = ranks;
  std::uint64_t longer = 0;
  for (int r = 0; r < c.ranks; ++r) {
    throw_if_interrupted();
    auto er = expected(r), ar = actual(r);
    Action e, a;
    std::uint64_t ne = 0, na = 0, k = 0;
    double eb = 0, ab = 0, ec = 0, ac = 0;
    for (;;) {
      bool he = er->next(e), ha = ar->next(a);
      if (!he && !ha)
        break;
      ++k;
      if (he) {
        ++ne;
        eb += sends(e) ? static_cast<double>(e.bytes) : 0;
        ec += e.type == ActionType::Compute ? e.value : 0;
      }
      if (ha) {
        ++na;
        ab += sends(a) ? static_cast<double>(a.bytes) : 0;
        ac += a.type == ActionType::Compute ? a.value : 0;
      }
      if (he && ha && (structure_only ? same_structure(e, a) : same(e, a)))
        ++c.matching;
      else if (c.first_difference_rank < 0) {
        c.first_difference_rank = r;
        c.first_difference_action = k;
        c.first_difference = fmt::format("expected '{}', got '{}'", he ? format_action(e) : std::string("(end)"),
                                         ha ? format_action(a) : std::string("(end)"));
      }
    }
    c.actions_expected += ne;
    c.actions_actual += na;
    longer += std::max(ne, na);
    double be = relative(ab, eb), ce = relative(ac, ec);
    c.bytes_error_mean += be;
    c.compute_error_mean += ce;
    c.bytes_error_max = std::max(c.bytes_error_max, be);
    c.compute_error_max = std::max(c.compute_error_max, ce);
  }
  if (c.ranks > 0) {
    c.bytes_error_mean /= c.ranks;
    c.compute_error_mean /= c.ranks;
  }
  c.match_share = longer > 0 ? static_cast<double>(c.matching) / static_cast<double>(longer) : 1;
  return c;
}

nlohmann::json TraceComparison::to_json() const
{
  nlohmann::json j{{"ranks", ranks},
                   {"actions_expected", actions_expected},
                   {"actions_actual", actions_actual},
                   {"matching", matching},
                   {"match_share", match_share},
                   {"bytes_error_mean", bytes_error_mean},
                   {"bytes_error_max", bytes_error_max},
                   {"compute_error_mean", compute_error_mean},
                   {"compute_error_max", compute_error_max}};
  if (first_difference_rank >= 0)
    j["first_difference"] = {{"rank", first_difference_rank},
                             {"action", first_difference_action},
                             {"what", first_difference}};
  return j;
}

std::string TraceComparison::text() const
{
  std::string s = fmt::format("against the real trace: {:.2f}% of actions match exactly ({} of {} and {}); per "
                              "rank, bytes sent off by {:.2f}% on average ({:.2f}% at most), computation by {:.2f}% "
                              "({:.2f}%)\n",
                              100 * match_share, matching, actions_expected, actions_actual, 100 * bytes_error_mean,
                              100 * bytes_error_max, 100 * compute_error_mean, 100 * compute_error_max);
  if (first_difference_rank >= 0)
    s += fmt::format("first difference: rank {}, action {}: {}\n", first_difference_rank, first_difference_action,
                     first_difference);
  return s;
}

} // namespace perfcast

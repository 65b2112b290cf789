// The deadlock report: blocked ranks, their trace lines and the messages they wait for.
#include "sim/ReplayEngine.hpp"

#include "core/Error.hpp"
#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

namespace perfcast::replay {

std::string ReplayEngine::describe(int r) const
{
  const Rank& rank = ranks_[static_cast<std::size_t>(r)];
  std::string what = rank.has_action ? fmt::format("{}:{}: '{}'", rank.reader->path(), rank.action.line,
                                                   action_keyword(rank.action))
                                     : fmt::format("{}: end of trace (waiting for its pending requests)",
                                                   rank.reader->path());
  std::string on;
  for (std::uint32_t e = 0; e < execs_.size(); ++e) {
    const Exec& x = execs_[e];
    if (x.rank != r || x.status == Status::Done || (x.background && x.ops.empty()))
      continue;
    for (std::uint32_t id : x.waiting) {
      const Request& q = requests_[id];
      if (q.complete)
        continue;
      if (!on.empty())
        on += ", ";
      if (q.is_collective) {
        on += "a non-blocking collective";
        continue;
      }
      std::string src = q.src == kAnySource ? "any" : std::to_string(q.src);
      on += fmt::format("{} {}->{} tag {} {} bytes{}", q.is_send ? "send" : "recv", src, q.dst, q.tag, q.bytes,
                        q.ctx % 2 == 1 ? " (inside a collective)" : "");
    }
  }
  return fmt::format("rank {} blocked at {}{}", r, what, on.empty() ? "" : " on " + on);
}

void ReplayEngine::check_deadlock() const
{
  std::vector<int> stuck;
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r)
    if (execs_[static_cast<std::uint32_t>(r)].status != Status::Done)
      stuck.push_back(r);
  if (stuck.empty())
    return;
  std::string msg = fmt::format("deadlock at simulated time {:.6f} s: {} of {} ranks cannot progress", now_,
                                stuck.size(), ranks_.size());
  std::size_t shown = 0;
  for (int r : stuck) {
    if (++shown > 16) {
      msg += fmt::format("\n  ... and {} more", stuck.size() - 16);
      break;
    }
    msg += "\n  " + describe(r);
  }
  // messages sent but never received
  std::uint64_t unmatched = mailboxes_.unmatched_sends();
  if (unmatched)
    msg += fmt::format("\n  {} sent message(s) were never received", unmatched);
  // ranks blocked in different collectives of the world communicator: the
  // ranks' collectives do not pair up, which is what a trace without
  // communicators (SimGrid's time-independent format) gives for collectives
  // that ran on sub-communicators
  std::map<std::string, std::vector<int>> in_collective;
  for (int r : stuck) {
    const Rank& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.has_action && is_collective(rank.action.type) && rank.action.comm == 0)
      in_collective[action_keyword(rank.action)].push_back(r);
  }
  if (in_collective.size() > 1) {
    std::string kinds;
    for (const auto& [keyword, who] : in_collective)
      kinds += fmt::format("{}{} on {} rank(s) from {}", kinds.empty() ? "" : ", ", keyword, who.size(), who.front());
    msg += fmt::format("\n  the ranks wait in different collectives of MPI_COMM_WORLD ({}): their collectives do not "
                       "pair up. A trace that does not name communicators (SimGrid's time-independent format) "
                       "writes collectives on sub-communicators (MPI_Comm_split) as world ones; record such a code "
                       "with `perfcast trace`, which names them",
                       kinds);
  }
  throw Error(msg);
}
} // namespace perfcast::replay

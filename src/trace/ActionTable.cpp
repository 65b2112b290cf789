#include "trace/ActionTable.hpp"

#include "trace/ActionGrammar.hpp"

#include <fmt/format.h>
#include <initializer_list>
#include <string>

namespace perfcast {

namespace action_table {

namespace {

constexpr Grammar make(std::initializer_list<ArgSpec> args, int required, bool all_or_none = false, bool no_extra = false)
{
  Grammar g;
  for (const ArgSpec& a : args) {
    g.args[g.size++] = a;
    g.has_send_type = g.has_send_type || a.into == Into::SendType;
    g.has_recv_type = g.has_recv_type || a.into == Into::RecvType;
  }
  g.required = static_cast<std::uint8_t>(required);
  g.all_or_none = all_or_none;
  g.no_extra = no_extra;
  g.quick = !all_or_none && !no_extra;
  for (const ArgSpec& a : args)
    g.quick = g.quick && a.kind != Arg::Counts && a.kind != Arg::Word;
  return g;
}

constexpr ArgSpec kDatatype{Arg::Datatype, Into::SendType, "datatype"};
constexpr ArgSpec kSendType{Arg::Datatype, Into::SendType, "sdtype"};
constexpr ArgSpec kRecvType{Arg::Datatype, Into::RecvType, "rdtype"};
constexpr ArgSpec kRoot{Arg::Peer, Into::Partner, "root"};
constexpr ArgSpec kCompFlops{Arg::Flops, Into::Value, "comp_flops"};

constexpr Grammar grammar_for(ActionType type)
{
  using T = ActionType;
  switch (type) {
  case T::Send:
  case T::Isend:
  case T::Ssend:
  case T::Issend:
    return make({{Arg::PeerOrLast, Into::Partner, "partner"}, {Arg::SendTag, Into::Tag, "tag"},
                 {Arg::Count, Into::SendCount, "count"}, kDatatype}, 3);
  case T::Recv:
  case T::Irecv:
    return make({{Arg::PeerOrAny, Into::Partner, "partner"}, {Arg::RecvTag, Into::Tag, "tag"},
                 {Arg::Count, Into::SendCount, "count"}, kDatatype}, 3);
  case T::Wait:
  case T::Test:
  case T::Cancel:
    return make({{Arg::PeerOrAny, Into::Partner, "src"}, {Arg::PeerOrAny, Into::Partner2, "dst"},
                 {Arg::AnyTag, Into::Tag, "tag"}}, 3);
  case T::Waitall:
  case T::Testall:
  case T::Waitany:
  case T::Waitsome:
    return make({{Arg::Count, Into::SendCount, "count"}}, 0);
  case T::SendRecv:
    return make({{Arg::Count, Into::SendCount, "sendcount"}, {Arg::Peer, Into::Partner, "dst"},
                 {Arg::Count, Into::RecvCount, "recvcount"}, {Arg::PeerOrAny, Into::Partner2, "src"}, kSendType,
                 kRecvType}, 4);
  case T::Bcast:
    return make({{Arg::Count, Into::SendCount, "count"}, kRoot, kDatatype}, 1);
  case T::Reduce:
    return make({{Arg::Count, Into::SendCount, "count"}, kCompFlops, kRoot, kDatatype}, 2);
  case T::Allreduce:
  case T::Scan:
  case T::Exscan:
    return make({{Arg::Count, Into::SendCount, "count"}, kCompFlops, kDatatype}, 2);
  case T::Alltoall:
  case T::Allgather:
    return make({{Arg::Count, Into::SendCount, "sendcount"}, {Arg::Count, Into::RecvCount, "recvcount"}, kSendType,
                 kRecvType}, 2);
  case T::Gather:
  case T::Scatter:
    return make({{Arg::Count, Into::SendCount, "sendcount"}, {Arg::Count, Into::RecvCount, "recvcount"}, kRoot,
                 kSendType, kRecvType}, 2);
  case T::Gatherv:
    return make({{Arg::Count, Into::SendCount, "sendcount"}, {Arg::Counts, Into::RecvCounts, "recvcount"}, kRoot,
                 kSendType, kRecvType}, 2);
  case T::Allgatherv:
    return make({{Arg::Count, Into::SendCount, "sendcount"}, {Arg::Counts, Into::RecvCounts, "recvcount"},
                 kSendType, kRecvType}, 2);
  case T::Scatterv:
    return make({{Arg::Counts, Into::SendCounts, "sendcount"}, {Arg::Count, Into::RecvCount, "recvcount"}, kRoot,
                 kSendType, kRecvType}, 2);
  case T::Alltoallv: // the sums are SimGrid's buffer sizes; the replay uses the counts
    return make({{Arg::Count, Into::None, "sendsum"}, {Arg::Counts, Into::SendCounts, "sendcount"},
                 {Arg::Count, Into::None, "recvsum"}, {Arg::Counts, Into::RecvCounts, "recvcount"}, kSendType,
                 kRecvType}, 4);
  case T::ReduceScatter:
    return make({{Arg::Counts, Into::RecvCounts, "recvcount"}, kCompFlops, {Arg::Datatype, Into::RecvType, "datatype"}},
                2);
  case T::Compute:
    return make({{Arg::Flops, Into::Value, "flops"}}, 1);
  case T::Sleep:
    return make({{Arg::Seconds, Into::Value, "seconds"}}, 1);
  case T::Migrate:
    return make({{Arg::Count, Into::SendCount, "bytes"}}, 1);
  case T::LoopBegin:
    return make({{Arg::SendTag, Into::Tag, "stop_tag"}}, 1);
  case T::Init: // an argument makes double the default datatype
    return make({{Arg::Word, Into::None, "datatype_mode"}}, 0, false, true);
  case T::CommSplit: // SimGrid writes it without arguments (no effect)
    return make({{Arg::Handle, Into::Tag, "NEW"}, {Arg::Int32, Into::Color, "COLOR"}, {Arg::Int32, Into::Key, "KEY"}},
                0, true, true);
  case T::CommDup:
    return make({{Arg::Handle, Into::Tag, "NEW"}}, 0, true, true);
  default:
    return make({}, 0);
  }
}

} // namespace

constexpr std::array<Grammar, kActionTypeCount> kGrammars = [] {
  std::array<Grammar, kActionTypeCount> t{};
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] = grammar_for(static_cast<ActionType>(i));
  return t;
}();


} // namespace action_table

std::string action_usage(ActionType type)
{
  using namespace action_table;
  const Grammar& g = grammar_of(type);
  std::string usage, closing;
  for (std::size_t k = 0; k < g.size; ++k) {
    const ArgSpec& a = g.args[k];
    if (!usage.empty())
      usage += ' ';
    if (k >= g.required && !g.all_or_none) {
      usage += '[';
      closing += ']';
    }
    usage += a.kind == Arg::Counts ? fmt::format("{0}_0..{0}_{{P-1}}", a.name) : std::string(a.name);
  }
  usage += closing;
  if (g.all_or_none)
    usage += " (or no argument)";
  return usage.empty() ? "no argument" : usage;
}

} // namespace perfcast

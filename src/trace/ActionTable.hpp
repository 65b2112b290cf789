#pragma once
// The table of each action's arguments (internal to the trace reader): what
// kind each argument is, where its value goes, and which are required. The
// parser in ActionGrammar.cpp and the usage in messages both read it.
#include "trace/Action.hpp"

#include <array>
#include <cstdint>

namespace perfcast::action_table {

// What an argument is, which decides how it is read and checked.
enum class Arg : std::uint8_t {
  Peer,       // a rank of the world
  PeerOrAny,  // a rank or a wildcard source
  PeerOrLast, // a rank or '@' (the source of the latest wildcard receive)
  SendTag,    // 0..2^31-1
  RecvTag,    // a send tag or a wildcard tag
  AnyTag,     // any 32-bit tag (wait/test use -2 for collective requests)
  Count,      // a non-negative integer
  Counts,     // one non-negative integer per rank of the world
  Flops,      // a non-negative number up to kMaxActionValue
  Seconds,    // as Flops
  Datatype,   // a SimGrid datatype id
  Handle,     // a new communicator handle, 1..2^31-1
  Int32,      // any 32-bit integer
  Word,       // anything (init's argument only switches the default datatype)
};

// Where an argument's value goes.
enum class Into : std::uint8_t {
  None, Partner, Partner2, Tag, Value, Color, Key,
  SendCount,  // bytes = SendCount x SendType
  RecvCount,  // recv_bytes = RecvCount x RecvType
  SendCounts, // send_counts = each x SendType
  RecvCounts, // recv_counts = each x RecvType
  SendType, RecvType,
};

/// One argument of an action.
struct ArgSpec {
  Arg kind;
  Into into;
  const char* name;
};

/// The arguments of one action type.
struct Grammar {
  std::array<ArgSpec, 6> args{};
  std::uint8_t size = 0;
  std::uint8_t required = 0; // the first `required` arguments must be present
  bool all_or_none = false;  // no argument, or every one (comm_split, comm_dup)
  bool no_extra = false;     // more arguments are an error; others ignore them, as SimGrid does
  // an absent datatype is the default one; counts without a datatype are bytes
  bool has_send_type = false, has_recv_type = false;
  // every argument is one integer (no per-rank counts, no free word) and the
  // count of arguments is free: lines of plain digits can take the quick path
  bool quick = false;
};

/// Every action type's arguments, by type.
extern const std::array<Grammar, kActionTypeCount> kGrammars;

/// The arguments of an action type.
inline const Grammar& grammar_of(ActionType type) { return kGrammars[static_cast<std::size_t>(type)]; }

} // namespace perfcast::action_table

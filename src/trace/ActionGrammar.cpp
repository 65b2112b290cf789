#include "trace/ActionGrammar.hpp"

#include "trace/ActionKeywords.hpp"
#include "trace/ActionTable.hpp"
#include "trace/TraceTokens.hpp"

#include <fmt/format.h>
#include <limits>
#include <tuple>

namespace perfcast {

namespace {

using namespace action_table;

// SMPI writes a wildcard source as MPI_UNDEFINED (-333; the rank of
// MPI_ANY_SOURCE in the group) or -555, and a wildcard tag as its MPI_ANY_TAG (-444).
constexpr long long kSimgridAnySource = -333;
constexpr long long kSmpiAnySource = -555;
constexpr long long kSmpiAnyTag = -444;
constexpr long long kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr long long kMinInt32 = std::numeric_limits<std::int32_t>::min();

// Reads the arguments of one line, field by field, with its action's grammar.
class ArgumentReader {
public:
  ArgumentReader(std::string_view keyword, std::string_view arguments, int world_size, int default_datatype,
                 std::string& error)
      : keyword_(keyword), arguments_(arguments), fields_(arguments), world_(world_size),
        default_datatype_(default_datatype), error_(error)
  {
  }

  bool read(const Grammar& g, Action& a)
  {
    grammar_ = &g;
    type_ = a.type;
    std::string_view f;
    for (std::size_t k = 0; k < g.size; ++k) {
      const ArgSpec& spec = g.args[k];
      if (spec.kind == Arg::Counts) {
        if (!read_counts(spec, a))
          return false;
        continue;
      }
      if (!fields_.next_number(f, value_, digits_)) {
        if (k < g.required || (g.all_or_none && at_ > 0))
          return fail_count();
        break; // the optional arguments from here on are absent
      }
      ++at_;
      if (!read_argument(spec, f, a))
        return false;
    }
    if (g.no_extra && fields_.next(f))
      return fail_count();
    return scale(g, a);
  }

private:
  bool fail(std::string what)
  {
    error_ = std::move(what);
    return false;
  }
  // Too few or too many arguments, counted over the whole line.
  bool fail_count()
  {
    std::size_t given = TraceFields(arguments_).count();
    std::string usage = action_usage(type_);
    if (grammar_->no_extra && given > grammar_->size)
      return fail(fmt::format("'{}' takes {} (got {} arguments)", keyword_, usage, given));
    return fail(fmt::format("'{}' needs {} (got {} argument{})", keyword_, usage, given, given == 1 ? "" : "s"));
  }
  // A line with too few or too many arguments says so first, whatever else is wrong.
  bool miscounted() const
  {
    std::size_t given = TraceFields(arguments_).count(), needed = 0, all = 0;
    for (std::size_t k = 0; k < grammar_->size; ++k) {
      std::size_t width = grammar_->args[k].kind == Arg::Counts ? static_cast<std::size_t>(world_) : 1;
      all += width;
      needed += k < grammar_->required ? width : 0;
    }
    if (grammar_->all_or_none && given > 0)
      needed = all;
    return given < needed || (grammar_->no_extra && given > all);
  }
  bool fail_arg(const ArgSpec& spec, std::string_view field, std::string_view what)
  {
    if (miscounted())
      return fail_count();
    return fail(fmt::format("'{}' argument {} ({}): {}, got '{}'", keyword_, at_, spec.name, what, field));
  }
  bool integer(const ArgSpec& spec, std::string_view f, long long& v)
  {
    if (digits_) { // the common case, read with the field
      v = value_;
      return true;
    }
    return parse_trace_integer(f, v) || fail_arg(spec, f, "expected an integer");
  }
  bool count(const ArgSpec& spec, std::string_view f, long long& v)
  {
    if (!integer(spec, f, v))
      return false;
    if (v < 0)
      return fail_arg(spec, f, "expected a non-negative count");
    return true;
  }
  bool rank(const ArgSpec& spec, std::string_view f, long long& v)
  {
    if (!integer(spec, f, v))
      return false;
    if (v < 0 || v >= world_) {
      if (miscounted())
        return fail_count();
      return fail(fmt::format("'{}' argument {} ({}): rank {} is outside 0..{}", keyword_, at_, spec.name, v,
                              world_ - 1));
    }
    return true;
  }
  bool read_counts(const ArgSpec& spec, Action& a)
  {
    auto& out = spec.into == Into::SendCounts ? a.send_counts : a.recv_counts;
    out.resize(static_cast<std::size_t>(world_));
    counts_at_[spec.into == Into::SendCounts ? 0 : 1] = at_ + 1;
    std::string_view f;
    long long v = 0;
    for (std::size_t r = 0; r < out.size(); ++r) {
      if (!fields_.next_number(f, value_, digits_))
        return fail_count();
      ++at_;
      if (!count(spec, f, v))
        return false;
      out[r] = static_cast<std::uint64_t>(v);
    }
    return true;
  }

  bool read_argument(const ArgSpec& spec, std::string_view s, Action& a)
  {
    long long v = 0;
    double d = 0;
    switch (spec.kind) {
    case Arg::PeerOrLast:
      if (s == "@")
        return store(spec.into, kLastSource, a);
      [[fallthrough]];
    case Arg::Peer:
      return rank(spec, s, v) && store(spec.into, v, a);
    case Arg::PeerOrAny:
      if (!integer(spec, s, v))
        return false;
      if (v == kSimgridAnySource || v == kSmpiAnySource || v == kAnySource)
        return store(spec.into, kAnySource, a);
      return rank(spec, s, v) && store(spec.into, v, a);
    case Arg::RecvTag:
    case Arg::SendTag: {
      bool recv = spec.kind == Arg::RecvTag;
      if (!integer(spec, s, v))
        return false;
      if (recv && v == kSmpiAnyTag)
        v = kAnyTag;
      if (v < (recv ? kAnyTag : 0) || v > kMaxInt32)
        return fail_arg(spec, s, fmt::format("expected a tag from {} to {}", recv ? kAnyTag : 0, kMaxInt32));
      return store(spec.into, v, a);
    }
    case Arg::AnyTag:
    case Arg::Int32:
      if (!integer(spec, s, v))
        return false;
      if (v < kMinInt32 || v > kMaxInt32)
        return fail_arg(spec, s, "expected a 32-bit integer");
      return store(spec.into, v, a);
    case Arg::Handle:
      if (!integer(spec, s, v))
        return false;
      if (v <= 0 || v > kMaxInt32)
        return fail_arg(spec, s, fmt::format("expected a communicator handle from 1 to {}", kMaxInt32));
      return store(spec.into, v, a);
    case Arg::Count:
      return count(spec, s, v) && store(spec.into, v, a);
    case Arg::Counts: // read_counts
      return true;
    case Arg::Flops:
    case Arg::Seconds:
      if (digits_ && s.size() <= 15) // exact in a double
        d = static_cast<double>(value_);
      else if (!parse_trace_number(s, d) || d < 0)
        return fail_arg(spec, s, "expected a non-negative number");
      if (d > kMaxActionValue)
        return fail_arg(spec, s, fmt::format("expected at most {:g}", kMaxActionValue));
      a.value = d;
      return true;
    case Arg::Datatype: {
      if (!integer(spec, s, v))
        return false;
      int size = v >= 0 && v <= kMaxInt32 ? datatype_size(static_cast<int>(v)) : -1;
      if (v == -1)
        return fail(fmt::format("'{}': datatype -1, a derived datatype whose size SimGrid's time-independent trace "
                                "does not record (SimGrid replays it as 0 bytes); record the program with perfcast "
                                "trace, which writes each message's bytes",
                                keyword_));
      if (size < 0)
        return fail(fmt::format("'{}': unknown datatype id {} (expected a SimGrid predefined id 0..54)", keyword_, s));
      (spec.into == Into::SendType ? send_size_ : recv_size_) = size;
      return true;
    }
    case Arg::Word:
      return true;
    }
    return true;
  }

  bool store(Into into, long long v, Action& a)
  {
    switch (into) {
    case Into::Partner: a.partner = static_cast<std::int32_t>(v); break;
    case Into::Partner2: a.partner2 = static_cast<std::int32_t>(v); break;
    case Into::Tag: a.tag = static_cast<std::int32_t>(v); break;
    case Into::Color: a.color = static_cast<std::int32_t>(v); break;
    case Into::Key: a.key = static_cast<std::int32_t>(v); break;
    case Into::SendCount: send_count_ = v; break;
    case Into::RecvCount: recv_count_ = v; break;
    default: break;
    }
    return true;
  }

  // counts times datatype sizes, each product and each v-collective's sum
  // checked against kMaxMessageBytes
  bool scale(const Grammar& g, Action& a)
  {
    int default_size = g.has_send_type || g.has_recv_type ? datatype_size(default_datatype_) : 1;
    auto send_size = static_cast<std::uint64_t>(send_size_ ? send_size_ : g.has_send_type ? default_size : 1);
    auto recv_size = static_cast<std::uint64_t>(recv_size_ ? recv_size_ : g.has_recv_type ? default_size : 1);
    return bytes(send_count_, send_size, "count", a.bytes) && bytes(recv_count_, recv_size, "recvcount", a.recv_bytes) &&
           (a.send_counts.empty() || scale_counts(a.send_counts, send_size, counts_at_[0])) &&
           (a.recv_counts.empty() || scale_counts(a.recv_counts, recv_size, counts_at_[1]));
  }
  bool bytes(long long count, std::uint64_t size, const char* what, std::uint64_t& out)
  {
    auto c = static_cast<std::uint64_t>(count);
    if (c > kMaxMessageBytes / size)
      return fail(fmt::format("'{}': {} {} of {} byte{} is more than {} bytes (expected at most 2^43 bytes per "
                              "message)",
                              keyword_, what, count, size, size == 1 ? "" : "s", kMaxMessageBytes));
    out = c * size;
    return true;
  }
  bool scale_counts(std::vector<std::uint64_t>& counts, std::uint64_t size, std::size_t at)
  {
    std::uint64_t sum = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      if (counts[r] > (kMaxMessageBytes - sum) / size)
        return fail(fmt::format("'{}' arguments {}..{}: the counts up to rank {} times {} byte{} are more than {} "
                                "bytes (expected at most 2^43 bytes in all)",
                                keyword_, at, at - 1 + counts.size(), r, size, size == 1 ? "" : "s",
                                kMaxMessageBytes));
      counts[r] *= size;
      sum += counts[r];
    }
    return true;
  }

  std::string_view keyword_, arguments_;
  TraceFields fields_;
  std::size_t at_ = 0; // arguments read, so the number of the last one
  long long value_ = 0; // the last field's digits, whole when digits_
  bool digits_ = false;
  const Grammar* grammar_ = nullptr;
  ActionType type_ = ActionType::Init;
  int world_;
  int default_datatype_;
  std::string& error_;
  long long send_count_ = 0, recv_count_ = 0;
  int send_size_ = 0, recv_size_ = 0; // 0: not given
  std::size_t counts_at_[2] = {0, 0};
};

// Sets what every action has and zeroes the arguments an action may leave unset.
void start_action(Action& a, ActionType type, bool nonblocking, long long rank)
{
  a.type = type;
  a.nonblocking = nonblocking;
  a.rank = static_cast<std::int32_t>(rank);
  a.comm = a.color = a.key = 0;
  a.partner = a.partner2 = a.tag = 0;
  a.value = 0;
  a.bytes = a.recv_bytes = 0;
  a.send_counts.clear();
  a.recv_counts.clear();
}

bool has_prefix(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The last field of some arguments, and the arguments without it.
std::string_view last_field(std::string_view arguments, std::string_view& before)
{
  std::size_t end = arguments.size();
  while (end > 0 && is_trace_blank(arguments[end - 1]))
    --end;
  std::size_t begin = end;
  while (begin > 0 && !is_trace_blank(arguments[begin - 1]))
    --begin;
  before = arguments.substr(0, begin);
  return arguments.substr(begin, end - begin);
}

// perfcast extensions, last on the line: "src=K" after a receive from any
// source is the source it matched when traced (informational), and "comm=N"
// names the communicator. Removes them from the arguments.
bool strip_extensions(std::string_view keyword, std::string_view& arguments, Action& out, std::string& error)
{
  std::string_view before;
  std::string_view last = last_field(arguments, before);
  if (has_prefix(last, "src="))
    last = last_field(arguments = before, before);
  if (has_prefix(last, "comm=")) {
    long long c = -1;
    if (!parse_trace_integer(last.substr(5), c) || c < 0 || c > kMaxInt32) {
      error = fmt::format("'{}': expected comm=N with N a communicator handle, got '{}'", keyword, last);
      return false;
    }
    out.comm = static_cast<std::int32_t>(c);
    last = last_field(arguments = before, before);
    if (has_prefix(last, "src="))
      arguments = before;
  }
  return true;
}

} // namespace

long long line_rank(std::string_view line)
{
  std::size_t a = 0;
  while (a < line.size() && (line[a] == ' ' || line[a] == '\t' || line[a] == '\r'))
    ++a;
  if (a == line.size() || line[a] == '#')
    return -1;
  std::size_t e = a;
  long long rank = 0;
  // the common case: digits then a blank
  while (e < line.size() && line[e] >= '0' && line[e] <= '9' && rank < kMaxRanks)
    rank = rank * 10 + (line[e++] - '0');
  if (e > a && rank < kMaxRanks && (e == line.size() || line[e] == ' ' || line[e] == '\t' || line[e] == '\r'))
    return rank;
  while (e < line.size() && line[e] != ' ' && line[e] != '\t' && line[e] != '\r')
    ++e;
  if (!parse_trace_integer(line.substr(a, e - a), rank) || rank < 0 || rank >= kMaxRanks)
    return -2;
  return rank;
}

bool parse_trace_line(std::string_view line, int world_size, int& default_datatype, Action& out, std::string& error)
{
  if (parse_trace_line_quick(line, world_size, default_datatype, out)) {
    error.clear();
    return true;
  }
  return parse_trace_line_full(line, world_size, default_datatype, out, error);
}

// The quick path: a line whose arguments are plain digits, read with the same
// table in one pass and without messages. Anything else (signs, decimals, '@',
// extensions, per-rank counts, init and communicator actions, extra arguments,
// a value beyond a limit) is left to the reader above, which also explains errors.
bool parse_trace_line_quick(std::string_view line, int world_size, int default_datatype, Action& out)
{
  TraceFields fields(line);
  std::string_view field, keyword_field;
  long long rank = 0;
  bool digits = false;
  if (!fields.next_number(field, rank, digits) || !digits || rank >= world_size || !fields.next(keyword_field))
    return false;
  const Keyword* keyword = find_keyword(keyword_field);
  if (!keyword || !grammar_of(keyword->type).quick)
    return false;
  const Grammar& g = grammar_of(keyword->type);
  long long values[std::tuple_size_v<decltype(g.args)>];
  std::size_t n = 0;
  for (long long v = 0; fields.next_number(field, v, digits); values[n++] = v)
    if (!digits || field.size() > 15 || n == g.size) // 15 digits: exact as flops, below every limit
      return false;
  if (n < g.required)
    return false;
  start_action(out, keyword->type, keyword->nonblocking, rank);
  long long count[2] = {0, 0};
  int size[2] = {1, 1};
  if (g.has_send_type || g.has_recv_type)
    size[0] = size[1] = datatype_size(default_datatype);
  for (std::size_t k = 0; k < n; ++k) {
    const ArgSpec& spec = g.args[k];
    long long v = values[k];
    switch (spec.kind) {
    case Arg::Peer:
    case Arg::PeerOrAny:
    case Arg::PeerOrLast:
      if (v >= world_size)
        return false;
      break;
    case Arg::Flops:
    case Arg::Seconds:
      out.value = static_cast<double>(v);
      continue;
    case Arg::Datatype:
      if (v > 54)
        return false;
      size[spec.into == Into::SendType ? 0 : 1] = datatype_size(static_cast<int>(v));
      continue;
    case Arg::Count:
      break;
    default: // tags, handles, 32-bit integers
      if (v > kMaxInt32 || (spec.kind == Arg::Handle && v == 0))
        return false;
    }
    switch (spec.into) {
    case Into::Partner: out.partner = static_cast<std::int32_t>(v); break;
    case Into::Partner2: out.partner2 = static_cast<std::int32_t>(v); break;
    case Into::Tag: out.tag = static_cast<std::int32_t>(v); break;
    case Into::Color: out.color = static_cast<std::int32_t>(v); break;
    case Into::Key: out.key = static_cast<std::int32_t>(v); break;
    case Into::SendCount: count[0] = v; break;
    case Into::RecvCount: count[1] = v; break;
    default: break;
    }
  }
  for (int side : {0, 1})
    if (static_cast<std::uint64_t>(count[side]) > kMaxMessageBytes / static_cast<std::uint64_t>(size[side]))
      return false;
  out.bytes = static_cast<std::uint64_t>(count[0]) * static_cast<std::uint64_t>(size[0]);
  out.recv_bytes = static_cast<std::uint64_t>(count[1]) * static_cast<std::uint64_t>(size[1]);
  return true;
}

bool parse_trace_line_full(std::string_view line, int world_size, int& default_datatype, Action& out,
                           std::string& error)
{
  TraceFields fields(line);
  std::string_view rank_field, keyword_field;
  if (!fields.next(rank_field) || rank_field[0] == '#')
    return false;
  error.clear();
  if (!fields.next(keyword_field)) {
    error = fmt::format("expected '<rank> <action> [arguments]', got '{}'", line);
    return true;
  }
  long long rank = 0;
  if (!(parse_trace_digits(rank_field, rank) || parse_trace_integer(rank_field, rank)) || rank < 0 ||
      rank >= world_size) {
    error = fmt::format("expected a rank in 0..{} as first field, got '{}'", world_size - 1, rank_field);
    return true;
  }
  const Keyword* keyword = find_keyword(keyword_field);
  if (!keyword) {
    error = fmt::format("unknown action '{}' (expected one of {})", keyword_field, expected_keywords());
    return true;
  }
  start_action(out, keyword->type, keyword->nonblocking, rank);
  std::string_view arguments = fields.rest();
  if (arguments.find('=') != std::string_view::npos && !strip_extensions(keyword_field, arguments, out, error))
    return true;
  if (ArgumentReader(keyword_field, arguments, world_size, default_datatype, error)
          .read(grammar_of(keyword->type), out) &&
      keyword->type == ActionType::Init)
    default_datatype = TraceFields(arguments).count() > 0 ? 0 : 6; // double after "init 1", else byte
  return true;
}

} // namespace perfcast

#include "trace/TraceReader.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unordered_map>

namespace perfcast {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBufferSize = 1 << 16;
// SMPI writes a wildcard source as MPI_UNDEFINED (-333; the rank of
// MPI_ANY_SOURCE in the group) and a wildcard tag as its MPI_ANY_TAG (-444).
constexpr int kSimgridAnySource = -333;
constexpr int kSmpiAnySource = -555;
constexpr int kSmpiAnyTag = -444;

bool to_int(std::string_view s, long long& v)
{
  // the common case, a short run of digits, without library calls
  if (!s.empty() && s.size() <= 18) {
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i < s.size()) {
      long long x = 0;
      std::size_t j = i;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9')
        x = x * 10 + (s[j++] - '0');
      if (j == s.size()) {
        v = i ? -x : x;
        return true;
      }
    }
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size())
    return true;
  // SimGrid parses counts as doubles and truncates them ("64.0" is 64)
  double d = 0;
  auto [p2, ec2] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec2 != std::errc() || p2 != s.data() + s.size() || !std::isfinite(d) || std::fabs(d) > 9e18)
    return false;
  v = static_cast<long long>(std::trunc(d));
  return true;
}

bool to_double(std::string_view s, double& v)
{
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(v);
}

struct Keyword {
  ActionType type;
  bool nonblocking;
};

// Sorted (keyword, meaning) pairs, searched by string_view without allocating.
const std::vector<std::pair<std::string, Keyword>>& keywords()
{
  static const std::vector<std::pair<std::string, Keyword>> table = [] {
    std::vector<std::pair<std::string, Keyword>> t;
    for (int i = 0; i <= static_cast<int>(ActionType::Cancel); ++i) {
      auto type = static_cast<ActionType>(i);
      t.emplace_back(std::string(action_name(type)), Keyword{type, false});
      if (is_collective(type)) {
        std::string name(1, 'i');
        name.append(action_name(type));
        t.emplace_back(std::move(name), Keyword{type, true});
      }
    }
    std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return t;
  }();
  return table;
}

// An open-addressing table over the keywords: a hash of the length and three
// letters, then a comparison of the candidate; a couple of probes per line.
class KeywordTable {
public:
  KeywordTable()
  {
    for (const auto& entry : keywords()) {
      std::size_t i = slot(entry.first);
      while (slots_[i].keyword)
        i = (i + 1) & (kSlots - 1);
      slots_[i].name = entry.first;
      slots_[i].keyword = &entry.second;
    }
  }
  const Keyword* find(std::string_view word) const
  {
    if (word.empty())
      return nullptr;
    for (std::size_t i = slot(word);; i = (i + 1) & (kSlots - 1)) {
      const Slot& s = slots_[i];
      if (!s.keyword)
        return nullptr;
      if (s.name.size() == word.size() && std::memcmp(s.name.data(), word.data(), word.size()) == 0)
        return s.keyword;
    }
  }

private:
  static constexpr std::size_t kSlots = 512; // over four times the keywords: short probe runs
  struct Slot {
    std::string_view name;
    const Keyword* keyword = nullptr;
  };
  static std::size_t slot(std::string_view w)
  {
    std::size_t n = w.size();
    auto c = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(w[i])); };
    return (n * 131 + c(0) * 31 + c(n / 2) * 7 + c(n - 1)) & (kSlots - 1);
  }
  Slot slots_[kSlots];
};

const Keyword* find_keyword(std::string_view word)
{
  static const KeywordTable table;
  return table.find(word);
}

std::string expected_keywords()
{
  std::string s;
  for (int i = 0; i <= static_cast<int>(ActionType::Cancel); ++i) {
    if (!s.empty())
      s += ", ";
    s += action_name(static_cast<ActionType>(i));
  }
  return s + ", and i<collective> forms (ibcast, iallreduce, ...)";
}

class LineParser {
public:
  LineParser(const std::vector<std::string_view>& tokens, int world_size, int& default_datatype, std::string& error)
      : t_(tokens), world_(world_size), default_dt_(default_datatype), error_(error)
  {
  }

  bool need(std::size_t args, const char* usage)
  {
    if (t_.size() < 2 + args) {
      error_ = fmt::format("'{}' needs {} (got {} argument{})", t_[1], usage, t_.size() - 2, t_.size() == 3 ? "" : "s");
      return false;
    }
    return true;
  }
  bool at_most(std::size_t args, const char* usage)
  {
    if (t_.size() > 2 + args) {
      error_ = fmt::format("'{}' takes {} (got {} arguments)", t_[1], usage, t_.size() - 2);
      return false;
    }
    return true;
  }
  bool integer(std::size_t i, long long& v, const char* what)
  {
    if (!to_int(t_[i], v)) {
      error_ = fmt::format("'{}' argument {} ({}): expected an integer, got '{}'", t_[1], i - 1, what, t_[i]);
      return false;
    }
    return true;
  }
  bool count(std::size_t i, long long& v, const char* what)
  {
    if (!integer(i, v, what))
      return false;
    if (v < 0) {
      error_ = fmt::format("'{}' argument {} ({}): expected a non-negative count, got '{}'", t_[1], i - 1, what, t_[i]);
      return false;
    }
    return true;
  }
  bool rank(std::size_t i, std::int32_t& v, const char* what, bool any_ok)
  {
    long long x = 0;
    if (!integer(i, x, what))
      return false;
    if (any_ok && (x == kSimgridAnySource || x == kSmpiAnySource || x == kAnySource)) {
      v = kAnySource;
      return true;
    }
    if (x < 0 || x >= world_) {
      error_ = fmt::format("'{}' argument {} ({}): rank {} is outside 0..{}", t_[1], i - 1, what, x, world_ - 1);
      return false;
    }
    v = static_cast<std::int32_t>(x);
    return true;
  }
  bool number(std::size_t i, double& v, const char* what)
  {
    if (!to_double(t_[i], v) || v < 0) {
      error_ = fmt::format("'{}' argument {} ({}): expected a non-negative number, got '{}'", t_[1], i - 1, what, t_[i]);
      return false;
    }
    return true;
  }
  // datatype at position i if present; bytes = count * size
  bool datatype(std::size_t i, int& size)
  {
    int id = default_dt_;
    if (i < t_.size()) {
      long long x = 0;
      if (!integer(i, x, "datatype"))
        return false;
      id = static_cast<int>(x);
    }
    size = datatype_size(id);
    if (size < 0) {
      error_ = fmt::format("'{}': unknown datatype id {} (expected a SimGrid predefined id 0..54)", t_[1], id);
      return false;
    }
    return true;
  }
  bool counts(std::size_t first, std::vector<std::uint64_t>& out, const char* what)
  {
    out.resize(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r) {
      long long c = 0;
      if (!count(first + static_cast<std::size_t>(r), c, what))
        return false;
      out[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(c);
    }
    return true;
  }
  static void scale(std::vector<std::uint64_t>& v, int size)
  {
    for (auto& x : v)
      x *= static_cast<std::uint64_t>(size);
  }

  bool parse(Action& a)
  {
    const std::size_t W = static_cast<std::size_t>(world_);
    long long c1 = 0, c2 = 0;
    int s1 = 1, s2 = 1;
    switch (a.type) {
    case ActionType::Init:
      if (!at_most(1, "at most one argument"))
        return false;
      default_dt_ = t_.size() > 2 ? 0 : 6;
      return true;
    case ActionType::CommSplit:
    case ActionType::CommDup: {
      // SimGrid writes these without arguments (no effect); perfcast's form
      // names the new communicator: comm_split NEW COLOR KEY, comm_dup NEW
      std::size_t args = a.type == ActionType::CommSplit ? 3 : 1;
      if (t_.size() == 2)
        return true;
      long long handle = 0, color = 0, key = 0;
      if (!need(args, a.type == ActionType::CommSplit ? "NEW COLOR KEY (or no argument)" : "NEW (or no argument)") ||
          !at_most(args, a.type == ActionType::CommSplit ? "NEW COLOR KEY" : "NEW") || !integer(2, handle, "new communicator"))
        return false;
      if (handle <= 0 || handle > 0x7fffffff) {
        error_ = fmt::format("'{}': the new communicator handle must be a positive integer, got '{}'", t_[1], t_[2]);
        return false;
      }
      if (a.type == ActionType::CommSplit) {
        if (!integer(3, color, "color") || !integer(4, key, "key"))
          return false;
        if (std::llabs(color) > 0x7fffffff || std::llabs(key) > 0x7fffffff) {
          error_ = fmt::format("'comm_split': color and key must fit in 32 bits");
          return false;
        }
      }
      a.tag = static_cast<std::int32_t>(handle);
      a.color = static_cast<std::int32_t>(color);
      a.key = static_cast<std::int32_t>(key);
      return true;
    }
    case ActionType::Finalize:
    case ActionType::Barrier:
    case ActionType::CommSize:
    case ActionType::IterationIn:
    case ActionType::IterationOut:
    case ActionType::Location:
    case ActionType::LoopEnd:
      return true;
    case ActionType::LoopBegin: {
      long long tag = 0;
      if (!need(1, "a stop tag") || !integer(2, tag, "stop tag"))
        return false;
      if (tag < 0 || tag > 0x7fffffff) {
        error_ = fmt::format("'loop_begin': expected a non-negative stop tag, got '{}'", t_[2]);
        return false;
      }
      a.tag = static_cast<std::int32_t>(tag);
      return true;
    }
    case ActionType::Compute:
      return need(1, "a flop count") && number(2, a.value, "flops");
    case ActionType::Sleep:
      return need(1, "a duration in seconds") && number(2, a.value, "seconds");
    case ActionType::Migrate:
      if (!need(1, "a size in bytes") || !count(2, c1, "bytes"))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1);
      return true;
    case ActionType::Send:
    case ActionType::Isend:
    case ActionType::Ssend:
    case ActionType::Issend:
    case ActionType::Recv:
    case ActionType::Irecv: {
      bool recv = a.type == ActionType::Recv || a.type == ActionType::Irecv;
      long long tag = 0;
      if (!recv && t_.size() > 2 && t_[2] == "@") {
        a.partner = kLastSource; // reply to the latest wildcard receive's source
      } else if (!need(3, "partner tag count [datatype]") || !rank(2, a.partner, "partner", recv)) {
        return false;
      }
      if (!need(3, "partner tag count [datatype]") ||
          !integer(3, tag, "tag") || !count(4, c1, "count") || !datatype(5, s1))
        return false;
      if (recv && tag == kSmpiAnyTag)
        tag = kAnyTag;
      if (tag < (recv ? kAnyTag : 0) || tag > 0x7fffffff) {
        error_ = fmt::format("'{}' argument 2 (tag): expected a tag from {} up, got '{}'", t_[1], recv ? -1 : 0, t_[3]);
        return false;
      }
      a.tag = static_cast<std::int32_t>(tag);
      a.bytes = static_cast<std::uint64_t>(c1) * static_cast<std::uint64_t>(s1);
      return true;
    }
    case ActionType::Wait:
    case ActionType::Test:
    case ActionType::Cancel: {
      long long tag = 0;
      if (!need(3, "src dst tag") || !rank(2, a.partner, "src", true) || !rank(3, a.partner2, "dst", true) ||
          !integer(4, tag, "tag"))
        return false;
      a.tag = static_cast<std::int32_t>(tag);
      return true;
    }
    case ActionType::Waitall:
    case ActionType::Waitany:
    case ActionType::Waitsome:
      if (t_.size() > 2 && !count(2, c1, "count"))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1);
      return true;
    case ActionType::SendRecv:
      if (!need(4, "sendcount dst recvcount src [sdtype rdtype]") || !count(2, c1, "sendcount") ||
          !rank(3, a.partner, "dst", false) || !count(4, c2, "recvcount") || !rank(5, a.partner2, "src", true) ||
          !datatype(6, s1) || !datatype(7, s2))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      a.recv_bytes = static_cast<std::uint64_t>(c2 * s2);
      return true;
    case ActionType::Bcast:
      if (!need(1, "count [root [datatype]]") || !count(2, c1, "count"))
        return false;
      if (t_.size() > 3 && !rank(3, a.partner, "root", false))
        return false;
      if (!datatype(4, s1))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      return true;
    case ActionType::Reduce:
      if (!need(2, "count comp_flops [root [datatype]]") || !count(2, c1, "count") || !number(3, a.value, "comp_flops"))
        return false;
      if (t_.size() > 4 && !rank(4, a.partner, "root", false))
        return false;
      if (!datatype(5, s1))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      return true;
    case ActionType::Allreduce:
    case ActionType::Scan:
    case ActionType::Exscan:
      if (!need(2, "count comp_flops [datatype]") || !count(2, c1, "count") || !number(3, a.value, "comp_flops") ||
          !datatype(4, s1))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      return true;
    case ActionType::Alltoall:
    case ActionType::Allgather:
      if (!need(2, "sendcount recvcount [sdtype rdtype]") || !count(2, c1, "sendcount") ||
          !count(3, c2, "recvcount") || !datatype(4, s1) || !datatype(5, s2))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      a.recv_bytes = static_cast<std::uint64_t>(c2 * s2);
      return true;
    case ActionType::Gather:
    case ActionType::Scatter:
      if (!need(2, "sendcount recvcount [root [sdtype rdtype]]") || !count(2, c1, "sendcount") ||
          !count(3, c2, "recvcount"))
        return false;
      if (t_.size() > 4 && !rank(4, a.partner, "root", false))
        return false;
      if (!datatype(5, s1) || !datatype(6, s2))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      a.recv_bytes = static_cast<std::uint64_t>(c2 * s2);
      return true;
    case ActionType::Gatherv:
    case ActionType::Allgatherv: {
      bool rooted = a.type == ActionType::Gatherv;
      if (!need(1 + W, "sendcount recvcount_0..recvcount_{P-1} [root] [sdtype rdtype]") || !count(2, c1, "sendcount") ||
          !counts(3, a.recv_counts, "recvcount"))
        return false;
      std::size_t next = 3 + W;
      if (rooted) {
        if (t_.size() > next && !rank(next, a.partner, "root", false))
          return false;
        ++next;
      }
      if (!datatype(next, s1) || !datatype(next + 1, s2))
        return false;
      a.bytes = static_cast<std::uint64_t>(c1 * s1);
      scale(a.recv_counts, s2);
      return true;
    }
    case ActionType::Scatterv:
      if (!need(1 + W, "sendcount_0..sendcount_{P-1} recvcount [root [sdtype rdtype]]") ||
          !counts(2, a.send_counts, "sendcount") || !count(2 + W, c2, "recvcount"))
        return false;
      if (t_.size() > 3 + W && !rank(3 + W, a.partner, "root", false))
        return false;
      if (!datatype(4 + W, s1) || !datatype(5 + W, s2))
        return false;
      scale(a.send_counts, s1);
      a.recv_bytes = static_cast<std::uint64_t>(c2 * s2);
      return true;
    case ActionType::Alltoallv:
      if (!need(2 + 2 * W, "sendsum sendcount_0..sendcount_{P-1} recvsum recvcount_0..recvcount_{P-1} [sdtype rdtype]") ||
          !count(2, c1, "sendsum") || !counts(3, a.send_counts, "sendcount") || !count(3 + W, c2, "recvsum") ||
          !counts(4 + W, a.recv_counts, "recvcount") || !datatype(4 + 2 * W, s1) || !datatype(5 + 2 * W, s2))
        return false;
      scale(a.send_counts, s1);
      scale(a.recv_counts, s2);
      return true;
    case ActionType::ReduceScatter:
      if (!need(1 + W, "recvcount_0..recvcount_{P-1} comp_flops [datatype]") ||
          !counts(2, a.recv_counts, "recvcount") || !number(2 + W, a.value, "comp_flops") || !datatype(3 + W, s1))
        return false;
      scale(a.recv_counts, s1);
      return true;
    }
    error_ = "unhandled action";
    return false;
  }

private:
  const std::vector<std::string_view>& t_;
  int world_;
  int& default_dt_;
  std::string& error_;
};

// The fast path: the common, well-formed lines of a trace, read in one pass
// without tokenizing. Anything it does not fully understand (signs, decimals,
// extension tokens, a datatype it cannot check, extra arguments) it leaves to
// the general parser, which also writes the error messages.
// Character classes for the fast path, one table lookup per character.
constexpr std::uint8_t kBlank = 1, kDigit = 2, kWord = 4;
constexpr auto kCharClass = [] {
  std::array<std::uint8_t, 256> t{};
  t[' '] = t['\t'] = t['\r'] = kBlank;
  for (int c = '0'; c <= '9'; ++c)
    t[static_cast<std::size_t>(c)] = kDigit;
  for (int c = 'a'; c <= 'z'; ++c)
    t[static_cast<std::size_t>(c)] = kWord;
  t['_'] = kWord;
  return t;
}();
inline bool is(char c, std::uint8_t cls) { return (kCharClass[static_cast<unsigned char>(c)] & cls) != 0; }

class FastLine {
public:
  explicit FastLine(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  // Skips blanks; true when something follows.
  bool more()
  {
    while (p_ < end_ && is(*p_, kBlank))
      ++p_;
    return p_ < end_;
  }
  // An unsigned integer of 1 to 15 digits ending at a blank or the end of line.
  bool uint(std::uint64_t& v)
  {
    if (!more())
      return false;
    const char* q = p_;
    std::uint64_t x = 0;
    while (q < end_ && is(*q, kDigit))
      x = x * 10 + static_cast<std::uint64_t>(*q++ - '0');
    if (q == p_ || q - p_ > 15 || (q < end_ && !is(*q, kBlank)))
      return false;
    p_ = q;
    v = x;
    return true;
  }
  bool word(std::string_view& w)
  {
    if (!more())
      return false;
    const char* q = p_;
    while (q < end_ && is(*q, kWord))
      ++q;
    if (q == p_ || (q < end_ && !is(*q, kBlank)))
      return false;
    w = std::string_view(p_, static_cast<std::size_t>(q - p_));
    p_ = q;
    return true;
  }
  // Reads up to `max` integers; false if anything else is on the line.
  bool uints(std::uint64_t* v, int max, int& n)
  {
    n = 0;
    while (more()) {
      if (n == max || !uint(v[n]))
        return false;
      ++n;
    }
    return true;
  }

private:
  const char* p_;
  const char* end_;
};

// Sets what every action has and zeroes the arguments an action may leave unset.
void start_action(Action& a, const Keyword& keyword, long long rank)
{
  a.type = keyword.type;
  a.nonblocking = keyword.nonblocking;
  a.rank = static_cast<std::int32_t>(rank);
  a.comm = a.color = a.key = 0;
  a.partner = a.partner2 = a.tag = 0;
  a.value = 0;
  a.bytes = a.recv_bytes = 0;
  a.send_counts.clear();
  a.recv_counts.clear();
}

} // namespace

bool parse_trace_line_fast(std::string_view line, int world_size, int default_datatype, Action& out)
{
  FastLine in(line);
  std::uint64_t rank = 0;
  std::string_view name;
  if (!in.uint(rank) || rank >= static_cast<std::uint64_t>(world_size) || !in.word(name))
    return false;
  const Keyword* keyword = find_keyword(name);
  if (!keyword || keyword->nonblocking)
    return false;
  std::uint64_t v[4] = {0, 0, 0, 0};
  int n = 0;
  if (!in.uints(v, 4, n))
    return false;
  const auto W = static_cast<std::uint64_t>(world_size);
  auto dt_size = [&](int at) { return n > at ? (v[at] < 64 ? datatype_size(static_cast<int>(v[at])) : -1) : datatype_size(default_datatype); };
  Action& a = out;
  start_action(a, *keyword, static_cast<long long>(rank));
  switch (keyword->type) {
  case ActionType::Send:
  case ActionType::Isend:
  case ActionType::Ssend:
  case ActionType::Issend:
  case ActionType::Recv:
  case ActionType::Irecv: {
    int size = dt_size(3);
    if (n < 3 || v[0] >= W || v[1] > 0x7fffffff || size < 0)
      return false;
    a.partner = static_cast<std::int32_t>(v[0]);
    a.tag = static_cast<std::int32_t>(v[1]);
    a.bytes = v[2] * static_cast<std::uint64_t>(size);
    break;
  }
  case ActionType::Compute:
  case ActionType::Sleep:
    if (n != 1)
      return false;
    a.value = static_cast<double>(v[0]); // exact: at most 15 digits
    break;
  case ActionType::Wait:
  case ActionType::Test:
    if (n != 3 || v[0] >= W || v[1] >= W || v[2] > 0x7fffffff)
      return false;
    a.partner = static_cast<std::int32_t>(v[0]);
    a.partner2 = static_cast<std::int32_t>(v[1]);
    a.tag = static_cast<std::int32_t>(v[2]);
    break;
  case ActionType::Waitall:
  case ActionType::Waitany:
  case ActionType::Waitsome:
    if (n > 1)
      return false;
    a.bytes = v[0];
    break;
  case ActionType::Allreduce:
  case ActionType::Scan:
  case ActionType::Exscan: {
    int size = dt_size(2);
    if (n < 2 || n > 3 || size < 0)
      return false;
    a.value = static_cast<double>(v[1]);
    a.bytes = v[0] * static_cast<std::uint64_t>(size);
    break;
  }
  case ActionType::Bcast: {
    int size = dt_size(2);
    if (n < 1 || (n > 1 && v[1] >= W) || size < 0)
      return false;
    a.partner = static_cast<std::int32_t>(v[1]);
    a.bytes = v[0] * static_cast<std::uint64_t>(size);
    break;
  }
  case ActionType::Reduce: {
    int size = dt_size(3);
    if (n < 2 || (n > 2 && v[2] >= W) || size < 0)
      return false;
    a.value = static_cast<double>(v[1]);
    a.partner = static_cast<std::int32_t>(v[2]);
    a.bytes = v[0] * static_cast<std::uint64_t>(size);
    break;
  }
  case ActionType::Barrier:
  case ActionType::Finalize:
    if (n != 0)
      return false;
    break;
  default:
    return false;
  }
  return true;
}

bool parse_trace_line(std::string_view line, int world_size, int& default_datatype, Action& out,
                      std::vector<std::string_view>& tokens, std::string& error)
{
  if (parse_trace_line_fast(line, world_size, default_datatype, out)) {
    error.clear();
    return true;
  }
  return parse_trace_line_general(line, world_size, default_datatype, out, tokens, error);
}

bool parse_trace_line_general(std::string_view line, int world_size, int& default_datatype, Action& out,
                              std::vector<std::string_view>& tokens, std::string& error)
{
  tokens.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r')
      ++j;
    if (j > i)
      tokens.push_back(line.substr(i, j - i));
    i = j;
  }
  if (tokens.empty() || tokens[0][0] == '#')
    return false;
  error.clear();
  if (tokens.size() < 2) {
    error = fmt::format("expected '<rank> <action> [arguments]', got '{}'", line);
    return true;
  }
  long long rank = 0;
  if (!to_int(tokens[0], rank) || rank < 0 || rank >= world_size) {
    error = fmt::format("expected a rank in 0..{} as first field, got '{}'", world_size - 1, tokens[0]);
    return true;
  }
  const Keyword* keyword = find_keyword(tokens[1]);
  if (!keyword) {
    error = fmt::format("unknown action '{}' (expected one of {})", tokens[1], expected_keywords());
    return true;
  }
  start_action(out, *keyword, rank);
  // perfcast extension: "src=K" after a receive from any source is the source
  // it matched when traced (informational: the replay matches anew)
  if (tokens.size() > 2 && tokens.back().substr(0, 4) == "src=")
    tokens.pop_back();
  // perfcast extension: a last token "comm=N" names the communicator
  if (tokens.size() > 2 && tokens.back().substr(0, 5) == "comm=") {
    long long c = -1;
    if (!to_int(tokens.back().substr(5), c) || c < 0 || c > 0x7fffffff) {
      error = fmt::format("'{}': expected comm=N with N a communicator handle, got '{}'", tokens[1], tokens.back());
      return true;
    }
    out.comm = static_cast<std::int32_t>(c);
    tokens.pop_back();
    if (tokens.size() > 2 && tokens.back().substr(0, 4) == "src=")
      tokens.pop_back();
  }
  LineParser(tokens, world_size, default_datatype, error).parse(out);
  return true;
}

TraceIndex read_trace_index(const std::string& index_path, int ranks_hint)
{
  std::ifstream in(index_path);
  if (!in)
    fail_in(index_path, "cannot open trace index");
  TraceIndex index;
  index.index_path = index_path;
  fs::path dir = fs::path(index_path).parent_path();
  std::string raw;
  std::size_t line = 0;
  std::vector<std::string> files;
  while (std::getline(in, raw)) {
    ++line;
    std::string name(trim(raw));
    if (name.empty() || name[0] == '#')
      continue;
    fs::path p(name);
    std::string resolved = name;
    if (p.is_relative()) {
      fs::path beside = dir / p;
      if (fs::exists(beside) || !fs::exists(p))
        resolved = beside.string();
    }
    if (!fs::exists(resolved))
      fail_at(index_path, line, fmt::format("trace file '{}' does not exist (looked for {})", name, resolved));
    files.push_back(resolved);
  }
  if (files.empty())
    fail_in(index_path, "trace index lists no trace file");
  if (files.size() > 1) {
    index.rank_files = std::move(files);
    return index;
  }
  index.shared_file = true;
  int ranks = ranks_hint;
  if (ranks <= 0) {
    // One streaming pass for the largest rank.
    std::ifstream t(files[0]);
    long long max_rank = -1;
    std::size_t l = 0;
    while (std::getline(t, raw)) {
      ++l;
      auto a = raw.find_first_not_of(" \t\r");
      if (a == std::string::npos || raw[a] == '#')
        continue;
      auto e = raw.find_first_of(" \t", a);
      long long r = 0;
      if (!to_int(std::string_view(raw).substr(a, e == std::string::npos ? std::string::npos : e - a), r) || r < 0)
        fail_at(files[0], l, fmt::format("expected a rank as first field, got '{}'", raw.substr(a, e - a)));
      max_rank = std::max(max_rank, r);
    }
    if (max_rank < 0)
      fail_in(files[0], "trace holds no action");
    ranks = static_cast<int>(max_rank + 1);
  }
  index.rank_files.assign(static_cast<std::size_t>(ranks), files[0]);
  return index;
}

RankReader::RankReader(std::string path, int rank, int world_size, bool shared_file)
    : path_(std::move(path)), rank_(rank), world_size_(world_size), shared_(shared_file)
{
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_)
    fail_in(path_, fmt::format("cannot open trace file of rank {}: {}", rank, std::strerror(errno)));
  buffer_.resize(kBufferSize);
}

RankReader::~RankReader()
{
  if (file_)
    std::fclose(file_);
}

void RankReader::fail(const std::string& what) const { fail_at(path_, line_, what); }

bool RankReader::next_line(std::string_view& line)
{
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl) {
      std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
      line = std::string_view(start, len);
      begin_ += len + 1;
      ++line_;
      return true;
    }
    if (eof_) {
      if (begin_ == end_)
        return false;
      // last line without newline
      line = std::string_view(start, end_ - begin_);
      begin_ = end_;
      ++line_;
      return true;
    }
    // move the partial line to the front and refill
    std::size_t rest = end_ - begin_;
    if (rest == buffer_.size())
      buffer_.resize(buffer_.size() * 2); // a line longer than the buffer (huge v-collective)
    std::memmove(buffer_.data(), start, rest);
    begin_ = 0;
    end_ = rest;
    std::size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
    if (n == 0) {
      if (std::ferror(file_))
        fail(fmt::format("read error: {}", std::strerror(errno)));
      eof_ = true;
    }
    end_ += n;
  }
}

bool RankReader::next(Action& out)
{
  std::string_view line;
  std::string error;
  while (next_line(line)) {
    if (shared_) {
      // skip other ranks' lines cheaply
      std::size_t a = line.find_first_not_of(" \t");
      if (a == std::string_view::npos || line[a] == '#')
        continue;
      std::size_t e = line.find_first_of(" \t", a);
      long long r = -1;
      if (to_int(line.substr(a, e == std::string_view::npos ? std::string_view::npos : e - a), r) && r != rank_)
        continue;
    }
    if (!parse_trace_line(line, world_size_, default_datatype_, out, tokens_, error))
      continue;
    if (!error.empty())
      fail(error);
    if (out.rank != rank_)
      fail(fmt::format("rank mismatch: line is for rank {} but this file holds rank {}", out.rank, rank_));
    out.line = static_cast<std::uint32_t>(line_);
    return true;
  }
  return false;
}

} // namespace perfcast

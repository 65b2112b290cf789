#include "trace/SharedTraceScanner.hpp"

#include "trace/ActionGrammar.hpp"

#include <algorithm>

namespace perfcast {

namespace {

constexpr std::size_t kScanBuffer = std::size_t{1} << 20;
// A detached rank's buffer: small, since in a file sorted by rank every rank reads on its own. 1 KiB up to
// 65,536 ranks, less above so that they stay within 64 MiB, but never under 256 bytes (about ten lines a read).
constexpr std::size_t kOwnBudget = std::size_t{64} << 20;
constexpr std::size_t kOwnMax = 1024;
constexpr std::size_t kOwnMin = 256;

// A rank whose lines end within this many bytes may read them itself rather than have them kept.
constexpr std::uint64_t kShortRest = std::uint64_t{64} << 10;

std::size_t own_buffer_for(int world)
{
  return std::clamp(kOwnBudget / static_cast<std::size_t>(std::max(world, 1)), kOwnMin, kOwnMax);
}

} // namespace

SharedTraceScanner::SharedTraceScanner(std::string path, int world_size, std::vector<std::uint64_t> rank_ends,
                                       std::size_t budget_bytes)
    : world_(world_size), rank_ends_(std::move(rank_ends)), budget_(budget_bytes), own_buffer_(own_buffer_for(world_size)),
      scan_(kScanBuffer),
      ranks_(static_cast<std::size_t>(world_size))
{
  files_.add(std::move(path));
}

bool SharedTraceScanner::next_line(int rank, std::string_view& line, std::uint64_t& line_number)
{
  RankLines& q = ranks_[static_cast<std::size_t>(rank)];
  // lines handed out earlier are gone now that their views may be dropped
  if (q.head == q.lines.size()) {
    q.text.clear();
    q.lines.clear();
    q.text_head = q.head = 0;
  } else if (q.head > 64 && q.head * 2 > q.lines.size()) {
    q.text.erase(0, q.text_head);
    q.lines.erase(q.lines.begin(), q.lines.begin() + static_cast<std::ptrdiff_t>(q.head));
    q.text_head = q.head = 0;
  }
  if (q.head < q.lines.size()) {
    const Pending& p = q.lines[q.head++];
    line = std::string_view(q.text.data() + q.text_head, p.length);
    line_number = p.line;
    q.text_head += p.length;
    buffered_ -= p.length + sizeof(Pending);
    return true;
  }
  if (q.own && next_own_line(rank, q, line, line_number))
    return true;
  if (q.own)
    return false;
  for (;;) {
    std::uint64_t offset = scan_.offset();
    if (!scan_.next(line, [this](std::uint64_t at, char* data, std::size_t size) { return read_at(at, data, size); }))
      return false;
    ++scan_line_;
    long long owner = line_rank(line);
    if (owner == -1)
      continue;
    // a malformed rank field goes to the rank asking, whose parser reports it
    if (owner == rank || owner < 0 || owner >= world_) {
      line_number = scan_line_;
      return true;
    }
    if (!ranks_[static_cast<std::size_t>(owner)].own) // a detached rank reads its lines itself
      keep(static_cast<int>(owner), line, offset, scan_line_);
  }
}

// The rank's own cursor: its lines between where it was detached and the
// scanner. True with a line; false either at the end of its lines or, with
// the cursor freed, when it has caught up with the scanner.
bool SharedTraceScanner::next_own_line(int rank, RankLines& q, std::string_view& line, std::uint64_t& line_number)
{
  auto reader = [this](std::uint64_t at, char* data, std::size_t size) { return read_at(at, data, size); };
  bool ends_known = rank_ends_.size() > static_cast<std::size_t>(rank);
  for (;;) {
    if (ends_known && q.own->offset() >= rank_ends_[static_cast<std::size_t>(rank)]) {
      q.own->release(); // the rank has no more lines; q.own stays so that it never asks the scanner
      return false;
    }
    if (q.own->offset() >= scan_.offset()) {
      q.own.reset(); // caught up: the scanner keeps its lines again
      return false;
    }
    if (!q.own->next(line, reader))
      return false;
    ++q.own_line;
    long long owner = line_rank(line);
    if (owner == rank) {
      line_number = q.own_line;
      return true;
    }
  }
}

void SharedTraceScanner::keep(int rank, std::string_view line, std::uint64_t offset, std::uint64_t line_number)
{
  RankLines& q = ranks_[static_cast<std::size_t>(rank)];
  if (q.head == q.lines.size()) {
    // Over the budget, a rank whose lines end shortly after this one reads them itself from here, rather than
    // have them copied now and an older rank detached: in a file sorted by rank, every rank past the first
    // budget's worth is such a rank, and its lines would be dropped again before it asks for them.
    auto r = static_cast<std::size_t>(rank);
    if (buffered_ + line.size() + sizeof(Pending) > budget_ && r < rank_ends_.size() &&
        rank_ends_[r] - offset <= kShortRest) {
      q.own = std::make_unique<LineBuffer>(own_buffer_);
      q.own->seek(offset);
      q.own_line = line_number - 1;
      ++detachments_;
      return;
    }
    q.text.clear();
    q.lines.clear();
    q.text_head = q.head = 0;
    q.since = offset;
    order_.emplace_back(rank, offset);
    if (order_.size() > 2 * ranks_.size() + 1024)
      compact_order();
  }
  q.text.append(line);
  q.lines.push_back(Pending{offset, line_number, line.size()});
  buffered_ += line.size() + sizeof(Pending);
  while (buffered_ > budget_ && !order_.empty())
    detach_oldest();
}

// Drops the lines of the rank whose queue is oldest; it rereads them itself.
void SharedTraceScanner::detach_oldest()
{
  while (!order_.empty()) {
    auto [rank, since] = order_.front();
    order_.pop_front();
    RankLines& q = ranks_[static_cast<std::size_t>(rank)];
    if (q.head == q.lines.size() || q.since != since || q.own)
      continue; // stale: emptied since
    const Pending& first = q.lines[q.head];
    q.own = std::make_unique<LineBuffer>(own_buffer_);
    q.own->seek(first.offset);
    q.own_line = first.line - 1;
    for (std::size_t i = q.head; i < q.lines.size(); ++i)
      buffered_ -= q.lines[i].length + sizeof(Pending);
    std::string().swap(q.text);
    std::vector<Pending>().swap(q.lines);
    q.text_head = q.head = 0;
    ++detachments_;
    return;
  }
}

void SharedTraceScanner::compact_order()
{
  std::deque<std::pair<int, std::uint64_t>> live;
  for (const auto& [rank, since] : order_) {
    const RankLines& q = ranks_[static_cast<std::size_t>(rank)];
    if (q.head < q.lines.size() && q.since == since && !q.own)
      live.emplace_back(rank, since);
  }
  order_.swap(live);
}

} // namespace perfcast

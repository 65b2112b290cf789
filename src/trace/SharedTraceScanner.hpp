#pragma once
// One pass over a one-file trace shared by every rank: the scanner reads the
// file once and hands each rank its lines, keeping the lines of ranks that are
// behind until they ask. When those lines exceed a budget, the rank whose
// oldest line waits longest is detached: its lines are dropped and it reads
// them again on its own, from where they were, until it catches up with the
// scanner. Memory is bounded by the budget, and the file is read about once
// when ranks progress together, as they do in a replay of a time-ordered trace.
#include "trace/FilePool.hpp"
#include "trace/LineBuffer.hpp"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

/// Hands each rank of a one-file trace its lines, reading the file about once.
class SharedTraceScanner {
public:
  /// `rank_ends` (optional) holds, per rank, the offset after its last line;
  /// `budget_bytes` bounds the lines kept for ranks that are behind.
  SharedTraceScanner(std::string path, int world_size, std::vector<std::uint64_t> rank_ends,
                     std::size_t budget_bytes = kDefaultBudget);

  /// The next line of `rank` (or a line whose rank field is malformed) and its
  /// line number; false when the rank has no more lines. The view is valid
  /// until the next call.
  bool next_line(int rank, std::string_view& line, std::uint64_t& line_number);
  /// The file's path.
  const std::string& path() const { return files_.path(0); }
  /// Bytes now kept for ranks that are behind (lines and bookkeeping).
  std::size_t buffered_bytes() const { return buffered_; }
  /// How many times a rank was detached and read its lines on its own.
  std::size_t detachments() const { return detachments_; }
  /// Bytes read from the file so far, by the scanner and by detached ranks.
  std::uint64_t bytes_read() const { return bytes_read_; }

  /// Default budget for the lines of ranks that are behind: 64 MiB.
  static constexpr std::size_t kDefaultBudget = std::size_t{64} << 20;

private:
  struct Pending {
    std::uint64_t offset;
    std::uint64_t line;
    std::size_t length;
  };
  struct RankLines {
    std::string text; // pending lines back to back, from text_head
    std::size_t text_head = 0;
    std::vector<Pending> lines; // from head
    std::size_t head = 0;
    std::uint64_t since = 0; // offset of the line that made the queue non-empty
    std::unique_ptr<LineBuffer> own; // set while detached: the rank's own cursor
    std::uint64_t own_line = 0;
  };

  bool next_own_line(int rank, RankLines& q, std::string_view& line, std::uint64_t& line_number);
  void keep(int rank, std::string_view line, std::uint64_t offset, std::uint64_t line_number);
  void detach_oldest();
  void compact_order();
  std::size_t read_at(std::uint64_t offset, char* data, std::size_t size)
  {
    std::size_t n = files_.read_at(0, offset, data, size);
    bytes_read_ += n;
    return n;
  }

  FilePool files_{1};
  int world_;
  std::vector<std::uint64_t> rank_ends_;
  std::size_t budget_;
  std::size_t own_buffer_; // bytes of a detached rank's read buffer
  LineBuffer scan_;
  std::uint64_t scan_line_ = 0;
  std::vector<RankLines> ranks_;
  std::deque<std::pair<int, std::uint64_t>> order_; // (rank, since): queues by age, stale entries skipped
  std::size_t buffered_ = 0;
  std::size_t detachments_ = 0;
  std::uint64_t bytes_read_ = 0;
};

} // namespace perfcast

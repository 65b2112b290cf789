#pragma once
// Streaming reader of SimGrid time-independent traces (TIT). Memory does not
// grow with trace length, and a trace of many ranks needs neither one open file
// per rank nor one pass over a shared file per rank: a TraceSource keeps a
// bounded pool of open files, or one scanner shared by all ranks, and each
// rank's RankReader holds a small buffer.
#include "trace/Action.hpp"
#include "trace/ActionStream.hpp"
#include "trace/ActionGrammar.hpp"
#include "trace/LineBuffer.hpp"
#include "trace/TraceIndex.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

class FilePool;
class SharedTraceScanner;
class RankReader;

/// The open trace: what every rank's reader shares (open files, the shared-file scanner).
class TraceSource {
public:
  /// Opens the trace lazily: files are opened when read, at most a bounded number at a time.
  explicit TraceSource(const TraceIndex& index);
  ~TraceSource();
  TraceSource(const TraceSource&) = delete;
  TraceSource& operator=(const TraceSource&) = delete;

  /// A reader of one rank's actions; it must not outlive the source.
  std::unique_ptr<RankReader> open_rank(int rank);
  /// How many trace files are open now (for tests of the descriptor bound).
  std::size_t open_files() const;

private:
  friend class RankReader;
  int world_;
  std::size_t buffer_size_;
  std::vector<double> compute_scale_;
  std::unique_ptr<FilePool> files_;           // one file per rank
  std::unique_ptr<SharedTraceScanner> shared_; // one file for all ranks
};

/// Yields one rank's actions in order.
class RankReader : public ActionStream {
public:
  /// A reader of a file that holds only `rank`'s actions, outside any TraceSource.
  RankReader(std::string path, int rank, int world_size);
  /// A reader of `rank` in `source`.
  RankReader(TraceSource& source, int rank);
  ~RankReader() override;
  RankReader(const RankReader&) = delete;
  RankReader& operator=(const RankReader&) = delete;

  /// Reads the next action; false at the end of the rank's actions.
  bool next(Action& out) override;
  /// The file this rank's actions come from.
  const std::string& path() const override;
  /// Line number of the last line read.
  std::size_t line() const { return line_; }

private:
  bool next_line(std::string_view& line);
  [[noreturn]] void fail(const std::string& what) const;

  std::unique_ptr<FilePool> own_files_; // a reader outside a source
  FilePool* files_ = nullptr;
  std::size_t file_id_ = 0;
  SharedTraceScanner* shared_ = nullptr;
  LineBuffer lines_; // per-rank files only
  int rank_;
  int world_size_;
  bool done_ = false;
  std::size_t line_ = 0;
  int default_datatype_ = 6; // byte, or double once "init" has an argument
  double compute_scale_ = 1;  // the index's factor for this rank's compute amounts
  std::string error_;
};

} // namespace perfcast

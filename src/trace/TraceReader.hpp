#pragma once
// Streaming reader of SimGrid time-independent traces (TIT). Memory does not
// grow with trace length: each rank's reader holds one buffer of its file.
#include "trace/Action.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

/// Where each rank's actions are: an index file listing one file per rank, or
/// a one-line index naming a single file that holds every rank.
struct TraceIndex {
  std::string index_path;
  bool shared_file = false;
  std::vector<std::string> rank_files; ///< one per rank (all equal when shared)
  int ranks() const { return static_cast<int>(rank_files.size()); }
};

/// Reads an index file. Paths inside are resolved against the index's directory,
/// then the working directory. For a one-file trace the rank count is the
/// largest rank in it plus one (one streaming pass), unless ranks_hint > 0.
TraceIndex read_trace_index(const std::string& index_path, int ranks_hint = -1);

/// Yields one rank's actions in order.
class RankReader {
public:
  RankReader(std::string path, int rank, int world_size, bool shared_file);
  ~RankReader();
  RankReader(const RankReader&) = delete;
  RankReader& operator=(const RankReader&) = delete;

  /// Reads the next action; false at the end of the rank's actions.
  bool next(Action& out);
  const std::string& path() const { return path_; }
  /// Line number of the last line read.
  std::size_t line() const { return line_; }

private:
  bool next_line(std::string_view& line);
  void parse(std::string_view line, Action& out);
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  int rank_;
  int world_size_;
  bool shared_;
  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::size_t line_ = 0;
  int default_datatype_ = 6; // byte, or double once "init" has an argument
  std::vector<std::string_view> tokens_;
};

/// Parses one trace line into an action (used by RankReader and the fuzzer).
/// Returns false for blank and comment lines.
bool parse_trace_line(std::string_view line, int world_size, int& default_datatype, Action& out,
                      std::vector<std::string_view>& tokens, std::string& error);
/// The one-pass fast path of parse_trace_line for common well-formed lines;
/// false (out partly written) when the line needs the general parser.
bool parse_trace_line_fast(std::string_view line, int world_size, int default_datatype, Action& out);
/// parse_trace_line without the fast path (the two are compared in the tests).
bool parse_trace_line_general(std::string_view line, int world_size, int& default_datatype, Action& out,
                              std::vector<std::string_view>& tokens, std::string& error);

} // namespace perfcast

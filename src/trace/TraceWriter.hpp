#pragma once
// Writes time-independent traces: one file per rank plus an index, in
// SimGrid's TIT syntax so `smpirun -replay` can read them. Sizes are written
// as byte counts with datatype 6 (MPI_BYTE). Files are written under temporary
// names and renamed into place when the trace is closed.
#include "core/OutputFile.hpp"
#include "trace/Action.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace perfcast {

/// One action as a TIT line (no newline).
std::string format_action(const Action& action);

class TraceWriter {
public:
  /// Prepares DIR/NAME (the index) and DIR/rank-N.txt for `ranks` ranks; DIR's
  /// parent must exist, and a DIR made here is removed again unless the trace is closed.
  TraceWriter(std::string dir, int ranks, std::string index_name = "trace.txt");
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  /// Appends an action to its rank's file.
  void write(const Action& action);
  /// Flushes, closes and renames every file into place; throws Error on failure.
  void close();
  /// Path of the index file.
  std::string index_path() const { return dir_ + "/" + index_name_; }

private:
  std::string dir_;
  std::unique_ptr<OutputDirectory> directory_;
  std::string index_name_;
  std::vector<std::FILE*> files_;
  bool closed_ = false;
};

} // namespace perfcast

#pragma once
// The index of a time-independent trace: which file holds each rank's actions.
#include <cstdint>
#include <string>
#include <vector>

namespace perfcast {

/// Where each rank's actions are: an index file listing one file per rank, or
/// a one-line index naming a single file that holds every rank.
struct TraceIndex {
  std::string index_path;
  bool shared_file = false;
  std::vector<std::string> rank_files; ///< one per rank, or only the shared file
  /// One-file trace scanned in full: per rank, the offset just after its last line.
  std::vector<std::uint64_t> rank_ends;
  int world_size = 0;
  /// Per rank, a factor every compute action's amount is multiplied by when read (empty: none). A caller sets it to
  /// carry computation measured at one rate into another (src/forecast/Speeds.hpp); read_trace_index leaves it empty.
  std::vector<double> compute_scale;
  int ranks() const { return world_size; }
};

/// Reads an index file. Paths inside are resolved against the index's directory,
/// then the working directory. For a one-file trace the rank count is the
/// largest rank in it plus one (one streaming pass), unless ranks_hint > 0.
/// A trace has at most kMaxRanks ranks (trace/ActionGrammar.hpp).
TraceIndex read_trace_index(const std::string& index_path, int ranks_hint = -1);

} // namespace perfcast

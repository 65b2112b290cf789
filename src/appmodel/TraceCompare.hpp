#pragma once
// An extrapolated trace against the real one at the same count, action by
// action: the share of actions that agree exactly (type, partners, tag,
// communicator, sizes, a reduction's flops within the precision a trace line
// keeps; a compute matches a compute, since measured computation differs from
// run to run), and per rank the relative error of its bytes sent and of its
// computation.
#include "trace/ActionStream.hpp"

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace perfcast {

struct TraceComparison {
  int ranks = 0;
  std::uint64_t actions_expected = 0, actions_actual = 0;
  std::uint64_t matching = 0;       ///< positions where both traces hold the same action
  double match_share = 0;           ///< matching / the longer trace's actions
  double bytes_error_mean = 0, bytes_error_max = 0;     ///< per rank |actual - expected| / expected, bytes sent
  double compute_error_mean = 0, compute_error_max = 0; ///< the same for flops computed
  int first_difference_rank = -1;   ///< the first rank whose actions differ (-1: none)
  std::uint64_t first_difference_action = 0; ///< its first differing action (1-based)
  std::string first_difference;     ///< "expected 'isend 3 0 512', got 'isend 4 0 512'"
  nlohmann::json to_json() const;
  std::string text() const;
};

/// Compares two traces of one count; throws Error when their rank counts differ.
TraceComparison compare_traces(const std::string& expected_index, const std::string& actual_index);

/// Opens one rank's actions of one side of a comparison.
using RankOpener = std::function<std::unique_ptr<ActionStream>(int rank)>;

/// Compares the ranks of two sources; with `structure_only`, actions agree when their type, partners, tag and
/// communicator do (sizes and values apart).
TraceComparison compare_ranks(int ranks, const RankOpener& expected, const RankOpener& actual,
                              bool structure_only = false);

} // namespace perfcast

#pragma once
// The VP levels of a sweep made from one fine trace (Tesser et al. 2016,
// section 4.2): a trace recorded at the finest decomposition is aggregated to
// each coarser level, so one traced run stands for the whole study.
#include "lb/Sweep.hpp"

#include <string>
#include <vector>

namespace perfcast::lb {

/// Parses a list of VP levels such as "64,32,16" (each at least 1, no repeats); `what` names it in errors.
std::vector<int> parse_levels(const std::string& text, const std::string& what);

/// One level per entry of `levels`, in that order: the fine trace itself for
/// its own rank count, otherwise the fine trace aggregated into blocks of
/// `fine_grid` (empty: one dimension) and written under `scratch`. Throws
/// Error naming the trace when a level does not divide its ranks or the grid
/// cannot be cut into that many blocks.
std::vector<SweepLevel> aggregated_levels(const std::string& fine_trace, const std::vector<int>& fine_grid,
                                          const std::vector<int>& levels, const std::string& scratch);

} // namespace perfcast::lb

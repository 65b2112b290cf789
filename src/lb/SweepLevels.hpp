#pragma once
// The VP levels of a sweep made from one fine trace (Tesser et al. 2016,
// section 4.2): a trace recorded at the finest decomposition is aggregated to
// each coarser level, so one traced run stands for the whole study.
#include "lb/Sweep.hpp"

#include <string>
#include <vector>

namespace perfcast::lb {

/// One level per entry of `levels`, in that order: the fine trace itself for
/// its own rank count, otherwise the fine trace aggregated into blocks of
/// `fine_grid` (e.g. "8x8"; empty: one dimension) and written under `scratch`. Throws
/// Error naming the trace when a level is repeated, does not divide its ranks
/// or the grid cannot be cut into that many blocks.
std::vector<SweepLevel> aggregated_levels(const std::string& fine_trace, const std::string& fine_grid,
                                          const std::vector<int>& levels, const std::string& scratch);

} // namespace perfcast::lb

#pragma once
// The figures of `perfcast comm run`: the estimated bytes per region call
// against the process count, and one estimate's communication matrix as a
// heatmap (sender by receiver).
#include "comm/CommEstimate.hpp"

#include <string>
#include <vector>

namespace perfcast::comm {

/// Point-to-point, collective and total bytes per iteration against the process count (log2 axis).
std::string comm_bytes_svg(const std::vector<CommEstimate>& estimates, const std::string& subtitle);

/// The matrix of one estimate, bytes per iteration from sender (row) to receiver (column).
std::string comm_matrix_svg(const CommEstimate& estimate, const std::string& subtitle);

} // namespace perfcast::comm

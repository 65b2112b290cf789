#pragma once
// The report of a run's function profiles (`perfcast profile DIR` after
// `perfcast trace --functions`): the ranks' samples merged (seconds per
// rank, MPI initialisation and finalisation left out), the top functions by
// inclusive time with their exclusive time, and the time in each MPI call.
#include "profile/FunctionProfile.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast::profile {

/// One function's line of the report.
struct FunctionLine {
  std::string name;
  double inclusive_s = 0, inclusive_share = 0;
  double exclusive_s = 0, exclusive_share = 0;
};

/// Time in one MPI call (the outermost MPI frame of each sample).
struct MpiCallLine {
  std::string name;
  double seconds = 0, share = 0;
};

/// The merged report.
struct FunctionReport {
  int ranks = 0;
  double hz = 0;
  double seconds = 0; ///< per rank
  std::vector<FunctionLine> top;
  std::vector<MpiCallLine> mpi_calls; ///< by decreasing time
  double mpi_seconds = 0, mpi_share = 0;
};

/// Builds the report of the ranks' profiles with the `top` functions; throws
/// Error when there is no profile.
FunctionReport function_report(const std::vector<FunctionProfile>& ranks, std::size_t top);

/// The report as a table.
std::string format_function_report(const FunctionReport& report);

/// The report as JSON.
nlohmann::json function_report_json(const FunctionReport& report);

} // namespace perfcast::profile

#pragma once
// Which host each rank runs on.
#include "platform/Platform.hpp"

#include <string>
#include <vector>

namespace perfcast {

/// host index of each rank
using Placement = std::vector<int>;

/// SimGrid-style hostfile: rank i runs on line i modulo the number of lines;
/// a line "name:k" stands for k lines "name". Blank lines and '#' comments are skipped.
Placement place_by_hostfile(const Platform& platform, const std::string& path, int ranks);

/// Named policies: "round-robin" (rank i on host i mod H), "block" (fill each
/// host's cores in host order, wrapping when all are full), or an explicit
/// comma-separated list of host names used like a hostfile.
Placement place_by_policy(const Platform& platform, const std::string& policy, int ranks);

} // namespace perfcast

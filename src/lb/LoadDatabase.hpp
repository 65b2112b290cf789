#pragma once
// perfcast's load database, the input of `perfcast lb decide` (docs/lb.md):
//   {"format": "perfcast-lbdb", "version": 1,
//    "pes": [{"id": 0, "speed": 1.0, "background_s": 0.0, "available": true}, ...],
//    "objects": [{"id": 0, "pe": 0, "load_s": 1.25, "migratable": true, "bytes": 4096}, ...]}
// PE and object ids number them densely from 0 (any order in the file).
// Errors name the file and the JSON pointer of the bad field.
#include "lb/LoadBalancer.hpp"

#include <string>
#include <string_view>

namespace perfcast::lb {

/// Parses a load database held in memory; `file` names it in errors.
LbProblem parse_load_database(std::string_view text, const std::string& file);

/// Reads a load database file.
LbProblem read_load_database(const std::string& path);

} // namespace perfcast::lb

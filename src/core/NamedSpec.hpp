#pragma once
// Specs written NAME or NAME:key=value,key=value with numeric values, as
// distributions ("exp:mean=2") and scheduling policies ("lowest:probes=2")
// are chosen on the command line and in files.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfcast {

struct NamedSpec {
  std::string name;
  std::vector<std::pair<std::string, double>> values; ///< in the order written
};

/// Splits and checks the syntax (each item key=value, each value a finite
/// number); throws Error starting "WHAT 'SPEC': ". Names and keys are the
/// caller's to check.
NamedSpec parse_named_spec(const std::string& spec, std::string_view what);

/// "a, b, c": the names a caller accepts, for its error messages.
std::string join_names(const std::vector<std::string>& names);

} // namespace perfcast

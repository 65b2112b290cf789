#pragma once
// The options of AMPI's overheads shared by `lb replay` and `lb sweep`:
// --vp-stack, --message-cpu, --local-message-cpu, --migration-cost, --step-cost.
#include "sim/OverDecomposed.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace perfcast::cli {

/// The overhead options as the user wrote them.
struct VpOverheadArgs {
  std::string vp_stack = "0";
  std::string message_cpu = "0";
  std::string local_message_cpu = "0";
  std::string migration_cost = "0";
  std::string step_cost = "0";
};

/// Registers the five options on a subcommand.
void add_vp_overhead_options(CLI::App& app, VpOverheadArgs& a);
/// The values of the options; throws Error naming the option for a malformed or negative value.
VpOverheads parse_vp_overheads(const VpOverheadArgs& a);

} // namespace perfcast::cli

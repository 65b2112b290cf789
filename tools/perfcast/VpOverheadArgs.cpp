// Parsing of the AMPI overhead options of `lb replay` and `lb sweep`.
#include "VpOverheadArgs.hpp"

#include "core/Error.hpp"
#include "core/Units.hpp"

#include <fmt/format.h>
#include <optional>

namespace perfcast::cli {

namespace {

// A per-event overhead: a duration such as 15us or 4.5ms, 0 or more.
double overhead_seconds(const char* option, const std::string& text)
{
  std::optional<double> s = parse_duration(text);
  if (!s || !(*s >= 0) || *s > 1e6)
    throw Error(fmt::format("{} {}: expected a duration of 0 or more such as 15us, 4.5ms or 0.002", option, text));
  return *s;
}

} // namespace

void add_vp_overhead_options(CLI::App& app, VpOverheadArgs& a)
{
  app.add_option("--vp-stack", a.vp_stack, "bytes every migration carries besides the traced heap (AMPI: 1MiB)")
      ->capture_default_str();
  app.add_option("--message-cpu", a.message_cpu,
                 "CPU time a core spends per message a VP sends to or receives from another core (docs/lb.md)")
      ->capture_default_str();
  app.add_option("--local-message-cpu", a.local_message_cpu,
                 "CPU time a core spends per message between two of its own VPs, on each side")
      ->capture_default_str();
  app.add_option("--migration-cost", a.migration_cost, "CPU time a migration costs its old and its new core each")
      ->capture_default_str();
  app.add_option("--step-cost", a.step_cost, "time every balancing step costs besides its migrations")
      ->capture_default_str();
}

VpOverheads parse_vp_overheads(const VpOverheadArgs& a)
{
  VpOverheads o;
  std::optional<double> stack = parse_bytes(a.vp_stack);
  if (!stack || *stack < 0 || *stack > 1e15)
    throw Error(fmt::format("--vp-stack {}: expected a size in bytes such as 1MiB or 65536", a.vp_stack));
  o.stack_bytes = static_cast<std::uint64_t>(*stack);
  o.message_cpu_s = overhead_seconds("--message-cpu", a.message_cpu);
  o.local_message_cpu_s = overhead_seconds("--local-message-cpu", a.local_message_cpu);
  o.migration_cpu_s = overhead_seconds("--migration-cost", a.migration_cost);
  o.step_s = overhead_seconds("--step-cost", a.step_cost);
  return o;
}

} // namespace perfcast::cli

// The perfcast command: registers the subcommands (one file each under
// tools/perfcast/), runs the chosen one, and turns user errors into a message
// and a non-zero exit.
#include "Command.hpp"
#include "Typos.hpp"

#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputFile.hpp"
#include "core/Version.hpp"

#include <iostream>

namespace perfcast::cli {
/// `perfcast kernels build` and `list` (KernelsCommand.cpp).
void add_kernels_commands(CLI::App& app, std::vector<Command>& out);
} // namespace perfcast::cli

int main(int argc, char** argv)
{
  using namespace perfcast::cli;
  perfcast::install_interrupt_handling();
  CLI::App app{"perfcast: predict how an MPI application performs on a machine you do not have"};
  app.require_subcommand(1);
  app.set_version_flag("--version", perfcast::kPerfcastGenerator);
  std::vector<Command> commands;
  add_replay_commands(app, commands);
  add_trace_commands(app, commands);
  add_model_commands(app, commands);
  add_appmodel_commands(app, commands);
  add_forecast_commands(app, commands);
  add_platform_commands(app, commands);
  add_schedule_commands(app, commands);
  add_lb_commands(app, commands);
  add_probe_commands(app, commands);
  add_comm_commands(app, commands);
  add_kernels_commands(app, commands);
  add_phases_commands(app, commands);
  add_aggregate_commands(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // a mistyped command or option gets a suggestion instead of CLI11's generic message
    if (e.get_exit_code() == 0)
      return app.exit(e); // --help, --version
    std::string typo = explain_unknown_word(app, argc, argv);
    std::cerr << "error: " << (typo.empty() ? explain_parse_error(app, argc, argv, e.what()) : typo) << "\n";
    return 2;
  }
  try {
    for (const Command& c : commands)
      if (*c.app) {
        int status = c.run();
        perfcast::flush_stdout(); // a full disk or a closed pipe must not pass for success
        return status;
      }
  } catch (const perfcast::Interrupted& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 128 + e.signal();
  } catch (const perfcast::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: internal: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

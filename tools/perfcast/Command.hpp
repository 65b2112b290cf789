#pragma once
// The subcommands of the perfcast CLI. Each file registers one or a few
// subcommands on the CLI11 app and returns what runs when it is chosen; the
// command files parse flags and call the library, nothing more.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfcast::cli {

/// A registered subcommand and what runs when the user chose it.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

void add_replay_commands(CLI::App& app, std::vector<Command>& out);
void add_trace_commands(CLI::App& app, std::vector<Command>& out);
void add_model_commands(CLI::App& app, std::vector<Command>& out);
void add_platform_commands(CLI::App& app, std::vector<Command>& out);
void add_schedule_commands(CLI::App& app, std::vector<Command>& out);
void add_lb_commands(CLI::App&, std::vector<Command>&);
/// `perfcast lb replay` (LbReplayCommand.cpp), registered under `lb`.
void add_lb_replay_command(CLI::App& lb, std::vector<Command>& out);
void add_probe_commands(CLI::App& app, std::vector<Command>& out);
void add_comm_commands(CLI::App& app, std::vector<Command>& out);
/// `perfcast lb sweep` (LbSweepCommand.cpp), registered under `lb`.
void add_lb_sweep_command(CLI::App& lb, std::vector<Command>& out);
void add_phases_commands(CLI::App& app, std::vector<Command>& out);
/// `perfcast model build`, `model show` and `extrapolate` (AppModelCommand.cpp).
void add_appmodel_commands(CLI::App& app, std::vector<Command>& out);
/// Whether a file is an application model (perfcast model build's JSON).
bool is_app_model_file(const std::string& path);
/// `perfcast predict` of an application model: its trace replayed at each count (AppModelCommand.cpp).
int run_app_predict(const std::string& model, const std::string& platform, const std::string& procs,
                    const std::string& placement, const std::string& network, bool json);
/// Each warning of a result on stderr, as "warning: ...", whether the result went out as a table or as JSON.
void print_warnings(const std::vector<std::string>& warnings);
/// `perfcast forecast` (ForecastCommand.cpp).
void add_forecast_commands(CLI::App& app, std::vector<Command>& out);
/// `perfcast aggregate` (AggregateCommand.cpp).
void add_aggregate_commands(CLI::App& app, std::vector<Command>& out);

} // namespace perfcast::cli

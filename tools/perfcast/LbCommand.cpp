// perfcast lb decide: one balancing decision of a Charm++ load balancer on a
// load database file.
#include "Command.hpp"

#include "core/Error.hpp"
#include "lb/BalancerSpec.hpp"
#include "lb/DecisionReport.hpp"
#include "lb/LoadDatabase.hpp"

#include <fmt/format.h>
#include <iostream>

namespace perfcast::cli {

namespace {

struct LbDecideArgs {
  std::string balancer = "greedy";
  std::string file;
  bool use_pe_speed = false;
  bool json = false;
};

int run_lb_decide(const LbDecideArgs& a)
{
  lb::BalancerConfig config;
  try {
    config = lb::parse_balancer_spec(a.balancer);
  } catch (const Error& e) {
    throw Error(fmt::format("--balancer: {}", e.what()));
  }
  lb::LbProblem problem = lb::read_load_database(a.file);
  problem.use_pe_speed = a.use_pe_speed;
  lb::LbDecision decision = lb::decide(config, problem);
  if (a.json)
    std::cout << lb::decision_json(a.balancer, problem, decision).dump(2) << "\n";
  else
    std::cout << lb::format_decision(a.balancer, problem, decision);
  return 0;
}

} // namespace

void add_lb_commands(CLI::App& app, std::vector<Command>& out)
{
  auto* lb = app.add_subcommand("lb", "Charm++ load balancers on a load database");
  lb->require_subcommand(1);
  auto args = std::make_shared<LbDecideArgs>();
  auto* decide = lb->add_subcommand("decide", "print the mapping a balancer chooses for a load database");
  decide->add_option("file", args->file, "load database (JSON, format perfcast-lbdb; see docs/lb.md)")->required();
  decide->add_option("--balancer,-b", args->balancer, "NAME or NAME:key=value,... (balancers and keys: docs/lb.md)")
      ->capture_default_str();
  decide->add_flag("--use-pe-speed", args->use_pe_speed,
                   "scale loads by PE speed, as Charm++ does with +LBTestPESpeed (off by default)");
  decide->add_flag("--json", args->json, "print a JSON object instead of a table");
  out.push_back({decide, [args] { return run_lb_decide(*args); }});
  add_lb_replay_command(*lb, out);
  add_lb_sweep_command(*lb, out);
}

} // namespace perfcast::cli

// perfcast fit qn, perfcast predict and perfcast compare.
#include "Command.hpp"

#include "core/OutputFile.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "platform/Platform.hpp"
#include "qn/FitDescription.hpp"
#include "qn/QueueingModel.hpp"
#include "qn/QueueingPredictions.hpp"
#include "qn/Study.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <optional>

namespace perfcast::cli {
namespace {

struct ModelArgs {
  std::vector<std::string> runs;
  std::string platform;
  std::string output;
  std::string model;
  std::string procs = "1..64:x2";
  std::string placement = "spread";
  std::vector<std::string> measured;
  std::string svg;
  double threshold = 0.05;
  int best_group = 0;
  int group_procs = 0;
  bool json = false;
  bool paper = false;
  bool single_class = false;
  bool asynchronous = false;
  bool work_growth = false; // accepted and ignored: W(n) from the runs is the default
  bool constant_work = false;
  bool identify_network = false;
  bool free_network = false;
  std::string grid;
  std::string grid_file;
  bool force = false;
  std::vector<std::string> host_map;
  std::string network = "smpi";
};

std::vector<MeasuredRun> load_all_runs(const std::vector<std::string>& files, const std::vector<std::string>& host_map)
{
  auto renames = parse_host_map(host_map);
  std::vector<MeasuredRun> runs;
  for (const auto& f : files) {
    auto r = load_runs(f);
    runs.insert(runs.end(), r.begin(), r.end());
  }
  rename_hosts(runs, renames);
  return runs;
}

int run_fit(const ModelArgs& a)
{
  OutputTarget output = check_output(a.output, "model", a.force);
  Platform platform = load_platform(a.platform);
  auto runs = load_all_runs(a.runs, a.host_map);
  ModelVariant variant = a.paper ? ModelVariant::paper() : ModelVariant{};
  if (a.single_class)
    variant.node_classes = false;
  if (a.asynchronous)
    variant.lockstep = false;
  if (a.identify_network)
    variant.identify_network = true;
  if (a.free_network)
    variant.hold_loose_network = false;
  if (a.constant_work)
    variant.work_growth = false;
  else if (a.work_growth)
    variant.work_growth = true;
  if (!a.grid.empty() && !a.grid_file.empty())
    throw Error("--grid and --grid-file: give one of them");
  if (!a.grid_file.empty())
    variant.grid_rules = {load_grid_file(a.grid_file)};
  else if (!a.grid.empty())
    variant.grid_rules = grid_rules_from_spec(a.grid);
  variant.grid_given = !variant.grid_rules.empty();
  QueueingModel model = fit_queueing_model(runs, platform, variant);
  model.reliability = assess_reliability(runs, platform, variant);
  model.provenance["platform"] = a.platform;
  AmdahlModel amdahl = fit_amdahl(runs);
  nlohmann::json j = model_to_json(model, amdahl);
  write_output(output, j.dump(2) + "\n");
  for (const std::string& w : model.warnings)
    std::cerr << "warning: " << w << "\n";
  if (!model.reliability.warning.empty())
    std::cerr << "warning: " << model.reliability.warning << "\n";
  if (a.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << describe_fitted_model(model, amdahl, runs);
  std::cout << "\nmodel written to " << a.output << "\n";
  return 0;
}

int run_predict(const ModelArgs& a)
{
  if (is_app_model_file(a.model)) {
    if (!a.svg.empty() || a.best_group > 0 || !a.measured.empty() || !a.grid.empty() || !a.grid_file.empty())
      throw Error(fmt::format("{}: an application model predicts by replay and takes --platform, --procs, "
                              "--placement, --net and --json (not --svg, --best-group, --measured or --grid)",
                              a.model));
    return run_app_predict(a.model, a.platform, a.procs, a.placement, a.network, a.json);
  }
  std::optional<OutputTarget> svg;
  if (!a.svg.empty())
    svg = check_output(a.svg, "curve", a.force);
  Platform platform = load_platform(a.platform);
  auto [model, amdahl] = model_from_json(read_file(a.model, "model file"), a.model);
  if (!a.grid.empty() && !a.grid_file.empty())
    throw Error("--grid and --grid-file: give one of them");
  if (!a.grid.empty() || !a.grid_file.empty())
    regrid_queueing_model(model, a.grid, a.grid_file, a.model);
  QueueingPredictionOptions o;
  o.placement = a.placement;
  o.threshold = a.threshold;
  o.best_group = a.best_group;
  o.group_procs = a.group_procs;
  o.measured = load_all_runs(a.measured, a.host_map);
  o.model_name = a.model;
  o.platform_name = a.platform;
  QueueingPredictions p = predict_queueing(model, amdahl, platform, parse_proc_counts(a.procs), o);
  for (const std::string& w : p.warnings)
    std::cerr << "warning: " << a.model << ": " << w << "\n";
  std::cout << (a.json ? p.to_json().dump(2) + "\n" : p.text());
  if (svg)
    write_output(*svg, mark_svg(p.svg()));
  return 0;
}

int run_compare(const ModelArgs& a)
{
  Platform platform = load_platform(a.platform);
  ModelComparison c = compare_models(load_all_runs(a.runs, a.host_map), platform);
  std::cout << (a.json ? c.to_json().dump(2) + "\n" : c.text());
  return 0;
}

} // namespace

void add_model_commands(CLI::App& app, std::vector<Command>& out)
{
  auto margs = std::make_shared<ModelArgs>();
  auto* fit = app.add_subcommand("fit", "fit a performance model to measured runs");
  fit->require_subcommand(1);
  auto* fit_qn = fit->add_subcommand("qn", "the queueing-network model of Saad et al. (and the Amdahl baseline)");
  fit_qn->add_option("runs", margs->runs, "run files: CSV, perfcast runs JSON, perfcast replay --json output, or a perfcast trace directory")
      ->required();
  fit_qn->add_option("--platform,-p", margs->platform, "platform the runs were measured on")->required();
  fit_qn->add_option("-o,--output", margs->output, "model file to write")->required();
  fit_qn->add_flag("--json", margs->json, "print the model as JSON");
  fit_qn->add_option("--host-map", margs->host_map, "traced host names to platform hosts: vm=e5620-0[,...]");

  fit_qn->add_flag("--paper", margs->paper,
                   "the paper's model exactly: one class of customers, one network queue per node, no start-up "
                   "time (default: a class per node, duplex NIC and route latency)");
  fit_qn->add_flag("--single-class", margs->single_class,
                   "one class of customers over every node, as the paper (perfcast's other refinements stay on)");
  fit_qn->add_flag("--asynchronous", margs->asynchronous,
                   "each process a customer of its own, as the paper, whose transfers may overlap the other "
                   "processes' computation (default: a node's processes in lockstep, one customer whose CPU phase "
                   "lasts as long as its slowest rank)");
  fit_qn->add_flag("--constant-work", margs->constant_work,
                   "W constant, as the paper (default: W(n) from the runs' recorded work, constant, a + b n, "
                   "a + b ln n or a + b / n by leave-one-out)");
  fit_qn->add_flag("--work-growth", margs->work_growth,
                   "W(n) from the runs' recorded work (the default; also with --paper)")
      ->excludes("--constant-work");
  fit_qn->add_flag("--identify-network", margs->identify_network,
                   "keep Net_Constant at 1 unless its effect on the most network-heavy run passes twice the CPU "
                   "side's scatter (off by default: docs/models.md says how it did on held-out runs)");
  fit_qn->add_flag("--free-network", margs->free_network,
                   "keep the fitted Net_Constant even when its standard error passes 100% (default: it then stays "
                   "1, the platform's network model, and W is fitted alone)");
  fit_qn->add_option("--grid", margs->grid,
                     "class point-to-point traffic on MPI_Dims_create's process grid: dims_create (1-3 axes), "
                     "dims_create:D, optionally :periodic or :transposed (default: detected from the partner lists)");
  fit_qn->add_option("--grid-file", margs->grid_file,
                     "class point-to-point traffic on the grids of a file: lines 'N AxB[xC] [periodic]'");
  fit_qn->add_flag("--force", margs->force, "replace an output file that perfcast did not write");
  out.push_back({fit_qn, [margs] { return run_fit(*margs); }});

  auto* pr = app.add_subcommand("predict", "predict run times with a fitted model or an application model");
  pr->add_option("model", margs->model, "model file from perfcast fit, or from perfcast model build")->required();
  pr->add_option("--net", margs->network, "network model of an application model's replay (smpi, loggp, ...)")
      ->capture_default_str();
  pr->add_option("--platform,-p", margs->platform, "platform to predict for")->required();
  pr->add_option("--procs", margs->procs, "process counts: 2..64, 2..64:x2, 4..64:+4 or 2,4,8")->capture_default_str();
  pr->add_option("--placement", margs->placement, "spread, pack or a hostfile")->capture_default_str();
  pr->add_option("--threshold", margs->threshold, "turning point: smallest gain worth a step")->capture_default_str();
  pr->add_option("--best-group", margs->best_group, "also name the best K servers of the platform");
  pr->add_option("--group-procs", margs->group_procs, "process count for --best-group (default: the largest of --procs)");
  pr->add_option("--measured", margs->measured, "run files to draw as measured points");
  pr->add_option("--host-map", margs->host_map, "traced host names to platform hosts: vm=e5620-0[,...]");

  pr->add_option("--svg", margs->svg, "write the curves as SVG");
  pr->add_flag("--json", margs->json, "print JSON objects with procs and predicted_s");
  pr->add_option("--grid", margs->grid, "the model's grid classes on MPI_Dims_create's grids: dims_create[:D][:periodic][:transposed]");
  pr->add_option("--grid-file", margs->grid_file, "the model's grid classes on the grids of a file: lines 'N AxB[xC] [periodic]'");
  pr->add_flag("--force", margs->force, "replace an output file that perfcast did not write");
  out.push_back({pr, [margs] { return run_predict(*margs); }});

  auto* cmp = app.add_subcommand("compare", "leave-one-out accuracy of the queueing model and the Amdahl baseline");
  cmp->add_option("runs", margs->runs, "run files")->required();
  cmp->add_option("--platform,-p", margs->platform, "platform the runs were measured on")->required();
  cmp->add_flag("--json", margs->json, "print JSON");
  cmp->add_option("--host-map", margs->host_map, "traced host names to platform hosts: vm=e5620-0[,...]");

  out.push_back({cmp, [margs] { return run_compare(*margs); }});
}

} // namespace perfcast::cli

// perfcast fit qn, perfcast predict and perfcast compare.
#include "Command.hpp"

#include "core/OutputFile.hpp"
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "platform/Platform.hpp"
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

// Amdahl's law's time as printed: a fit outside the law (s < 0, faster than
// linear) falls to zero or below past some count, and that is no time
std::string law_cell(double t) { return t > 0 ? fmt::format("{:.6g}", t) : "n/a"; }

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
  bool work_growth = false; // accepted for older scripts: the default since session 11
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
  std::cout << fmt::format("queueing-network model fitted on {} runs ({}; {} iterations; {} degree{} of freedom)\n",
                           runs.size(), model.fit_message, model.iterations, model.degrees_of_freedom,
                           model.degrees_of_freedom == 1 ? "" : "s");
  auto uncertainty = [&](double relative_se) {
    return model.degrees_of_freedom > 0 ? fmt::format("  (standard error {:.1f}%)", 100 * relative_se)
                                        : std::string("  (uncertainty not estimable)");
  };
  std::cout << fmt::format("  W (computation)       {:.6g} flop{}\n", model.work_flops, uncertainty(model.work_relative_se));
  if (model.work_growth)
    std::cout << fmt::format("  work growth           W(n) = W x ({}) ({}, the runs' recorded work)\n",
                             model.work_growth->describe(), curve_form_name(model.work_growth->form));
  std::cout << fmt::format("  Net_Constant          {:.6g}{}\n", model.net_constant,
                           uncertainty(model.net_constant_relative_se));
  std::cout << fmt::format("  V_comp / V_comm       {:.4f} / {:.4f}\n", model.v_comp, model.v_comm);
  std::cout << fmt::format("  network               {} queue{} per node{}{}\n", model.duplex_nic ? 2 : 1,
                           model.duplex_nic ? "s (full duplex, a transfer holds both at once)" : " (as the paper)",
                           model.latency_delay ? ", route latency as a delay" : ", no start-up time (as the paper)",
                           model.smpi_factors ? ", SMPI's size-dependent factors (the runs are SMPI replays)" : "");
  std::cout << fmt::format("  customers             {}\n", model.node_classes
                                                                ? "one class per node (its processes use its own CPU "
                                                                  "and send queue)"
                                                                : "one class over every node (as the paper)");
  if (model.lockstep)
    std::cout << fmt::format("  lockstep              a node's processes are one customer: its CPU phase the slowest "
                             "rank's ({:.4g} x the mean rank's work), its transfers all of theirs, an exchange as long as the "
                             "busiest link it uses\n",
                             model.imbalance);
  std::cout << fmt::format("  s(n) sends/process    {} ({})\n", model.sends.describe(), curve_form_name(model.sends.form));
  std::cout << fmt::format("  m(n) message bytes    {} ({})\n", model.message_bytes.describe(),
                           curve_form_name(model.message_bytes.form));
  if (model.run_bytes)
    std::cout << fmt::format("  B(n) bytes per run    {} ({}); m(n) = B(n) / (n s(n))\n", model.run_bytes->describe(),
                             curve_form_name(model.run_bytes->form));
  if (model.grid) {
    const GridClasses& g = *model.grid;
    std::cout << fmt::format("  process grid          {} ({}), besides s(n), B(n):\n", g.describe(), g.rule.describe());
    for (const GridClass& k : g.classes)
      std::cout << fmt::format("    {:<14} {:.4g} messages per pair of {:.4g} B x {}^{:.2f} (seen at {})\n", k.name(),
                               k.messages_per_pair, k.bytes, k.cut ? "A" : "n", k.cut ? k.exponent : -k.exponent,
                               [&] {
                                 std::string at;
                                 for (int n : k.seen_at)
                                   at += (at.empty() ? "" : ", ") + std::to_string(n);
                                 return at;
                               }());
    if (!g.silent.empty())
      std::cout << fmt::format("    {} offset{} silent (the training grids had them; nothing was sent)\n",
                               g.silent.size(), g.silent.size() == 1 ? "" : "s");
  }
  if (model.collectives) {
    std::cout << "  collectives           calls a rank (the largest run's), payload c n^-k, expanded at n by the replay's "
                 "default algorithms, besides s(n), B(n):\n";
    for (const CollectiveType& t : model.collectives->types) {
      std::string roots;
      for (const auto& [rank, share] : t.roots)
        roots += fmt::format("{}{} ({:.0f}%)", roots.empty() ? "; root " : ", ", rank, 100 * share);
      std::cout << fmt::format("    {:<14} {:.4g} calls of {:.4g} B x n^-{:.2f}{}\n", t.type, t.calls_per_rank,
                               t.payload_bytes, t.exponent, roots);
    }
  }
  if (model.halo) {
    const HaloExchange& h = *model.halo;
    if (h.periodic)
      std::cout << fmt::format("  halo exchange         {}-D periodic grid across faces: {:.4g} messages per face crossed, "
                               "{:.4g} B x faces F_k(n) (p cut planes a side of p{}), k = {:.2f}; besides s(n), B(n)\n",
                               h.dimensions, h.messages_per_pair, h.bytes,
                               h.to_itself ? "; a side of 1 to the rank itself" : "", h.exponent);
    else
      std::cout << fmt::format("  halo exchange         {}-D grid across {}: {:.4g} messages per neighbour pair, "
                               "{:.4g} B x faces F_k(n), k = {:.2f}; besides s(n), B(n)\n",
                               h.dimensions, h.diagonals ? "faces, edges and corners" : "faces", h.messages_per_pair,
                               h.bytes, h.exponent);
  }
  if (model.self_traffic)
    std::cout << fmt::format("  to itself             {} (seen at {}), kept on the rank's node; besides s(n), B(n)\n",
                             model.self_traffic->describe(), fmt::join(model.self_traffic->seen_at, ", "));
  if (model.size_mix_of_rest) {
    std::vector<std::string> own;
    if (model.grid)
      own.push_back("grid's classes");
    if (model.collectives)
      own.push_back("collectives");
    if (model.self_traffic)
      own.push_back("messages to itself");
    std::cout << fmt::format("  message sizes         the {} at their own sizes, {} size classes beside them; "
                             "SMPI's factors taken per size\n",
                             fmt::join(own, " and the "), model.size_mix.size());
  }
  else if (!model.size_mix.empty())
    std::cout << fmt::format("  message sizes         {} classes; SMPI's factors taken per class\n", model.size_mix.size());
  if (model.hot_receive)
    std::cout << fmt::format("  busiest receiver      {} of the bytes ({}), at least 1/n\n",
                             model.hot_receive->describe(), curve_form_name(model.hot_receive->form));
  if (model.hot_send)
    std::cout << fmt::format("  ... which sends       {} of the bytes ({}), {} of the messages\n",
                             model.hot_send->describe(), curve_form_name(model.hot_send->form),
                             model.hot_send_messages ? model.hot_send_messages->describe() : std::string("1/n"));
  std::cout << fmt::format("  Amdahl baseline       T(n) = {:.6g} + {:.6g} / n\n", amdahl.serial_s, amdahl.parallel_s);
  if (!model.curves_cross_validated)
    std::cout << "  note: fewer than 3 process counts: s(n) and m(n) take the paper's forms, not cross-validated\n";
  std::cout << fmt::format("\n{:>6} {:>12} {:>12} {:>9}  {}\n", "procs", "measured_s", "fitted_s", "error_%", "run");
  for (std::size_t i = 0; i < runs.size(); ++i)
    std::cout << fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>9.2f}  {}\n", runs[i].procs, runs[i].time_s,
                             runs[i].time_s * (1 + model.residuals[i]), 100 * model.residuals[i], runs[i].source);
  const Reliability& rel = model.reliability;
  if (rel.queueing_error >= 0)
    std::cout << fmt::format("\nheld-out runs ({}): queueing model off by {:.1f}%, Amdahl by {:.1f}%: {}\n",
                             rel.method, 100 * rel.queueing_error, 100 * rel.amdahl_error,
                             rel.trusted ? "trusted" : "not trusted");
  std::cout << "\nmodel written to " << a.output << "\n";
  return 0;
}

// predict --grid / --grid-file: the model's classes on other grids of the same dimensionality
void override_grid(QueueingModel& model, const ModelArgs& a)
{
  if (!a.grid.empty() && !a.grid_file.empty())
    throw Error("--grid and --grid-file: give one of them");
  if (!model.grid)
    throw Error(fmt::format("{}: the model has no process grid (fit it with --grid or --grid-file)", a.model));
  GridRule rule;
  if (!a.grid_file.empty()) {
    rule = load_grid_file(a.grid_file);
  } else {
    std::vector<GridRule> rules = grid_rules_from_spec(a.grid);
    // the model's orientation and periodicity unless the spec names them
    rule = model.grid->rule;
    rule.kind = "dims_create";
    rule.grids.clear();
    if (rules.front().dimensions == rules.back().dimensions)
      rule.dimensions = rules.front().dimensions;
    if (a.grid.find(":periodic") != std::string::npos)
      rule.periodic = true;
    if (a.grid.find(":transposed") != std::string::npos)
      rule.transposed = true;
  }
  if (rule.dimensions != model.grid->rule.dimensions)
    throw Error(fmt::format("{}: the grid has {} axes, the model's classes {}", a.grid.empty() ? a.grid_file : "--grid '" + a.grid + "'",
                            rule.dimensions, model.grid->rule.dimensions));
  model.grid->rule = rule;
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
  if (!a.grid.empty() || !a.grid_file.empty())
    override_grid(model, a);
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
  auto runs = load_all_runs(a.runs, a.host_map);
  auto results = leave_one_out(runs, platform);
  std::optional<Extrapolation> extrapolation;
  std::string no_extrapolation;
  try {
    extrapolation = extrapolation_check(runs, platform);
  } catch (const Error& e) {
    no_extrapolation = e.what();
  }
  auto accuracy_json = [](const std::vector<Accuracy>& list) {
    nlohmann::json j = nlohmann::json::array();
    for (const Accuracy& acc : list)
      j.push_back({{"model", acc.model}, {"accuracy_percent", acc.accuracy_percent}, {"cv", acc.cv},
                   {"predicted_s", acc.predicted_s}});
    return j;
  };
  if (a.json) {
    nlohmann::json j = {{"leave_one_out", accuracy_json(results)}};
    if (extrapolation) {
      nlohmann::json tested = nlohmann::json::array();
      for (const MeasuredRun& r : extrapolation->tested)
        tested.push_back({{"procs", r.procs}, {"measured_s", r.time_s}, {"source", r.source}});
      j["extrapolation"] = {{"largest_training_procs", extrapolation->largest_training_procs},
                            {"tested", tested},
                            {"accuracy", accuracy_json(extrapolation->accuracy)}};
    } else {
      j["extrapolation"] = {{"skipped", no_extrapolation}};
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("leave-one-out over {} runs\n\n{:<18} {:>12} {:>8}\n", runs.size(), "model",
                           "accuracy_%", "CV");
  for (const Accuracy& acc : results)
    std::cout << fmt::format("{:<18} {:>12.2f} {:>8.3f}\n", acc.model, acc.accuracy_percent, acc.cv);
  std::cout << fmt::format("\n{:>6} {:>12} {:>12} {:>12}  {}\n", "procs", "measured_s", "queueing_s", "amdahl_s", "run");
  for (std::size_t i = 0; i < runs.size(); ++i)
    std::cout << fmt::format("{:>6} {:>12.6g} {:>12.6g} {:>12}  {}\n", runs[i].procs, runs[i].time_s,
                             results[0].predicted_s[i], law_cell(results[1].predicted_s[i]), runs[i].source);
  if (!extrapolation) {
    std::cout << "\nextrapolation check skipped: " << no_extrapolation << "\n";
    return 0;
  }
  std::cout << fmt::format("\nextrapolation: fitted on runs of at most {} processes, predicting the {} others\n\n"
                           "{:<18} {:>12} {:>8}\n",
                           extrapolation->largest_training_procs, extrapolation->tested.size(), "model", "accuracy_%",
                           "CV");
  for (const Accuracy& acc : extrapolation->accuracy)
    std::cout << fmt::format("{:<18} {:>12.2f} {:>8.3f}\n", acc.model, acc.accuracy_percent, acc.cv);
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
                   "side's scatter (session 14's test; off by default: it failed its held-out criterion)");
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

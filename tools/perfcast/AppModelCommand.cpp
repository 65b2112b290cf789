// perfcast model build, model show and extrapolate: the application model
// learned from a program's traces at a few counts, and its trace at any count
// (src/appmodel, docs/extrapolation.md).
#include "Command.hpp"

#include "appmodel/Extrapolate.hpp"
#include "appmodel/ModelBuild.hpp"
#include "appmodel/ReplayPrediction.hpp"
#include "net/NetworkModel.hpp"
#include "qn/Study.hpp"
#include "appmodel/TraceCompare.hpp"
#include "trace/TraceDirectory.hpp"
#include "core/Error.hpp"
#include "core/OutputFile.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace perfcast::cli {

namespace {

struct BuildArgs {
  std::vector<std::string> traces;
  std::string out;
  std::string grid;
  std::string grid_file;
  bool force = false;
  bool quiet = false;
};

ModelBuildOptions build_options(const std::string& grid, const std::string& grid_file, bool quiet)
{
  ModelBuildOptions o;
  if (!grid.empty() && !grid_file.empty())
    throw Error("--grid and --grid-file: give one of them");
  if (!grid_file.empty())
    o.grids = {load_grid_file(grid_file)};
  else if (!grid.empty())
    o.grids = grid_rules_from_spec(grid);
  o.grid_given = !o.grids.empty();
  if (!quiet && isatty(STDERR_FILENO))
    o.progress = [](const std::string& line) { std::cerr << "model build: " << line << "\n"; };
  return o;
}

// a single file that holds a model (rather than a trace index or directory)
bool is_model_file(const std::vector<std::string>& inputs)
{
  if (inputs.size() != 1 || std::filesystem::is_directory(inputs[0]))
    return false;
  std::ifstream in(inputs[0]);
  char c = 0;
  while (in.get(c) && std::isspace(static_cast<unsigned char>(c))) {
  }
  return c == '{';
}

int run_build(const BuildArgs& a)
{
  OutputTarget target = check_output(a.out, "application model", a.force);
  AppModel model = build_app_model(a.traces, build_options(a.grid, a.grid_file, a.quiet));
  write_output(target, app_model_to_json(model).dump(1) + "\n");
  if (!a.quiet)
    std::cout << describe_app_model(model) << "wrote " << a.out << "\n";
  return 0;
}

struct ShowArgs {
  std::string model;
  bool json = false;
};

int run_show(const ShowArgs& a)
{
  AppModel model = load_app_model(a.model);
  if (a.json)
    std::cout << app_model_to_json(model).dump(2) << "\n";
  else
    std::cout << describe_app_model(model);
  return 0;
}

struct ExtrapolateArgs {
  std::vector<std::string> inputs;
  int procs = 0;
  std::string out;
  std::string grid;
  std::string grid_file;
  std::string compare;
  bool force = false;
  bool json = false;
};

int run_extrapolate(const ExtrapolateArgs& a)
{
  AppModel model;
  if (is_model_file(a.inputs)) {
    if (!a.grid.empty() || !a.grid_file.empty())
      throw Error("--grid: the model file already holds its grid (give --grid to perfcast model build)");
    model = load_app_model(a.inputs[0]);
  } else
    model = build_app_model(a.inputs, build_options(a.grid, a.grid_file, a.json));
  ExtrapolationPlan plan(model, a.procs);
  std::string real = a.compare.empty() ? std::string() : trace_index_for(a.compare);
  ExtrapolationSummary s = write_extrapolated_trace(plan, a.out, a.force);
  print_warnings(s.warnings());
  if (!real.empty()) {
    TraceComparison c = compare_traces(real, s.index);
    if (a.json) {
      nlohmann::json j = s.to_json();
      j["comparison"] = c.to_json();
      std::cout << j.dump(2) << "\n";
    } else
      std::cout << s.text() << c.text();
    return 0;
  }
  if (a.json)
    std::cout << s.to_json().dump(2) << "\n";
  else
    std::cout << s.text();
  return 0;
}

} // namespace

bool is_app_model_file(const std::string& path)
{
  std::ifstream in(path);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head.find("\"perfcast-app-model\"") != std::string::npos;
}

int run_app_predict(const std::string& model_path, const std::string& platform_path, const std::string& procs,
                    const std::string& placement, const std::string& network, bool json)
{
  check_network_model_name(network);
  AppModel model = load_app_model(model_path);
  Platform platform = load_platform(platform_path);
  ReplayOptions options;
  options.network = network;
  ReplayPredictions p = predict_by_replay(model, parse_proc_counts(procs), platform, placement, options);
  print_warnings(p.warnings());
  if (json)
    std::cout << p.to_json().dump(2) << "\n";
  else
    std::cout << p.text();
  return 0;
}

void add_appmodel_commands(CLI::App& app, std::vector<Command>& out)
{
  auto* model = app.add_subcommand("model", "the application model learned from traces at a few process counts");
  model->require_subcommand(1);

  auto b = std::make_shared<BuildArgs>();
  auto* build = model->add_subcommand("build", "learn the model from traces of one program at several counts");
  build->add_option("traces", b->traces, "trace indexes or directories written by perfcast trace, one per count")
      ->required();
  build->add_option("-o,--output", b->out, "model file to write (JSON)")->required();
  build->add_option("--grid", b->grid,
                    "the process grid: dims_create[:D][:periodic|:transposed] (default: detected from the partners)");
  build->add_option("--grid-file", b->grid_file, "file of 'N AxB[xC] [periodic]' lines, the grid of each count");
  build->add_flag("--force", b->force, "replace an output file perfcast did not write");
  build->add_flag("-q,--quiet", b->quiet, "print nothing but errors");
  out.push_back({build, [b] { return run_build(*b); }});

  auto s = std::make_shared<ShowArgs>();
  auto* show = model->add_subcommand("show", "print a model's structure and laws for a person to check");
  show->add_option("model", s->model, "model file written by perfcast model build")->required();
  show->add_flag("--json", s->json, "print the model's JSON");
  out.push_back({show, [s] { return run_show(*s); }});

  auto e = std::make_shared<ExtrapolateArgs>();
  auto* ex = app.add_subcommand("extrapolate", "write the program's trace at another process count");
  ex->add_option("inputs", e->inputs, "a model file, or traces of the program at several counts")->required();
  ex->add_option("--procs", e->procs, "process count of the trace to write")->required();
  ex->add_option("-o,--output", e->out, "trace directory to write (index.txt, rank-R.txt)")->required();
  ex->add_option("--grid", e->grid, "the process grid, when learning from traces (as model build)");
  ex->add_option("--grid-file", e->grid_file, "file of each count's grid, when learning from traces");
  ex->add_option("--compare", e->compare, "a real trace at --procs to compare the written one with, action by action");
  ex->add_flag("--force", e->force, "write into a directory that holds other files (only perfcast's are replaced)");
  ex->add_flag("--json", e->json, "print a JSON summary");
  out.push_back({ex, [e] { return run_extrapolate(*e); }});
}

} // namespace perfcast::cli

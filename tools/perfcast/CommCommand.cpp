// perfcast comm run / comm report: the communication of the MPI version of a
// sequential program, estimated from its value flow (src/comm, docs/comm.md).
#include "Command.hpp"

#include "comm/CommRun.hpp"
#include "comm/Synth.hpp"
#include "core/Error.hpp"
#include "core/Units.hpp"
#include "qn/Study.hpp"

#include <cmath>
#include <filesystem>
#include <regex>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

namespace perfcast::cli {

namespace {

struct CommRunArgs {
  std::string procs = "2..64:x2";
  std::string dir;
  std::string region;
  std::string memory_limit;
  int heatmap_procs = 0;
  bool force = false;
  std::vector<std::string> command;
};

int run_comm_run(const CommRunArgs& a)
{
#ifndef PERFCAST_HAVE_COMMPASS
  throw Error("perfcast comm run: perfcast was built without LLVM 19, so there is no perfcast-cc to build the program "
              "with; install the Debian packages clang-19, llvm-19-dev and flang-19 (scripts/install-deps.sh) and "
              "rebuild");
#endif
  comm::CommRunOptions o;
  try {
    o.procs = parse_proc_counts(a.procs);
  } catch (const Error& e) {
    throw Error(fmt::format("--procs: {}", e.what()));
  }
  if (!a.memory_limit.empty()) {
    auto bytes = parse_bytes(a.memory_limit);
    if (!bytes || *bytes < 1 || !std::isfinite(*bytes))
      throw Error(fmt::format("--memory-limit {}: expected a size such as 4GiB or 512MB", a.memory_limit));
    o.memory_limit = static_cast<std::uint64_t>(*bytes);
  }
  o.dir = a.dir;
  o.region = a.region;
  o.heatmap_procs = a.heatmap_procs;
  o.force = a.force;
  o.command = a.command;
  comm::CommResult result = comm::run_comm_analysis(o);
  std::cout << comm::format_comm_report(comm::comm_to_json(result, o.command), a.dir + "/comm.json");
  return 0;
}

int run_comm_report(const std::string& dir, bool json)
{
  std::string path = dir + "/comm.json";
  std::ifstream in(path);
  if (!in)
    fail_in(path, "cannot read (expected a directory written by perfcast comm run)");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded())
    fail_in(path, "expected JSON");
  if (json)
    std::cout << doc.dump(2) << "\n";
  else
    std::cout << comm::format_comm_report(doc, path);
  return 0;
}

struct CommSynthArgs {
  std::string dir;
  int procs = 0;
  double flops_per_value = 0;
  std::string output;
  bool force = false;
};

int run_comm_synth(const CommSynthArgs& a)
{
  namespace fs = std::filesystem;
  if (fs::exists(a.output)) {
    if (!fs::is_directory(a.output))
      throw Error(fmt::format("{}: exists and is not a directory (expected a trace directory)", a.output));
    static const std::regex ours(R"(trace\.txt|rank-[0-9]+\.txt)");
    for (const auto& entry : fs::directory_iterator(a.output))
      if (!a.force && !std::regex_match(entry.path().filename().string(), ours))
        throw Error(fmt::format("{}: holds '{}', which a trace does not (expected a new or trace directory, or "
                                "--force)",
                                a.output, entry.path().filename().string()));
  }
  comm::ValueGraph graph = comm::read_value_graph(a.dir + "/values.graph");
  comm::SynthOptions o;
  o.procs = a.procs;
  o.flops_per_value = a.flops_per_value;
  if (a.flops_per_value == 0) { // not given: the cost comm run measured on the plain run
    std::string path = a.dir + "/comm.json";
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    const nlohmann::json* rate = nullptr;
    if (!doc.is_discarded() && doc.is_object() && doc.contains("plain") && doc["plain"].is_object() &&
        doc["plain"].contains("flops_per_value") && doc["plain"]["flops_per_value"].is_number())
      rate = &doc["plain"]["flops_per_value"];
    if (!rate || !(rate->get<double>() > 0))
      fail_in(path, "expected plain.flops_per_value, the cost of a value measured by perfcast comm run (or give "
                    "--flops-per-value)");
    o.flops_per_value = rate->get<double>();
  }
  o.output = a.output;
  comm::write_synthetic_trace(graph, o);
  std::cout << fmt::format("wrote {}/trace.txt: {} processes, {} region calls\n", a.output, a.procs,
                           graph.iterations());
  return 0;
}

} // namespace

void add_comm_commands(CLI::App& app, std::vector<Command>& out)
{
  auto* comm = app.add_subcommand("comm", "communication of the MPI version of a sequential program, from its "
                                          "value flow (build it with perfcast-cc)");
  comm->require_subcommand(1);
  auto r = std::make_shared<CommRunArgs>();
  auto* run = comm->add_subcommand("run", "run a program built with perfcast-cc and estimate its communication: "
                                          "perfcast comm run -o DIR -- ./app ARGS");
  run->add_option("-o,--output", r->dir, "directory for comm.json, values.graph, bytes.svg and matrix.svg")->required();
  run->add_option("--procs", r->procs, "process counts: 2..64 (each), 2..64:x2 (doubling) or 2,4,8")
      ->capture_default_str();
  run->add_option("--region", r->region, "analyse only the calls of this function (the main loop's body)");
  run->add_option("--memory-limit", r->memory_limit, "stop the analysis when it needs more memory (e.g. 4GiB)");
  run->add_option("--heatmap-procs", r->heatmap_procs,
                  "process count whose communication matrix matrix.svg draws (one of --procs; default the largest)");
  run->add_flag("--force", r->force, "write into a directory holding files perfcast did not write");
  run->add_option("command", r->command, "the instrumented program and its arguments, after --")->required();
  out.push_back({run, [r] { return run_comm_run(*r); }});
  auto dir = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* report = comm->add_subcommand("report", "print the estimates of a perfcast comm run directory");
  report->add_option("dir", *dir, "directory written by perfcast comm run")->required();
  report->add_flag("--json", *json, "print comm.json");
  out.push_back({report, [dir, json] { return run_comm_report(*dir, *json); }});
  auto sy = std::make_shared<CommSynthArgs>();
  auto* synth = comm->add_subcommand("synth", "write the time-independent trace of the MPI version predicted by a "
                                              "perfcast comm run directory, for perfcast replay");
  synth->add_option("dir", sy->dir, "directory written by perfcast comm run")->required();
  synth->add_option("--procs", sy->procs, "processes of the predicted MPI run")->required();
  synth->add_option("--flops-per-value", sy->flops_per_value,
                    "compute cost of one value computed in the region (flops); default: the cost comm run "
                    "measured on the plain run (comm.json plain.flops_per_value)");
  synth->add_option("-o,--output", sy->output, "trace directory (trace.txt and rank-N.txt)")->required();
  synth->add_flag("--force", sy->force, "write into a directory holding files a trace does not");
  out.push_back({synth, [sy] { return run_comm_synth(*sy); }});
}

} // namespace perfcast::cli

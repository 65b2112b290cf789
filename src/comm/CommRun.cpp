#include "comm/CommRun.hpp"

#include "comm/CommSvg.hpp"
#include "comm/Singletons.hpp"
#include "core/AtomicFile.hpp"
#include "core/ChildProcess.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputFile.hpp"
#include "core/Version.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <memory>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>


namespace perfcast::comm {

namespace fs = std::filesystem;

namespace {

const char* const kOurFiles[] = {"comm.json", "values.graph", "bytes.svg", "matrix.svg"};

// Refuses a directory holding files perfcast comm did not write (unless
// forced); returns whether the directory had to be created.
bool prepare_directory(const std::string& dir, bool force)
{
  fs::path out(dir);
  if (fs::exists(out) && !fs::is_directory(out))
    throw Error(fmt::format("{}: exists and is not a directory", dir));
  if (create_output_directory(dir, "analysis")) // only the last part of the path, never a chain
    return true;
  for (const auto& entry : fs::directory_iterator(out)) {
    std::string name = entry.path().filename().string();
    bool ours = std::find(std::begin(kOurFiles), std::end(kOurFiles), name) != std::end(kOurFiles);
    if (!ours && !force)
      throw Error(fmt::format("{}: the directory holds '{}', which perfcast comm did not write (expected an empty or "
                              "new directory, one written by perfcast comm run, or --force)",
                              dir, name));
  }
  return false;
}

std::string read_text(const fs::path& p)
{
  std::ifstream in(p);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

// Removes what the run left behind when it failed; the directory too if this run made it.
struct Cleanup {
  std::vector<fs::path> files;
  fs::path dir;
  bool created = false;
  bool done = false;
  ~Cleanup()
  {
    if (done)
      return;
    std::error_code ec;
    for (const fs::path& f : files)
      fs::remove(f, ec);
    if (created && fs::is_empty(dir, ec))
      fs::remove(dir, ec);
  }
};

} // namespace

PlainRun read_plain_run(const std::string& path, const ValueGraph& graph)
{
  std::ifstream in(path);
  std::string key;
  double value = 0;
  PlainRun p;
  int line = 0;
  bool header = false;
  while (in >> key >> value) {
    ++line;
    if (key == "perfcast-comm-plain")
      header = value == 1;
    else if (key == "region_cpu_seconds")
      p.region_cpu_seconds = value;
    else if (key == "cpu_seconds")
      p.cpu_seconds = value;
    else if (key == "flop_rate")
      p.flop_rate = value;
  }
  if (!header || !(p.flop_rate > 0))
    throw Error(fmt::format("{}:{}: expected the times of a plain run (perfcast-comm-plain 1 ... flop_rate R)", path,
                            line + 1));
  std::uint64_t values = 0;
  for (const ValueVertex& v : graph.vertices)
    values += v.work;
  if (values)
    p.flops_per_value = p.region_cpu_seconds * p.flop_rate / static_cast<double>(values);
  return p;
}

CommResult analyse_graph(ValueGraph graph, const std::vector<int>& procs, const std::string& what)
{
  if (!graph.region.empty() && !graph.region_matched)
    throw Error(fmt::format("--region {}: no instrumented function of {} has that name", graph.region, what));
  if (!graph.region.empty() && graph.region_calls == 0)
    throw Error(fmt::format("--region {}: {} never entered the region", graph.region, what));
  CommResult result;
  result.singletons = detect_singletons(graph);
  result.estimates = estimate_with_singletons(graph, result.singletons, procs);
  result.graph = std::move(graph);
  return result;
}

CommResult run_comm_analysis(const CommRunOptions& o)
{
  if (o.command.empty())
    throw Error("perfcast comm run: no program to run (expected: perfcast comm run -o DIR -- ./app ARGS)");
  if (o.procs.empty())
    throw Error("--procs: expected at least one process count");
  int heatmap = o.heatmap_procs ? o.heatmap_procs : *std::max_element(o.procs.begin(), o.procs.end());
  if (std::find(o.procs.begin(), o.procs.end(), heatmap) == o.procs.end())
    throw Error(fmt::format("--heatmap-procs {}: expected one of the --procs counts", o.heatmap_procs));
  Cleanup cleanup;
  cleanup.dir = fs::absolute(o.dir);
  cleanup.created = prepare_directory(o.dir, o.force);
  // a Ctrl-C during the analysis, which has no point to stop at, still removes what the run made
  std::unique_ptr<CleanupOnInterrupt> made_here;
  if (cleanup.created)
    made_here = std::make_unique<CleanupOnInterrupt>(cleanup.dir.string());
  fs::path graph_path = cleanup.dir / fmt::format(".values-{}.graph", ::getpid());
  cleanup.files = {graph_path, graph_path.string() + ".partial", graph_path.string() + ".limit"};
  std::vector<std::string> env{"PERFCAST_COMM_OUT=" + graph_path.string()};
  if (!o.region.empty())
    env.push_back("PERFCAST_COMM_REGION=" + o.region);
  if (o.memory_limit)
    env.push_back(fmt::format("PERFCAST_COMM_MEMORY_LIMIT={}", o.memory_limit));
  auto start = std::chrono::steady_clock::now();
  const ChildExit status = run_child(o.command, env, {"PERFCAST_COMM_"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string& program = o.command[0];
  if (fs::exists(cleanup.files[2]))
    throw Error(fmt::format("{}: the analysis stopped at --memory-limit {}: {} (nothing written to {})", program,
                            o.memory_limit, read_text(cleanup.files[2]), o.dir));
  if (status.signal)
    throw Error(fmt::format("{}: killed by signal {} ({}) under instrumentation (nothing written to {})", program,
                            status.signal, strsignal(status.signal), o.dir));
  if (status.exit_code != 0)
    throw Error(fmt::format("{}: exited with status {} under instrumentation (nothing written to {})", program,
                            status.exit_code, o.dir));
  if (!fs::exists(graph_path))
    throw Error(fmt::format("{}: wrote no value graph; build it with perfcast-cc, perfcast-c++ or perfcast-fortran "
                            "(the comm pass, from the clang-19 and llvm-19-dev packages)",
                            program));
  CommResult result = analyse_graph(read_value_graph(graph_path.string()), o.procs, program);
  result.seconds = seconds;
  // the same binary again, uninstrumented, for what a value costs
  fs::path plain_path = cleanup.dir / fmt::format(".plain-{}.txt", ::getpid());
  cleanup.files.push_back(plain_path);
  std::vector<std::string> plain_env{"PERFCAST_COMM_OUT=" + plain_path.string(), "PERFCAST_COMM_PLAIN=1"};
  if (!o.region.empty())
    plain_env.push_back("PERFCAST_COMM_REGION=" + o.region);
  const ChildExit plain = run_child(o.command, plain_env, {"PERFCAST_COMM_"});
  if (plain.signal || plain.exit_code != 0)
    throw Error(fmt::format("{}: its plain (uninstrumented) run failed ({}) (nothing written to {})", program,
                            plain.signal ? fmt::format("signal {}", plain.signal)
                                         : fmt::format("exit status {}", plain.exit_code),
                            o.dir));
  if (!fs::exists(plain_path))
    throw Error(fmt::format("{}: its plain run reported no times; rebuild it with this perfcast's perfcast-cc "
                            "(binaries from before it have no plain copies)",
                            program));
  result.plain = read_plain_run(plain_path.string(), result.graph);
  std::error_code not_removed; // a leftover hidden file is harmless
  fs::remove(plain_path, not_removed);
  std::string json = comm_to_json(result, o.command).dump(2) + "\n";
  fs::path final_graph = cleanup.dir / "values.graph";
  std::error_code ec;
  fs::rename(graph_path, final_graph, ec);
  if (ec)
    throw Error(fmt::format("{}: cannot keep the value graph: {}", final_graph.string(), ec.message()));
  cleanup.files.push_back(final_graph);
  std::string program_line = fmt::format("{}{}", fs::path(program).filename().string(),
                                         result.graph.region.empty() ? std::string(", the whole run")
                                                                     : ", region " + result.graph.region);
  cleanup.files.push_back(cleanup.dir / "bytes.svg");
  write_file_atomically(cleanup.files.back().string(), comm_bytes_svg(result.estimates, program_line));
  for (const CommEstimate& e : result.estimates)
    if (e.procs == heatmap) {
      cleanup.files.push_back(cleanup.dir / "matrix.svg");
      write_file_atomically(cleanup.files.back().string(), comm_matrix_svg(e, program_line));
      break;
    }
  write_file_atomically((cleanup.dir / "comm.json").string(), json);
  cleanup.done = true;
  if (made_here)
    made_here->release();
  return result;
}

nlohmann::json comm_to_json(const CommResult& result, const std::vector<std::string>& command)
{
  const ValueGraph& g = result.graph;
  Singletons detected; // when the result does not carry them
  if (result.singletons.kind.size() != g.vertices.size())
    detected = detect_singletons(g);
  const Singletons& s = result.singletons.kind.size() == g.vertices.size() ? result.singletons : detected;
  std::size_t broadcasts = 0, allreduces = 0, reduces = 0;
  for (SingletonKind k : s.kind) {
    broadcasts += k == SingletonKind::Broadcast;
    allreduces += k == SingletonKind::Allreduce;
    reduces += k == SingletonKind::Reduce;
  }
  nlohmann::json estimates = nlohmann::json::array();
  for (const CommEstimate& e : result.estimates)
    estimates.push_back({{"procs", e.procs},
                         {"bytes", e.bytes()},
                         {"p2p_bytes", e.p2p_bytes},
                         {"collective_bytes", e.collective_bytes},
                         {"messages", e.messages},
                         {"collectives", e.collectives},
                         {"iterations", e.iterations},
                         {"partition", e.partition},
                         {"matrix", e.matrix}});
  return {{"format", "perfcast-comm"},
          {"version", 1},
          {"generator", kPerfcastGenerator},
          {"command", command},
          {"region", g.region.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.region)},
          {"iterations", g.iterations()},
          {"seconds", result.seconds},
          {"plain",
           {{"region_cpu_seconds", result.plain.region_cpu_seconds},
            {"cpu_seconds", result.plain.cpu_seconds},
            {"flop_rate", result.plain.flop_rate},
            {"flops_per_value", result.plain.flops_per_value}}},
          {"analysis",
           {{"values", g.counts.values},
            {"copies", g.counts.copies},
            {"inputs", g.counts.inputs},
            {"outputs", g.counts.outputs},
            {"vertices", g.vertices.size()},
            {"edges", g.edges.size()},
            {"lost_flows", g.counts.lost_flows},
            {"unhandled_instructions", g.counts.unhandled},
            {"peak_bytes", g.counts.peak_bytes}}},
          {"singletons", {{"broadcasts", broadcasts}, {"allreduces", allreduces}, {"reduces", reduces},
                          {"degree_centroid", s.centroid}}},
          {"estimates", estimates}};
}

std::string format_comm_report(const nlohmann::json& comm, const std::string& name)
{
  if (!comm.is_object() || comm.value("format", "") != "perfcast-comm" || !(comm.contains("version") && comm["version"] == 1))
    fail_in(name, "expected a perfcast-comm version 1 document (DIR/comm.json of perfcast comm run)");
  try {
    std::string out;
    std::string command;
    for (const auto& c : comm.at("command"))
      command += (command.empty() ? "" : " ") + c.get<std::string>();
    auto iterations = comm.at("iterations").get<std::uint64_t>();
    out += fmt::format("program: {}\n", command);
    out += comm.at("region").is_null()
               ? std::string("region: the whole run\n")
               : fmt::format("region: {} ({} calls; figures per call)\n", comm.at("region").get<std::string>(),
                             iterations);
    const auto& a = comm.at("analysis");
    const auto& s = comm.at("singletons");
    out += fmt::format("values: {} created, {} copies, {} inputs, {} graph vertices, {} edges\n",
                       a.at("values").get<std::uint64_t>(), a.at("copies").get<std::uint64_t>(),
                       a.at("inputs").get<std::uint64_t>(), a.at("vertices").get<std::uint64_t>(),
                       a.at("edges").get<std::uint64_t>());
    out += fmt::format("singletons: {} broadcast, {} allreduce, {} reduce\n", s.at("broadcasts").get<std::uint64_t>(),
                       s.at("allreduces").get<std::uint64_t>(), s.at("reduces").get<std::uint64_t>());
    if (auto lost = a.at("lost_flows").get<std::uint64_t>(); lost)
      out += fmt::format("warning: {} register value flows were lost (sets reclaimed before use)\n", lost);
    if (auto unhandled = a.at("unhandled_instructions").get<std::uint64_t>(); unhandled)
      out += fmt::format("warning: {} instructions were not modelled (atomics, inline assembly)\n", unhandled);
    out += fmt::format("\n{:>6} {:>14} {:>14} {:>14} {:>10} {:>8}\n", "procs", "bytes", "p2p_bytes",
                       "coll_bytes", "messages", "colls");
    double per = iterations ? static_cast<double>(iterations) : 1.0;
    for (const auto& e : comm.at("estimates"))
      out += fmt::format("{:>6} {:>14.1f} {:>14.1f} {:>14.1f} {:>10.1f} {:>8.1f}\n", e.at("procs").get<int>(),
                         e.at("bytes").get<double>() / per, e.at("p2p_bytes").get<double>() / per,
                         e.at("collective_bytes").get<double>() / per, e.at("messages").get<double>() / per,
                         e.at("collectives").get<double>() / per);
    return out;
  } catch (const nlohmann::json::exception& e) {
    fail_in(name, fmt::format("expected the fields of perfcast-comm version 1 ({})", e.what()));
  }
}

} // namespace perfcast::comm

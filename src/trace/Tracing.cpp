#include "trace/Tracing.hpp"

#include "core/AtomicFile.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputFile.hpp"
#include "trace/MpiFlavour.hpp"
#include "trace/Preload.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace perfcast {

namespace fs = std::filesystem;

std::string find_tracer_library(const std::string& mpi)
{
  if (const char* env = std::getenv("PERFCAST_TRACER_LIB"); env && *env) {
    if (!fs::exists(env))
      throw Error(fmt::format("PERFCAST_TRACER_LIB={}: no such file", env));
    return fs::absolute(env).string();
  }
  if (mpi != "openmpi" && mpi != "mpich")
    throw Error(fmt::format("--mpi '{}': expected auto, openmpi or mpich", mpi));
  std::string file = mpi == "mpich" ? "libperfcast_tracer_mpich.so" : "libperfcast_tracer.so";
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // beside the binary in a build tree; PREFIX/LIBDIR/perfcast once installed
    for (const fs::path& candidate :
         {self.parent_path() / file, self.parent_path().parent_path() / PERFCAST_TRACER_INSTALL_DIR / file})
      if (fs::exists(candidate))
        return candidate.string();
  }
  throw Error(fmt::format("the tracer library {} was not found beside perfcast (build perfcast with {} installed, "
                          "or set PERFCAST_TRACER_LIB)",
                          file, mpi == "mpich" ? "MPICH (libmpich-dev)" : "Open MPI (libopenmpi-dev)"));
}

namespace {

bool child_shares_terminal = false;

// whether a rank of the run began its trace
bool has_rank_trace(const std::string& dir)
{
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("rank-", 0) == 0 && entry.path().extension() == ".txt")
      return true;
  }
  return false;
}

std::string last_line(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff start = std::max<std::streamoff>(0, size - 4096);
  in.seekg(start);
  std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r'))
    tail.pop_back();
  auto nl = tail.rfind('\n');
  return nl == std::string::npos ? tail : tail.substr(nl + 1);
}

// the value of NAME in `env` (entries NAME=VALUE), or nullptr
std::string* find_env(std::vector<std::string>& env, const std::string& name)
{
  for (auto& kv : env)
    if (kv.rfind(name + "=", 0) == 0)
      return &kv;
  return nullptr;
}

} // namespace

TracedRun run_traced(const std::string& dir, bool force, const std::vector<std::string>& command,
                     const std::string& mpi)
{
  if (command.empty())
    throw Error("perfcast trace: no command to run (expected: perfcast trace -o DIR -- mpirun -np 4 ./app)");
  std::string library = find_tracer_library(choose_mpi(command, mpi).mpi);
  // the rule of every output (core/OutputFile): perfcast replaces what it
  // wrote; a directory holding anything else needs --force, which still
  // removes only perfcast's files; a directory made for this run goes again
  // when the run fails before any rank wrote its trace
  OutputDirectory directory(dir, "trace", force, [](const fs::directory_entry& entry) {
    const std::string name = entry.path().filename().string();
    return entry.is_regular_file() && (name.rfind("rank-", 0) == 0 || name == "trace.txt" || name == "profile.json");
  });
  for (const fs::path& p : directory.earlier_files())
    fs::remove(p);
  fs::path out = fs::absolute(dir);
  // the environment of the command: the tracer preloaded, the directory named
  std::vector<std::string> env;
  std::string preload = library;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("LD_PRELOAD=", 0) == 0)
      preload += ":" + kv.substr(11);
    else if (kv.rfind("PERFCAST_TRACE_DIR=", 0) != 0)
      env.push_back(kv);
  }
  // a sanitized tracer in an uninstrumented program: its ASan runtime must be
  // the first library loaded, and Open MPI's own leaks (mpirun, orted and the
  // ranks are all preloaded) are not the tracer's to report
  if (std::string asan = sanitizer_runtime_of(library); !asan.empty()) {
    if (preload.find(asan) == std::string::npos)
      preload = asan + ":" + preload;
    if (std::string* options = find_env(env, "ASAN_OPTIONS"); !options)
      env.push_back("ASAN_OPTIONS=detect_leaks=0");
    else if (options->find("detect_leaks") == std::string::npos)
      *options += ":detect_leaks=0";
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("PERFCAST_TRACE_DIR=" + out.string());
  // Open MPI's mpirun follows a SIGTERM to its ranks with a SIGKILL after this
  // many seconds (0 by default): leave the tracer time to write what it holds.
  // 5 s, not 2: on a loaded machine a rank took more than 2 s to run its
  // handler, and its trace lost the "incomplete" marker.
  if (!std::getenv("OMPI_MCA_odls_base_sigkill_timeout"))
    env.push_back("OMPI_MCA_odls_base_sigkill_timeout=5");
  std::vector<char*> envp, argv;
  for (auto& s : env)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (auto& s : args)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  // Off a terminal the command gets its own process group: a signal to ours
  // (timeout, a batch system) then reaches it once, through forward_signal.
  // Open MPI's mpirun treats a second SIGINT or SIGTERM as "kill now" and
  // would not let the ranks flush. On a terminal it stays in the foreground
  // group (it may read standard input) and Ctrl-C reaches it directly.
  child_shares_terminal = ::isatty(STDIN_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (!child_shares_terminal) {
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  }
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    throw Error(fmt::format("cannot run '{}': {}", command[0], std::strerror(rc)));
  int status = 0;
  {
    // Ctrl-C: on a terminal the command got it too; off one the watchdog
    // forwards it to the command's group once, then stops it if it lingers
    ChildOnInterrupt stop_on_interrupt(pid, !child_shares_terminal);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  std::error_code ec_ignored;
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  // files the tracer keeps disk space in; a rank killed outright leaves its own
  for (const auto& entry : fs::directory_iterator(out)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("rank-", 0) == 0 && entry.path().extension() == ".reserve")
      fs::remove(entry.path(), ec_ignored);
  }
  if (interrupt_signal() && !has_rank_trace(out.string()))
    throw_if_interrupted(); // stopped before any rank began: nothing to keep
  TracedRun run{exit_code, read_run_profile(out.string())};
  directory.keep(); // the ranks' traces are the run's result, complete or not
  run.interrupted = interrupt_signal();
  try {
    write_trace_index_and_profile(run.profile);
  } catch (const Error& e) {
    // a full disk often stops the ranks first: say why they stopped too
    std::string why = e.what();
    for (const RankProfile& r : run.profile.ranks)
      if (!r.complete)
        why += fmt::format("; rank {} stopped early: {}", r.rank, r.ended_by);
    throw Error(why);
  }
  return run;
}

std::vector<TracedRankHeader> read_trace_headers(const std::string& dir)
{
  RunProfile listing = read_run_profile(dir);
  std::vector<TracedRankHeader> headers;
  for (const RankProfile& rank : listing.ranks) {
    std::string path = fmt::format("{}/rank-{}.txt", dir, rank.rank);
    std::ifstream in(path);
    if (!in)
      fail_in(path, "cannot read the rank's trace");
    std::string line;
    std::getline(in, line);
    const std::string mark = "# perfcast: header ";
    if (line.rfind(mark, 0) != 0)
      fail_at(path, 1, "expected '# perfcast: header version=2 ...' (a trace written by an older tracer?)");
    std::map<std::string, std::string> fields;
    std::istringstream tokens(line.substr(mark.size()));
    for (std::string token; tokens >> token;) {
      auto eq = token.find('=');
      if (eq == std::string::npos || eq == 0)
        fail_at(path, 1, fmt::format("header field '{}': expected key=value", token));
      fields[token.substr(0, eq)] = token.substr(eq + 1);
    }
    auto text = [&](const char* key) {
      auto it = fields.find(key);
      if (it == fields.end() || it->second.empty())
        fail_at(path, 1, fmt::format("header: expected a field {}=...", key));
      return it->second;
    };
    auto number = [&](const char* key) {
      std::string v = text(key);
      char* end = nullptr;
      errno = 0;
      double x = std::strtod(v.c_str(), &end);
      if (*end != 0 || errno != 0 || !(x >= 0))
        fail_at(path, 1, fmt::format("header: {}={}: expected a non-negative number", key, v));
      return x;
    };
    if (text("version") != "2")
      fail_at(path, 1, fmt::format("header: version={}: expected 2", text("version")));
    TracedRankHeader h;
    h.rank = static_cast<int>(number("rank"));
    h.size = static_cast<int>(number("size"));
    if (h.rank != rank.rank)
      fail_at(path, 1, fmt::format("header: rank={}: expected {} (the file's name)", h.rank, rank.rank));
    h.host = text("host");
    h.compute_unit = text("compute_unit");
    if (h.compute_unit != "flops" && h.compute_unit != "instructions")
      fail_at(path, 1, fmt::format("header: compute_unit={}: expected flops or instructions", h.compute_unit));
    h.flops_per_s = number("flops_per_s");
    h.instructions_per_s = number("instructions_per_s");
    h.compute_threads = text("compute_threads");
    h.thread_level = text("thread_level");
    h.compute_clock = fields.count("compute_clock") ? fields["compute_clock"] : "wall";
    h.rank_flops_per_s = fields.count("rank_flops_per_s") ? number("rank_flops_per_s") : h.flops_per_s;
    h.program = fields.count("program") ? fields["program"] : "";
    headers.push_back(std::move(h));
  }
  return headers;
}

RunProfile read_run_profile(const std::string& dir)
{
  RunProfile p;
  p.dir = dir;
  if (!fs::is_directory(dir))
    fail_in(dir, "not a trace directory");
  int ranks = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    int r = -1;
    if (std::sscanf(name.c_str(), "rank-%d.txt", &r) == 1 && name == fmt::format("rank-{}.txt", r))
      ranks = std::max(ranks, r + 1);
  }
  if (ranks == 0)
    fail_in(dir, "no rank trace (rank-0.txt, ...): was the program an MPI program, run through mpirun?");
  p.complete = true;
  for (int r = 0; r < ranks; ++r) {
    RankProfile rp;
    rp.rank = r;
    std::string trace = fmt::format("{}/rank-{}.txt", dir, r);
    if (!fs::exists(trace)) {
      rp.ended_by = "no trace file";
    } else {
      std::string last = last_line(trace);
      rp.complete = last == "# perfcast: complete";
      if (!rp.complete) {
        const std::string mark = "# perfcast: incomplete (";
        rp.ended_by = last.rfind(mark, 0) == 0 ? last.substr(mark.size(), last.size() - mark.size() - 1)
                                               : "killed without a chance to write (SIGKILL?)";
      }
    }
    std::string prof = fmt::format("{}/rank-{}.profile.json", dir, r);
    if (fs::exists(prof)) {
      try {
        std::ifstream in(prof);
        auto j = nlohmann::json::parse(in);
        rp.has_profile = true;
        rp.host = j.at("host").get<std::string>();
        rp.wall_s = j.at("wall_s").get<double>();
        rp.compute_s = j.at("compute_s").get<double>();
        rp.mpi_s = j.at("mpi_s").get<double>();
        rp.messages_sent = j.at("messages_sent").get<unsigned long long>();
        rp.bytes_sent = j.at("bytes_sent").get<unsigned long long>();
        rp.messages_received = j.at("messages_received").get<unsigned long long>();
        rp.bytes_received = j.at("bytes_received").get<unsigned long long>();
        rp.collectives = j.at("collectives").get<unsigned long long>();
        rp.compute_unit = j.at("compute_unit").get<std::string>();
        for (const auto& [name, c] : j.at("calls").items())
          rp.calls[name] = {c.at("calls").get<unsigned long long>(), c.at("seconds").get<double>()};
      } catch (const nlohmann::json::exception& e) {
        fail_in(prof, fmt::format("unreadable rank profile: {}", e.what()));
      }
    }
    p.complete = p.complete && rp.complete;
    p.wall_s = std::max(p.wall_s, rp.wall_s);
    p.ranks.push_back(std::move(rp));
  }
  return p;
}

nlohmann::json run_profile_to_json(const RunProfile& p)
{
  double mpi = 0, sent = 0, bytes = 0;
  std::map<std::string, int> placement;
  nlohmann::json ranks = nlohmann::json::array();
  std::map<std::string, std::pair<unsigned long long, double>> calls;
  for (const RankProfile& r : p.ranks) {
    mpi += r.mpi_s;
    sent += static_cast<double>(r.messages_sent);
    bytes += static_cast<double>(r.bytes_sent);
    if (!r.host.empty())
      ++placement[r.host];
    nlohmann::json c = nlohmann::json::object();
    for (const auto& [name, v] : r.calls) {
      c[name] = {{"calls", v.first}, {"seconds", v.second}};
      calls[name].first += v.first;
      calls[name].second += v.second;
    }
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"complete", r.complete},
                     {"ended_by", r.ended_by},
                     {"wall_s", r.wall_s},
                     {"compute_s", r.compute_s},
                     {"mpi_s", r.mpi_s},
                     {"messages_sent", r.messages_sent},
                     {"bytes_sent", r.bytes_sent},
                     {"messages_received", r.messages_received},
                     {"bytes_received", r.bytes_received},
                     {"collectives", r.collectives},
                     {"calls", c}});
  }
  double n = static_cast<double>(p.ranks.size());
  nlohmann::json j;
  j["format"] = "perfcast-runs";
  j["version"] = 1;
  j["complete"] = p.complete;
  nlohmann::json runs = nlohmann::json::array();
  if (p.complete && !placement.empty())
    runs.push_back({{"procs", p.ranks.size()},
                    {"time_s", p.wall_s},
                    {"mpi_s", mpi / n},
                    {"sends_per_process", sent / n},
                    {"message_bytes", sent > 0 ? bytes / sent : 0.0},
                    {"placement", placement}});
  j["runs"] = runs;
  j["ranks"] = ranks;
  nlohmann::json total = nlohmann::json::object();
  for (const auto& [name, v] : calls)
    total[name] = {{"calls", v.first}, {"seconds", v.second}};
  j["calls"] = total;
  return j;
}

std::string format_run_profile(const RunProfile& p)
{
  const bool timed = std::any_of(p.ranks.begin(), p.ranks.end(), [](const RankProfile& r) { return r.has_profile; });
  std::string out = fmt::format("{}: {} ranks, {}, {}\n", p.dir, p.ranks.size(),
                                timed ? fmt::format("wall {:.6f} s", p.wall_s)
                                      : "wall unknown (no rank reached MPI_Finalize)",
                                p.complete ? "complete" : "INCOMPLETE");
  for (const RankProfile& r : p.ranks)
    if (!r.complete)
      out += fmt::format("  rank {} stopped early: {}\n", r.rank, r.ended_by);
  out += fmt::format("\n{:>5} {:<14} {:>11} {:>11} {:>11} {:>6} {:>9} {:>12} {:>9} {:>12} {:>6}\n", "rank", "host",
                     "wall_s", "compute_s", "mpi_s", "mpi_%", "msgs_out", "bytes_out", "msgs_in", "bytes_in", "colls");
  for (const RankProfile& r : p.ranks) {
    if (!r.has_profile) {
      out += fmt::format("{:>5} (no profile: the rank did not reach MPI_Finalize)\n", r.rank);
      continue;
    }
    out += fmt::format("{:>5} {:<14} {:>11.6f} {:>11.6f} {:>11.6f} {:>6.1f} {:>9} {:>12} {:>9} {:>12} {:>6}\n",
                       r.rank, r.host, r.wall_s, r.compute_s, r.mpi_s, r.wall_s > 0 ? 100 * r.mpi_s / r.wall_s : 0.0,
                       r.messages_sent, r.bytes_sent, r.messages_received, r.bytes_received, r.collectives);
  }
  std::map<std::string, std::pair<unsigned long long, double>> calls;
  for (const RankProfile& r : p.ranks)
    for (const auto& [name, v] : r.calls) {
      calls[name].first += v.first;
      calls[name].second += v.second;
    }
  std::vector<std::pair<std::string, std::pair<unsigned long long, double>>> sorted(calls.begin(), calls.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  out += fmt::format("\n{:<22} {:>10} {:>14}   (all ranks)\n", "MPI call", "calls", "seconds");
  for (const auto& [name, v] : sorted)
    out += fmt::format("{:<22} {:>10} {:>14.6f}\n", name, v.first, v.second);
  return out;
}

void write_trace_index_and_profile(const RunProfile& p)
{
  std::string index;
  for (const RankProfile& r : p.ranks)
    index += fmt::format("rank-{}.txt\n", r.rank);
  write_file_atomically(p.dir + "/trace.txt", index);
  write_file_atomically(p.dir + "/profile.json", run_profile_to_json(p).dump(2) + "\n");
}

} // namespace perfcast

#include "profile/FunctionProfile.hpp"

#include "core/AtomicFile.hpp"
#include "core/Error.hpp"
#include "profile/Symbolizer.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

namespace perfcast::profile {
namespace fs = std::filesystem;

double FunctionProfile::seconds() const {
  double w = 0;
  for (const auto& s : stacks) w += s.weight;
  return hz > 0 ? w / hz : 0;
}

namespace {

std::string sampler_stem(const std::string& dir, long pid) { return fmt::format("{}/sampler-{}", dir, pid); }

/// What the sampler's meta file says of process `pid` (no stacks yet).
FunctionProfile read_sampler_meta(const std::string& stem, long pid) {
  FunctionProfile p;
  p.pid = pid;
  std::ifstream meta(stem + ".meta");
  if (!meta) throw Error(fmt::format("{}.meta: cannot read (expected the sampler's description of the process)", stem));
  std::string key, value;
  std::size_t word_bytes = 0;
  try {
    while (meta >> key >> value) {
      if (key == "rank") p.rank = std::stoi(value);
      if (key == "clock") p.clock = value;
      if (key == "hz") p.hz = std::stod(value);
      if (key == "word_bytes") word_bytes = std::stoul(value);
      if (key == "complete") p.complete = value == "1";
      if (key == "yielded") p.yielded = value == "1";
    }
  } catch (const std::logic_error&) { // std::stoi and the like on a value that is not a number
    throw Error(fmt::format("{}.meta: {} '{}' (expected a number)", stem, key, value));
  }
  if (word_bytes != sizeof(std::uintptr_t) || p.hz <= 0)
    throw Error(fmt::format("{}.meta: word size {} and rate {} (expected {}-byte words and a positive rate)", stem,
                            word_bytes, p.hz, sizeof(std::uintptr_t)));
  return p;
}

} // namespace

FunctionProfile read_sampler_output(const std::string& dir, long pid) {
  const std::string stem = sampler_stem(dir, pid);
  FunctionProfile p = read_sampler_meta(stem, pid);
  if (!fs::exists(stem + ".maps"))
    throw Error(fmt::format("{}.maps: missing (the process did not end normally; expected the address map written at exit)",
                            stem));
  Symbolizer names(stem + ".maps");
  std::ifstream raw(stem + ".raw", std::ios::binary);
  if (!raw) throw Error(fmt::format("{}.raw: cannot read (expected the sampled stacks)", stem));
  raw.seekg(0, std::ios::end);
  const auto bytes = static_cast<std::size_t>(raw.tellg());
  raw.seekg(0);
  std::vector<std::uintptr_t> words(bytes / sizeof(std::uintptr_t), 0);
  raw.read(reinterpret_cast<char*>(words.data()), static_cast<std::streamsize>(words.size() * sizeof(std::uintptr_t)));

  std::map<std::string, int> ids;
  std::map<std::vector<int>, double> merged;
  std::size_t i = 0;
  while (i + 2 <= words.size()) {
    const double weight = static_cast<double>(words[i]);
    const std::size_t depth = words[i + 1];
    if (depth == 0 || depth > 4096 || i + 2 + depth > words.size())
      throw Error(fmt::format("{}.raw: record at word {} with depth {} (expected a complete sample record)", stem, i,
                              depth));
    std::vector<int> stack;
    // The raw stack is innermost first; the sample's is outermost first.
    for (std::size_t k = depth; k-- > 0;) {
      const bool leaf = k == 0;
      for (const std::string& name : names.frames_at(words[i + 2 + k], !leaf)) {
        auto [it, added] = ids.emplace(name, static_cast<int>(p.names.size()));
        if (added) p.names.push_back(name);
        stack.push_back(it->second);
      }
    }
    merged[stack] += weight;
    i += 2 + depth;
  }
  for (auto& [stack, weight] : merged) p.stacks.push_back({stack, weight});
  return p;
}

std::vector<FunctionProfile> read_sampler_dir(const std::string& dir) {
  std::vector<long> pids;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("sampler-", 0) == 0 && e.path().extension() == ".meta")
      pids.push_back(std::stol(name.substr(8, name.size() - 8 - 5)));
  }
  std::sort(pids.begin(), pids.end());
  // Each process's rank from its meta, and whether it wrote its address map
  // at exit: a shell that ends with _exit (dash does) never runs the
  // sampler's destructor, so the script around a program leaves no map.
  struct Seen {
    long pid;
    int rank;
    bool ended;
  };
  std::vector<Seen> seen;
  for (long pid : pids) {
    const std::string stem = sampler_stem(dir, pid);
    seen.push_back({pid, read_sampler_meta(stem, pid).rank, fs::exists(stem + ".maps")});
  }
  const bool any_rank = std::any_of(seen.begin(), seen.end(), [](const Seen& s) { return s.rank >= 0; });
  const bool any_ended = std::any_of(seen.begin(), seen.end(), [](const Seen& s) { return s.ended; });
  std::vector<FunctionProfile> all;
  for (const Seen& s : seen) {
    if (any_rank && s.rank < 0) continue; // mpirun, its daemons, the script around them
    if (s.rank < 0 && !s.ended && any_ended) continue; // a wrapper that left without exit handlers
    all.push_back(read_sampler_output(dir, s.pid));    // a rank, or the only processes: complete or an error
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return all;
}

nlohmann::json to_json(const FunctionProfile& p) {
  nlohmann::json j = {{"format", "perfcast-functions"}, {"version", 1}, {"generator", "perfcast"}, {"rank", p.rank},
                      {"pid", p.pid}, {"clock", p.clock}, {"hz", p.hz}, {"complete", p.complete},
                      {"seconds", p.seconds()}};
  nlohmann::json functions = nlohmann::json::array();
  for (const phase::FunctionShare& f : phase::function_shares(p.names, p.stacks))
    functions.push_back({{"name", f.name}, {"inclusive_s", f.inclusive * p.seconds()},
                         {"exclusive_s", f.exclusive * p.seconds()}});
  if (p.yielded) j["yielded"] = true;
  j["functions"] = functions;
  j["names"] = p.names;
  nlohmann::json stacks = nlohmann::json::array();
  for (const auto& s : p.stacks) stacks.push_back({{"frames", s.frames}, {"weight", s.weight}});
  j["stacks"] = stacks;
  return j;
}

FunctionProfile function_profile_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    if (j.at("format") != "perfcast-functions" || j.at("version") != 1)
      throw Error(fmt::format("{}: format {} version {} (expected perfcast-functions version 1)", where,
                              j.at("format").dump(), j.at("version").dump()));
    FunctionProfile p;
    p.rank = j.at("rank");
    p.pid = j.at("pid");
    p.clock = j.at("clock");
    p.hz = j.at("hz");
    p.complete = j.at("complete");
    p.yielded = j.value("yielded", false);
    p.names = j.at("names").get<std::vector<std::string>>();
    for (const auto& s : j.at("stacks")) {
      phase::StackSample sample{s.at("frames").get<std::vector<int>>(), s.at("weight").get<double>()};
      for (int f : sample.frames)
        if (f < 0 || static_cast<std::size_t>(f) >= p.names.size())
          throw Error(fmt::format("{}: a stack names function {} of {} (expected an index into names)", where, f,
                                  p.names.size()));
      p.stacks.push_back(std::move(sample));
    }
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {} (expected a perfcast-functions profile)", where, e.what()));
  }
}

std::vector<FunctionProfile> keep_sampler_profiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<FunctionProfile> ranks = read_sampler_dir(dir);
  for (const FunctionProfile& p : ranks)
    write_file_atomically(fmt::format("{}/rank-{}.functions.json", dir, p.rank < 0 ? p.pid : p.rank),
                          to_json(p).dump() + "\n");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("sampler-", 0) == 0) fs::remove(e.path());
  return ranks;
}

std::vector<FunctionProfile> read_kept_profiles(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 15 && name.rfind(".functions.json") == name.size() - 15) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<FunctionProfile> ranks;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(fmt::format("{}: {} (expected a perfcast-functions profile)", f.string(), e.what()));
    }
    ranks.push_back(function_profile_from_json(j, f.string()));
  }
  return ranks;
}

std::string format_top_functions(const FunctionProfile& p, std::size_t top) {
  std::ostringstream out;
  const double total = p.seconds();
  out << fmt::format("rank {}: {:.3f} s sampled ({} clock, {} Hz){}\n", p.rank, total, p.clock, p.hz,
                     p.complete ? "" : ", incomplete");
  out << fmt::format("  {:>9} {:>7} {:>9} {:>7}  {}\n", "incl s", "incl %", "excl s", "excl %", "function");
  std::size_t shown = 0;
  for (const phase::FunctionShare& f : phase::function_shares(p.names, p.stacks)) {
    if (shown++ == top) break;
    out << fmt::format("  {:9.3f} {:6.1f}% {:9.3f} {:6.1f}%  {}\n", f.inclusive * total, 100 * f.inclusive,
                       f.exclusive * total, 100 * f.exclusive, f.name);
  }
  return out.str();
}

} // namespace perfcast::profile

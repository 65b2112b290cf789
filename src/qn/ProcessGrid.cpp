#include "qn/ProcessGrid.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "qn/HaloExchange.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <sstream>

namespace perfcast {

int ProcessGrid::procs() const
{
  int n = 1;
  for (int p : dims)
    n *= p;
  return n;
}

std::vector<int> ProcessGrid::coordinates(int rank) const
{
  std::vector<int> c;
  for (int p : dims) {
    c.push_back(rank % p);
    rank /= p;
  }
  return c;
}

int ProcessGrid::rank_at(const std::vector<int>& c) const
{
  int rank = 0;
  for (std::size_t i = dims.size(); i-- > 0;)
    rank = rank * dims[i] + c[i];
  return rank;
}

std::string ProcessGrid::describe() const
{
  std::string s;
  for (int p : dims)
    s += (s.empty() ? "" : "x") + std::to_string(p);
  bool all = !periodic.empty() && std::all_of(periodic.begin(), periodic.end(), [](bool b) { return b; });
  bool any = std::any_of(periodic.begin(), periodic.end(), [](bool b) { return b; });
  return s + (all ? " periodic" : any ? " partly periodic" : "");
}

ProcessGrid GridRule::at(int procs) const
{
  if (kind == "file") {
    auto it = grids.find(procs);
    if (it == grids.end() && procs == 1 && !grids.empty()) {
      ProcessGrid one = grids.begin()->second;
      std::fill(one.dims.begin(), one.dims.end(), 1);
      return one;
    }
    if (it == grids.end())
      throw Error(fmt::format("{}: the grid file names no grid for {} processes (it names {}); add a line '{} AxB[xC]'",
                              source.empty() ? std::string("--grid-file") : source, procs,
                              [&] {
                                std::string counts;
                                for (const auto& [n, g] : grids)
                                  counts += (counts.empty() ? "" : ", ") + std::to_string(n);
                                return counts;
                              }(),
                              procs));
    return it->second;
  }
  ProcessGrid g;
  g.dims = balanced_dims(procs, dimensions); // largest first
  if (transposed)
    std::reverse(g.dims.begin(), g.dims.end());
  auto longer = [](int side) { return side > 1; };
  if (line_axis >= 0 && line_axis < static_cast<int>(g.dims.size()) &&
      std::count_if(g.dims.begin(), g.dims.end(), longer) == 1) {
    std::fill(g.dims.begin(), g.dims.end(), 1);
    g.dims[static_cast<std::size_t>(line_axis)] = procs;
  }
  g.periodic.assign(g.dims.size(), periodic);
  return g;
}

std::string GridRule::describe() const
{
  if (kind == "file") {
    std::string s;
    for (const auto& [n, g] : grids)
      s += fmt::format("{}{}: {}", s.empty() ? "" : ", ", n, g.describe());
    return "grid file (" + s + ")";
  }
  static const char* const axis_names[] = {"x", "y", "z"};
  std::string line = line_axis >= 0 && line_axis < 3
                         ? fmt::format(", a line of ranks along {}", axis_names[line_axis])
                         : std::string();
  return fmt::format("MPI_Dims_create's {}-D grid{}{}{}", dimensions, transposed ? ", smallest side first" : "",
                     periodic ? ", periodic" : "", line);
}

std::vector<GridRule> grid_rules_from_spec(const std::string& spec)
{
  auto fail = [&](const std::string& why) {
    throw Error(fmt::format("--grid '{}': {} (expected dims_create, dims_create:D with D 1, 2 or 3, optionally "
                            "followed by :periodic or :transposed, or --grid-file FILE)",
                            spec, why));
  };
  std::vector<std::string> parts;
  std::stringstream in(spec.empty() ? std::string("dims_create") : spec);
  for (std::string part; std::getline(in, part, ':');)
    parts.push_back(part);
  if (parts.empty() || parts[0] != "dims_create")
    fail("unknown rule");
  std::vector<int> dimensions{1, 2, 3};
  std::vector<bool> periodic{false, true}, transposed{false, true};
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "1" || p == "2" || p == "3")
      dimensions = {std::stoi(p)};
    else if (p == "periodic")
      periodic = {true};
    else if (p == "transposed")
      transposed = {true};
    else
      fail(fmt::format("unknown part '{}'", p));
  }
  std::vector<GridRule> rules;
  for (int d : dimensions)
    for (bool per : periodic)
      for (bool tr : transposed) {
        if (d == 1 && tr)
          continue; // one axis has one orientation
        GridRule r;
        r.dimensions = d, r.periodic = per, r.transposed = tr;
        rules.push_back(r);
      }
  return rules;
}

namespace {

// A whole word that is a positive integer; nothing otherwise.
std::optional<int> positive_integer(const std::string& word)
{
  try {
    std::size_t used = 0;
    int v = std::stoi(word, &used);
    if (used == word.size() && v >= 1)
      return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

} // namespace

GridRule parse_grid_file(const std::string& text, const std::string& path)
{
  GridRule rule;
  rule.kind = "file";
  rule.source = path;
  std::istringstream lines(text);
  std::size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    auto hash = line.find('#');
    if (hash != std::string::npos)
      line.erase(hash);
    std::istringstream words(line);
    std::string count, dims, flag, extra;
    if (!(words >> count))
      continue;
    const char* expected = "expected 'N AxB[xC] [periodic]', such as '64 8x8' or '64 4x4x4 periodic'";
    words >> dims >> flag >> extra;
    if (dims.empty() || !extra.empty() || (!flag.empty() && flag != "periodic"))
      fail_at(path, number, expected);
    std::optional<int> procs = positive_integer(count);
    if (!procs)
      fail_at(path, number, fmt::format("process count '{}' is not a positive integer; {}", count, expected));
    int n = *procs;
    ProcessGrid g;
    std::stringstream sides(dims);
    for (std::string side; std::getline(sides, side, 'x');) {
      std::optional<int> p = positive_integer(side);
      if (!p)
        fail_at(path, number, fmt::format("grid '{}': side '{}' is not a positive integer; {}", dims, side, expected));
      g.dims.push_back(*p);
    }
    if (g.dims.empty() || g.dims.size() > 3)
      fail_at(path, number, fmt::format("grid '{}' has {} axes (1 to 3 expected); {}", dims, g.dims.size(), expected));
    if (g.procs() != n)
      fail_at(path, number, fmt::format("grid {} holds {} processes, not {}", dims, g.procs(), n));
    if (!rule.grids.empty() && rule.grids.begin()->second.dims.size() != g.dims.size())
      fail_at(path, number, fmt::format("grid {} has {} axes where the lines before have {}", dims, g.dims.size(),
                                        rule.grids.begin()->second.dims.size()));
    if (rule.grids.count(n))
      fail_at(path, number, fmt::format("a second grid for {} processes", n));
    g.periodic.assign(g.dims.size(), flag == "periodic");
    rule.grids[n] = g;
  }
  if (rule.grids.empty())
    fail_in(path, "no grid in the file; expected lines 'N AxB[xC] [periodic]', such as '64 8x8'");
  rule.dimensions = static_cast<int>(rule.grids.begin()->second.dims.size());
  return rule;
}

GridRule load_grid_file(const std::string& path) { return parse_grid_file(read_file(path, "grid file"), path); }

void to_json(nlohmann::json& j, const GridRule& r)
{
  j = {{"kind", r.kind}, {"dimensions", r.dimensions}};
  if (r.kind == "file") {
    j["source"] = r.source;
    nlohmann::json grids = nlohmann::json::array();
    for (const auto& [n, g] : r.grids) {
      std::vector<int> periodic(g.periodic.begin(), g.periodic.end());
      grids.push_back({{"procs", n}, {"dims", g.dims}, {"periodic", periodic}});
    }
    j["grids"] = grids;
  } else {
    j["transposed"] = r.transposed;
    j["periodic"] = r.periodic;
    if (r.line_axis >= 0)
      j["line_axis"] = r.line_axis;
  }
}

void from_json(const nlohmann::json& j, GridRule& r)
{
  j.at("kind").get_to(r.kind);
  j.at("dimensions").get_to(r.dimensions);
  r.grids.clear();
  if (r.kind == "file") {
    r.source = j.value("source", "");
    for (const auto& g : j.at("grids")) {
      ProcessGrid grid;
      g.at("dims").get_to(grid.dims);
      for (int p : g.at("periodic").get<std::vector<int>>())
        grid.periodic.push_back(p != 0);
      r.grids[g.at("procs").get<int>()] = grid;
    }
  } else {
    r.transposed = j.value("transposed", false);
    r.periodic = j.value("periodic", false);
    r.line_axis = j.value("line_axis", -1);
    if (r.line_axis < -1 || r.line_axis >= r.dimensions)
      throw Error(fmt::format("grid rule: \"line_axis\" is {} (expected 0 to {}, the axis a line of ranks lies on)",
                              r.line_axis, r.dimensions - 1));
  }
}

} // namespace perfcast

// Initial VP-to-core mappings: Charm++'s block mapping, round-robin, a file.
#include "core/Error.hpp"
#include "core/Text.hpp"
#include "sim/OverDecomposed.hpp"

#include <charconv>
#include <fmt/format.h>

namespace perfcast {

namespace {

void check_counts(int vps, int cores)
{
  if (cores < 1)
    throw Error(fmt::format("the number of cores must be at least 1 (got {})", cores));
  if (vps < cores)
    throw Error(fmt::format("{} cores for {} VPs: expected at most one core per VP (P <= V)", cores, vps));
}

} // namespace

std::vector<int> block_mapping(int vps, int cores)
{
  check_counts(vps, cores);
  // Charm++'s block map: each core gets V / P consecutive VPs and the first
  // V mod P cores one more
  std::vector<int> map;
  map.reserve(static_cast<std::size_t>(vps));
  int base = vps / cores, extra = vps % cores;
  for (int c = 0; c < cores; ++c)
    for (int k = 0; k < base + (c < extra ? 1 : 0); ++k)
      map.push_back(c);
  return map;
}

std::vector<int> round_robin_mapping(int vps, int cores)
{
  check_counts(vps, cores);
  std::vector<int> map(static_cast<std::size_t>(vps));
  for (int v = 0; v < vps; ++v)
    map[static_cast<std::size_t>(v)] = v % cores;
  return map;
}

std::vector<int> read_mapping_file(const std::string& path, int vps, int cores)
{
  check_counts(vps, cores);
  std::string text = read_file(path, "mapping file");
  std::vector<int> map;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    ++line_no;
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    pos = end + 1;
    line = line.substr(0, line.find('#'));
    line = trim(line);
    if (line.empty())
      continue;
    int core = -1;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), core);
    if (ec != std::errc() || ptr != line.data() + line.size() || core < 0 || core >= cores)
      fail_at(path, line_no,
              fmt::format("'{}' is not a core (expected one integer from 0 to {} per line: the core of VP {})", line,
                          cores - 1, map.size()));
    if (static_cast<int>(map.size()) == vps)
      fail_at(path, line_no, fmt::format("more lines than the trace's {} VPs (expected one core per VP)", vps));
    map.push_back(core);
  }
  if (static_cast<int>(map.size()) != vps)
    fail_in(path, fmt::format("maps {} VPs but the trace has {} (expected one core per line, one line per VP)",
                              map.size(), vps));
  return map;
}

std::vector<int> make_mapping(const std::string& how, int vps, int cores)
{
  if (how == "block")
    return block_mapping(vps, cores);
  if (how == "round-robin")
    return round_robin_mapping(vps, cores);
  return read_mapping_file(how, vps, cores);
}

std::size_t VpReport::migrations() const
{
  std::size_t n = 0;
  for (const BalanceStep& s : steps)
    n += s.migrations;
  return n;
}

std::uint64_t VpReport::bytes_migrated() const
{
  std::uint64_t n = 0;
  for (const BalanceStep& s : steps)
    n += s.bytes;
  return n;
}

double VpReport::balancing_s() const
{
  double t = 0;
  for (const BalanceStep& s : steps)
    t += s.end_s - s.start_s;
  return t;
}

} // namespace perfcast

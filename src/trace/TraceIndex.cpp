#include "trace/TraceIndex.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "trace/ActionGrammar.hpp"
#include "trace/FilePool.hpp"
#include "trace/LineBuffer.hpp"
#include "trace/TraceTokens.hpp"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace perfcast {

namespace fs = std::filesystem;

namespace {

std::string too_many_ranks(long long ranks)
{
  return fmt::format("{} ranks are more than perfcast replays (expected at most {} ranks, 0..{})", ranks, kMaxRanks,
                     kMaxRanks - 1);
}

// One pass over a one-file trace: where each rank's last line ends (so the
// rank count too), and a located error for a first field that is no rank.
std::vector<std::uint64_t> scan_rank_ends(const std::string& path)
{
  FilePool file(1);
  file.add(path);
  LineBuffer lines(std::size_t{1} << 20);
  auto reader = [&file](std::uint64_t at, char* data, std::size_t size) { return file.read_at(0, at, data, size); };
  std::vector<std::uint64_t> ends;
  std::string_view line;
  std::size_t number = 0;
  while (lines.next(line, reader)) {
    ++number;
    long long rank = line_rank(line);
    if (rank == -1)
      continue;
    if (rank < 0) {
      std::string_view field;
      TraceFields(line).next(field);
      long long value = 0;
      if (parse_trace_integer(field, value) && value >= kMaxRanks)
        fail_at(path, number, fmt::format("rank {} is beyond perfcast's limit of {} ranks (expected a rank from 0 to {})",
                                          value, kMaxRanks, kMaxRanks - 1));
      fail_at(path, number, fmt::format("expected a rank as first field, got '{}'", field));
    }
    if (static_cast<std::size_t>(rank) >= ends.size())
      ends.resize(static_cast<std::size_t>(rank) + 1, 0);
    ends[static_cast<std::size_t>(rank)] = lines.offset();
  }
  if (ends.empty())
    fail_in(path, "trace holds no action");
  return ends;
}

} // namespace

namespace {

/// "RANK KEYWORD ..." as trace lines start, rather than a file name.
bool looks_like_action(const std::string& line)
{
  std::size_t i = 0;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
    ++i;
  if (i == 0 || i == line.size() || (line[i] != ' ' && line[i] != '\t'))
    return false;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
    ++i;
  return i < line.size() && std::isalpha(static_cast<unsigned char>(line[i]));
}

} // namespace

TraceIndex read_trace_index(const std::string& index_path, int ranks_hint)
{
  std::ifstream in(index_path);
  if (!in)
    fail_in(index_path, "cannot open trace index");
  TraceIndex index;
  index.index_path = index_path;
  fs::path dir = fs::path(index_path).parent_path();
  std::string raw;
  std::size_t line = 0;
  std::vector<std::string> files;
  while (std::getline(in, raw)) {
    ++line;
    std::string name(trim(raw));
    if (name.empty() || name[0] == '#')
      continue;
    if (files.size() == static_cast<std::size_t>(kMaxRanks))
      fail_at(index_path, line, too_many_ranks(static_cast<long long>(files.size()) + 1));
    if (files.empty() && looks_like_action(name) && !fs::exists(dir / name) && !fs::exists(name)) {
      // the file holds actions, not file names: a one-file trace given directly
      files.push_back(index_path);
      break;
    }
    fs::path p(name);
    std::string resolved = name;
    if (p.is_relative()) {
      fs::path beside = dir / p;
      if (fs::exists(beside) || !fs::exists(p))
        resolved = beside.string();
    }
    if (!fs::exists(resolved))
      fail_at(index_path, line, fmt::format("trace file '{}' does not exist (looked for {})", name, resolved));
    files.push_back(resolved);
  }
  if (files.empty())
    fail_in(index_path, "trace index lists no trace file");
  if (files.size() > 1) {
    index.world_size = static_cast<int>(files.size());
    index.rank_files = std::move(files);
    return index;
  }
  index.shared_file = true;
  if (ranks_hint > kMaxRanks)
    throw Error(too_many_ranks(ranks_hint));
  if (ranks_hint <= 0)
    index.rank_ends = scan_rank_ends(files[0]);
  index.world_size = ranks_hint > 0 ? ranks_hint : static_cast<int>(index.rank_ends.size());
  index.rank_files = std::move(files);
  return index;
}

} // namespace perfcast

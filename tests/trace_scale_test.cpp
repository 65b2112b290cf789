// Large traces: many per-rank files under a small open-file limit, and one file
// shared by all ranks read about once, whatever the order of its lines.
#include "core/Error.hpp"
#include "trace/FilePool.hpp"
#include "trace/SharedTraceScanner.hpp"
#include "trace/TraceReader.hpp"

#include "TestUtil.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// A line of rank r: "r compute K" where K numbers the rank's lines from 1.
std::string line_of(int rank, int k) { return std::to_string(rank) + " compute " + std::to_string(k) + "\n"; }

// Lines of `ranks` ranks, `per_rank` each, in one of three orders.
enum class Order { Interleaved, ByRank, Shuffled };
std::string shared_trace(int ranks, int per_rank, Order order)
{
  std::vector<std::pair<int, int>> lines; // (rank, k)
  if (order == Order::ByRank) {
    for (int r = 0; r < ranks; ++r)
      for (int k = 1; k <= per_rank; ++k)
        lines.emplace_back(r, k);
  } else {
    for (int k = 1; k <= per_rank; ++k)
      for (int r = 0; r < ranks; ++r)
        lines.emplace_back(r, k);
  }
  if (order == Order::Shuffled) {
    // shuffle, then restore each rank's own order
    std::mt19937 rng(7);
    std::shuffle(lines.begin(), lines.end(), rng);
    std::vector<int> next(static_cast<std::size_t>(ranks), 1);
    for (auto& l : lines)
      l.second = next[static_cast<std::size_t>(l.first)]++;
  }
  std::string text = "# a comment\n";
  for (auto [r, k] : lines)
    text += line_of(r, k);
  return text;
}

// Reads every rank round-robin, one line each per turn, checking that rank r
// gets "r compute 1", "r compute 2", ... with the right line numbers.
void read_all(SharedTraceScanner& scanner, const std::string& text, int ranks, int per_rank, std::size_t budget)
{
  std::vector<std::string> file_lines(1, "");
  for (std::size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    file_lines.push_back(text.substr(a, b - a));
  }
  std::vector<int> got(static_cast<std::size_t>(ranks), 0);
  std::vector<bool> done(static_cast<std::size_t>(ranks), false);
  int finished = 0;
  while (finished < ranks) {
    for (int r = 0; r < ranks; ++r) {
      if (done[static_cast<std::size_t>(r)])
        continue;
      std::string_view line;
      std::uint64_t number = 0;
      if (!scanner.next_line(r, line, number)) {
        done[static_cast<std::size_t>(r)] = true;
        ++finished;
        ASSERT_EQ(got[static_cast<std::size_t>(r)], per_rank) << "rank " << r;
        continue;
      }
      int k = ++got[static_cast<std::size_t>(r)];
      ASSERT_EQ(std::string(line), line_of(r, k).substr(0, line_of(r, k).size() - 1));
      ASSERT_LT(number, file_lines.size());
      ASSERT_EQ(file_lines[number], std::string(line)) << "line " << number;
      // what is kept for ranks that are behind stays within the budget, plus one line
      ASSERT_LE(scanner.buffered_bytes(), budget + 64);
    }
  }
}

} // namespace

TEST(SharedTraceScanner, InterleavedFileIsReadOnceNotOncePerRank)
{
  // before, each rank scanned the whole file: 64 ranks read it 64 times
  test::TempDir dir;
  const int ranks = 64, per_rank = 200;
  std::string text = shared_trace(ranks, per_rank, Order::Interleaved);
  SharedTraceScanner scanner(dir.file("all.txt", text), ranks, {});
  read_all(scanner, text, ranks, per_rank, SharedTraceScanner::kDefaultBudget);
  EXPECT_EQ(scanner.bytes_read(), text.size());
  EXPECT_EQ(scanner.detachments(), 0u);
}

TEST(SharedTraceScanner, FileSortedByRankStaysWithinItsBudget)
{
  // rank r's lines all come after rank r-1's: the scanner would keep nearly
  // the whole file for the ranks behind; with a 4 KiB budget they are detached
  // and read their own lines, which the index pass says where they end
  test::TempDir dir;
  const int ranks = 50, per_rank = 300;
  const std::size_t budget = 4096;
  std::string text = shared_trace(ranks, per_rank, Order::ByRank);
  std::string path = dir.file("all.txt", text);
  TraceIndex index = read_trace_index(dir.file("i.txt", "all.txt\n"));
  ASSERT_EQ(index.ranks(), ranks);
  SharedTraceScanner scanner(path, ranks, index.rank_ends, budget);
  read_all(scanner, text, ranks, per_rank, budget);
  EXPECT_GT(scanner.detachments(), 0u);
  // each byte is read by the scanner, and again by at most the rank it belongs to
  EXPECT_LE(scanner.bytes_read(), 2 * text.size() + ranks * 1024);
}

TEST(SharedTraceScanner, AnyOrderGivesEachRankItsLinesInOrder)
{
  test::TempDir dir;
  const int ranks = 37, per_rank = 150;
  for (std::size_t budget : {std::size_t{256}, std::size_t{4096}, SharedTraceScanner::kDefaultBudget}) {
    std::string text = shared_trace(ranks, per_rank, Order::Shuffled);
    // without the index pass's rank ends: detached ranks read up to the scanner
    SharedTraceScanner scanner(dir.file("all.txt", text), ranks, {}, budget);
    read_all(scanner, text, ranks, per_rank, budget);
  }
}

TEST(TraceScale, RankFilesNeedNoMoreDescriptorsThanThePoolHolds)
{
  test::TempDir dir;
  const int ranks = 600;
  std::string index_text;
  for (int r = 0; r < ranks; ++r) {
    dir.file("r" + std::to_string(r) + ".txt", line_of(r, 1) + line_of(r, 2));
    index_text += "r" + std::to_string(r) + ".txt\n";
  }
  TraceIndex index = read_trace_index(dir.file("i.txt", index_text));
  TraceSource source(index);
  std::vector<std::unique_ptr<RankReader>> readers;
  for (int r = 0; r < ranks; ++r)
    readers.push_back(source.open_rank(r));
  Action a;
  for (int k = 1; k <= 2; ++k)
    for (int r = 0; r < ranks; ++r) {
      ASSERT_TRUE(readers[static_cast<std::size_t>(r)]->next(a));
      EXPECT_DOUBLE_EQ(a.value, k);
      ASSERT_LE(source.open_files(), FilePool::default_max_open());
    }
  for (auto& reader : readers)
    EXPECT_FALSE(reader->next(a));
  EXPECT_EQ(source.open_files(), 0u); // finished ranks give their descriptor back
}

namespace {

// 20,000 ranks on 1000 hosts of 100 cores at 1 Gflop/s: rank r computes
// (r % 5 + 1) * 1e6 flops, then even ranks send 8 bytes to the next rank.
// Written as one file per rank and as one file holding every rank.
constexpr int kRanks = 20000;

void write_large_trace(const test::TempDir& dir)
{
  std::filesystem::create_directories(dir.path() + "/ranks");
  std::ofstream index(dir.path() + "/ranks/index.txt");
  std::ofstream all(dir.path() + "/all.txt");
  for (int r = 0; r < kRanks; ++r) {
    std::string text = std::to_string(r) + " init\n" + std::to_string(r) + " compute " +
                       std::to_string((r % 5 + 1) * 1000000) + "\n" + std::to_string(r) +
                       (r % 2 == 0 ? " send " + std::to_string(r + 1) : " recv " + std::to_string(r - 1)) +
                       " 0 8\n" + std::to_string(r) + " finalize\n";
    std::ofstream(dir.path() + "/ranks/r" + std::to_string(r) + ".txt") << text;
    index << "r" << r << ".txt\n";
    all << text; // grouped by rank: the hardest order for the shared scanner
  }
  std::ofstream(dir.path() + "/one.txt") << "all.txt\n";
  std::ofstream(dir.path() + "/platform.json")
      << R"({"format": "perfcast-platform", "version": 1, "clusters": [{"name": "c", "bandwidth": "10Gbps",
            "latency": "1us", "nodes": [{"prefix": "n", "count": 1000, "speed": "1Gf", "cores": 100}]}]})";
}

} // namespace

TEST(TraceScale, TwentyThousandRankFilesReplayUnderOpenFileLimitOf1024)
{
  // before, every rank kept its file open: 1500 ranks failed with "Too many open files"
  test::TempDir dir;
  write_large_trace(dir);
  std::string common = " -p " + dir.path() + "/platform.json --placement round-robin --net loggp --json -q";
  auto per_rank = test::run_command("ulimit -n 1024 && " + test::perfcast_binary() + " replay " + dir.path() +
                                    "/ranks/index.txt" + common);
  ASSERT_EQ(per_rank.status, 0) << per_rank.output.substr(0, 2000);
  auto one_file = test::run_command("ulimit -n 1024 && " + test::perfcast_binary() + " replay " + dir.path() +
                                    "/one.txt" + common);
  ASSERT_EQ(one_file.status, 0) << one_file.output.substr(0, 2000);
  auto a = nlohmann::json::parse(per_rank.output);
  auto b = nlohmann::json::parse(one_file.output);
  EXPECT_EQ(a["actions"], 4 * kRanks);
  ASSERT_EQ(a["ranks"].size(), static_cast<std::size_t>(kRanks));
  // 100 ranks per host on 100 cores: no sharing, so the longest compute is
  // 5e6 flops / 1e9 flop/s = 5 ms; an 8-byte message adds microseconds
  double makespan = a["makespan_s"];
  EXPECT_GE(makespan, 5e-3);
  EXPECT_LT(makespan, 5.1e-3);
  EXPECT_DOUBLE_EQ(a["ranks"][3]["compute_s"].get<double>(), 4e-3); // rank 3: 4e6 flops
  // the same trace in one file replays to the same result
  EXPECT_EQ(a["makespan_s"], b["makespan_s"]);
  EXPECT_EQ(a["ranks"], b["ranks"]);
}

// What a replay at a million ranks relies on, checked at small sizes: matching through indexed mailboxes picks
// what one scan of the receiver's queue in posting order picked; one-file traces sorted by rank are read about
// twice, not once per rank; the report summarizes many ranks and streams its JSON.
#include "platform/Placement.hpp"
#include "platform/Platform.hpp"
#include "report/ReplayOutput.hpp"
#include "sim/Mailboxes.hpp"
#include "sim/Replay.hpp"
#include "trace/SharedTraceScanner.hpp"
#include "trace/TraceIndex.hpp"
#include "TestUtil.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <random>
#include <sstream>

using namespace perfcast;
using namespace perfcast::replay;

namespace {

// The matching Mailboxes must reproduce: per receiver one queue of unmatched sends and one of receives in
// posting order, each new request taking the first that it matches.
struct ScanMailboxes {
  std::vector<std::vector<std::uint32_t>> sends, recvs;
  explicit ScanMailboxes(std::size_t ranks) : sends(ranks), recvs(ranks) {}
  std::uint32_t post(std::uint32_t id, const ChunkedPool<Request>& requests)
  {
    const Request& q = requests[id];
    auto& mine = q.is_send ? recvs[static_cast<std::size_t>(q.dst)] : sends[static_cast<std::size_t>(q.dst)];
    for (auto it = mine.begin(); it != mine.end(); ++it)
      if (q.is_send ? matches(requests[*it], q) : matches(q, requests[*it])) {
        std::uint32_t other = *it;
        mine.erase(it);
        return other;
      }
    (q.is_send ? sends : recvs)[static_cast<std::size_t>(q.dst)].push_back(id);
    return kNone;
  }
  bool cancel(std::uint32_t id, const ChunkedPool<Request>& requests)
  {
    const Request& q = requests[id];
    auto& list = (q.is_send ? sends : recvs)[static_cast<std::size_t>(q.dst)];
    auto it = std::find(list.begin(), list.end(), id);
    if (it == list.end())
      return false;
    list.erase(it);
    return true;
  }
};

std::uint32_t post(Mailboxes& boxes, std::uint32_t id, ChunkedPool<Request>& requests)
{
  const Request& q = requests[id];
  std::uint32_t other = q.is_send ? boxes.take_recv(q, requests) : boxes.take_send(q, requests);
  if (other == kNone)
    boxes.add(id, requests);
  return other;
}

} // namespace

TEST(Mailboxes, PickWhatAScanInPostingOrderPicks)
{
  // 6 ranks, few tags and contexts, a quarter of the receives from any source or with any tag, some cancels:
  // every post must match the same request as the scan, and the same requests stay unmatched
  const int ranks = 6;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    ChunkedPool<Request> requests;
    Mailboxes boxes(ranks);
    ScanMailboxes scan(ranks);
    std::vector<std::uint32_t> queued;
    for (int step = 0; step < 3000; ++step) {
      if (!queued.empty() && pick(10) == 0) {
        std::size_t k = static_cast<std::size_t>(pick(static_cast<int>(queued.size())));
        std::uint32_t id = queued[k];
        bool in_scan = scan.cancel(id, requests);
        ASSERT_EQ(boxes.remove(id, requests), in_scan) << "seed " << seed << " step " << step;
        queued.erase(queued.begin() + static_cast<std::ptrdiff_t>(k));
        continue;
      }
      std::uint32_t id = requests.acquire();
      Request& q = requests[id];
      q.is_send = pick(2) == 0;
      q.dst = pick(ranks);
      q.src = pick(ranks);
      q.tag = pick(3);
      q.ctx = static_cast<std::uint16_t>(pick(2));
      if (!q.is_send && pick(4) == 0) {
        q.src = kAnySource;
        q.wildcard_source = true;
      }
      if (!q.is_send && pick(4) == 0)
        q.tag = kAnyTag;
      std::uint32_t expected = scan.post(id, requests);
      std::uint32_t got = post(boxes, id, requests);
      ASSERT_EQ(got, expected) << "seed " << seed << " step " << step;
      if (got == kNone) {
        queued.push_back(id);
      } else {
        queued.erase(std::find(queued.begin(), queued.end(), got));
      }
    }
    std::uint64_t unmatched = 0;
    for (const auto& s : scan.sends)
      unmatched += s.size();
    EXPECT_EQ(boxes.unmatched_sends(), unmatched);
  }
}

TEST(Mailboxes, ARootFindsEachOfManySendersInAnyOrder)
{
  // 5000 senders queue a message to rank 0 before it posts its receives, last sender first: each receive
  // takes its sender's message (before, each scanned the queue from the front)
  const int senders = 5000;
  ChunkedPool<Request> requests;
  Mailboxes boxes(senders + 1);
  std::vector<std::uint32_t> sent(senders + 1);
  for (int s = 1; s <= senders; ++s) {
    std::uint32_t id = requests.acquire();
    requests[id].is_send = true;
    requests[id].src = s;
    requests[id].dst = 0;
    ASSERT_EQ(post(boxes, id, requests), kNone);
    sent[static_cast<std::size_t>(s)] = id;
  }
  for (int s = senders; s >= 1; --s) {
    std::uint32_t id = requests.acquire();
    requests[id].src = s;
    requests[id].dst = 0;
    ASSERT_EQ(post(boxes, id, requests), sent[static_cast<std::size_t>(s)]);
  }
  EXPECT_EQ(boxes.unmatched_sends(), 0u);
}

namespace {

std::string sorted_trace(int ranks, int per_rank)
{
  std::string text;
  for (int r = 0; r < ranks; ++r)
    for (int k = 1; k <= per_rank; ++k)
      text += fmt::format("{} compute {}\n", r, k);
  return text;
}

} // namespace

TEST(SharedTraceScanner, SortedFilePastItsBudgetIsReadAboutTwice)
{
  // 2000 ranks one after another and a budget of a few ranks' lines: past the budget, each rank met by the
  // scanner reads its own lines later; every rank gets its lines in order, and the file is read about twice
  test::TempDir dir;
  const int ranks = 2000, per_rank = 20;
  std::string text = sorted_trace(ranks, per_rank);
  std::string path = dir.file("all.txt", text);
  TraceIndex index = read_trace_index(path);
  ASSERT_EQ(index.ranks(), ranks);
  SharedTraceScanner scanner(path, ranks, index.rank_ends, 8192);
  std::vector<int> got(ranks, 0);
  for (int round = 0; round <= per_rank; ++round)
    for (int r = 0; r < ranks; ++r) {
      std::string_view line;
      std::uint64_t number = 0;
      bool more = scanner.next_line(r, line, number);
      ASSERT_EQ(more, round < per_rank) << "rank " << r << " round " << round;
      if (!more)
        continue;
      ++got[static_cast<std::size_t>(r)];
      ASSERT_EQ(std::string(line), fmt::format("{} compute {}", r, got[static_cast<std::size_t>(r)]));
      ASSERT_EQ(number, static_cast<std::uint64_t>(r * per_rank + got[static_cast<std::size_t>(r)]));
      ASSERT_LE(scanner.buffered_bytes(), 8192u + 64);
    }
  // the scanner once, and each detached rank its own lines plus at most one buffer beyond them
  EXPECT_LE(scanner.bytes_read(), 2 * text.size() + static_cast<std::size_t>(ranks) * 1024);
}

namespace {

// `ranks` ranks on 4 hosts: a ring of 8-byte messages and an allreduce
struct ManyRanks {
  test::TempDir dir;
  Platform platform = parse_simgrid_platform(R"(<platform version="4.1">
  <cluster id="c" prefix="n" radical="0-3" speed="1Gf" core="64" bw="125MBps" lat="50us"/></platform>)",
                                             "c.xml");
  ReplayReport replay(int ranks)
  {
    std::string text;
    for (int r = 0; r < ranks; ++r)
      text += fmt::format("{0} init\n{0} isend {1} 0 8\n{0} irecv {2} 0 8\n{0} waitall\n{0} compute {3}\n"
                          "{0} allreduce 1 0 0\n{0} finalize\n",
                          r, (r + 1) % ranks, (r + ranks - 1) % ranks, 1e6 * (1 + r % 3));
    TraceIndex index = read_trace_index(dir.file(fmt::format("t{}.txt", ranks), text));
    return replay_trace(index, platform, place_by_policy(platform, "round-robin", ranks), ReplayOptions{});
  }
};

} // namespace

TEST(ReplayOutput, StreamedJsonIsTheDocumentsText)
{
  ManyRanks f;
  ReplayReport r = f.replay(12);
  std::ostringstream out;
  write_replay_json(out, r, f.platform);
  EXPECT_EQ(out.str(), replay_to_json(r, f.platform).dump(2));
  // no ranks at all: an empty list, as dump(2) prints it
  ReplayReport empty;
  std::ostringstream none;
  write_replay_json(none, empty, f.platform);
  EXPECT_EQ(none.str(), replay_to_json(empty, f.platform).dump(2));
}

TEST(ReplayOutput, ManyRanksAreSummarizedUnlessEveryRowIsAsked)
{
  ManyRanks f;
  ReplayReport r = f.replay(static_cast<int>(kRowsByDefault) + 1);
  std::string summary = format_replay_table(r, f.platform);
  EXPECT_NE(summary.find("over the 65 ranks (--per-rank prints a row per rank)"), std::string::npos) << summary;
  EXPECT_EQ(summary.find(" rank host"), std::string::npos) << summary;
  // compute is 1, 2 or 3 ms by rank modulo 3: min on rank 0, max first on rank 2, mean (22 + 2 x 22 + 3 x 21) / 65
  std::vector<ColumnSummary> columns = summarize_ranks(r);
  ASSERT_EQ(columns[1].name, "compute_s");
  EXPECT_EQ(columns[1].min_rank, 0);
  EXPECT_EQ(columns[1].max_rank, 2);
  EXPECT_NEAR(columns[1].min, 1e-3, 1e-12);
  EXPECT_NEAR(columns[1].max, 3e-3, 1e-12);
  EXPECT_NEAR(columns[1].mean, (22 * 1e-3 + 22 * 2e-3 + 21 * 3e-3) / 65, 1e-12);
  std::string rows = format_replay_table(r, f.platform, RankRows::All);
  EXPECT_NE(rows.find("   64 n0 "), std::string::npos) << rows;
  // up to kRowsByDefault ranks the table is as before: a row per rank
  ReplayReport few = f.replay(static_cast<int>(kRowsByDefault));
  EXPECT_EQ(format_replay_table(few, f.platform), format_replay_table(few, f.platform, RankRows::All));
  std::ostringstream json;
  write_replay_json(json, r, f.platform, false);
  nlohmann::json j = nlohmann::json::parse(json.str());
  EXPECT_FALSE(j.contains("ranks"));
  EXPECT_EQ(j["rank_summary"]["compute_s"]["max_rank"], 2);
  EXPECT_EQ(j["makespan_s"].get<double>(), r.makespan_s);
}

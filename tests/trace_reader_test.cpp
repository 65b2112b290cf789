#include "core/Error.hpp"
#include "trace/TraceReader.hpp"
#include "trace/TraceWriter.hpp"

#include <fstream>
#include <random>
#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

std::string error_of(const std::string& rank0, int world = 2)
{
  test::TempDir dir;
  dir.file("r0.txt", rank0);
  dir.file("r1.txt", "1 init\n");
  std::string index = dir.file("i.txt", "r0.txt\nr1.txt\n");
  try {
    TraceIndex t = read_trace_index(index);
    RankReader reader(t.rank_files[0], 0, world);
    Action a;
    while (reader.next(a)) {
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(TraceReader, ReadsEveryArgumentKind)
{
  test::TempDir dir;
  std::string f = dir.file("t.txt", "# comment\n0 init\n0 compute 1.5e6\n0 isend 1 7 10 0\n0 recv -333 -1 4 1\n"
                                    "0 wait 0 1 7\n0 sendRecv 2 1 3 1 0 1\n0 bcast 4 1 0\n0 reduce 3 100 1 5\n"
                                    "0 alltoallv 3 1 2 5 2 3 0\n0 reducescatter 2 3 77 0\n");
  RankReader r(f, 0, 2);
  Action a;
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.type, ActionType::Init);
  EXPECT_EQ(r.line(), 2u);
  ASSERT_TRUE(r.next(a));
  EXPECT_DOUBLE_EQ(a.value, 1.5e6);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.type, ActionType::Isend);
  EXPECT_EQ(a.partner, 1);
  EXPECT_EQ(a.tag, 7);
  EXPECT_EQ(a.bytes, 80u);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.partner, kAnySource);
  EXPECT_EQ(a.tag, kAnyTag);
  EXPECT_EQ(a.bytes, 16u);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.type, ActionType::Wait);
  EXPECT_EQ(a.partner2, 1);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.type, ActionType::SendRecv);
  EXPECT_EQ(a.bytes, 16u);
  EXPECT_EQ(a.recv_bytes, 12u);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.partner, 1); // root
  EXPECT_EQ(a.bytes, 32u);
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.bytes, 12u); // 3 floats
  ASSERT_TRUE(r.next(a));
  // send datatype 0 (double): counts times 8; receive datatype absent: bytes
  EXPECT_EQ(a.send_counts, (std::vector<std::uint64_t>{8, 16}));
  EXPECT_EQ(a.recv_counts, (std::vector<std::uint64_t>{2, 3}));
  ASSERT_TRUE(r.next(a));
  EXPECT_EQ(a.recv_counts, (std::vector<std::uint64_t>{16, 24}));
  EXPECT_DOUBLE_EQ(a.value, 77);
  EXPECT_FALSE(r.next(a));
}

TEST(TraceReader, DefaultDatatypeIsDoubleAfterInitWithArgument)
{
  test::TempDir dir;
  std::string f = dir.file("t.txt", "0 init 1\n0 send 1 0 10\n");
  RankReader r(f, 0, 2);
  Action a;
  r.next(a);
  r.next(a);
  EXPECT_EQ(a.bytes, 80u);
}

TEST(TraceReader, SharedFileStreamsEachRank)
{
  test::TempDir dir;
  dir.file("all.txt", "0 init\n1 init\n1 compute 5\n0 compute 3\n2 compute 1\n");
  TraceIndex t = read_trace_index(dir.file("i.txt", "all.txt\n"));
  ASSERT_TRUE(t.shared_file);
  ASSERT_EQ(t.ranks(), 3);
  TraceSource source(t);
  auto r1 = source.open_rank(1);
  Action a;
  ASSERT_TRUE(r1->next(a));
  ASSERT_TRUE(r1->next(a));
  EXPECT_DOUBLE_EQ(a.value, 5);
  EXPECT_EQ(r1->line(), 3u);
  EXPECT_FALSE(r1->next(a));
}

TEST(TraceReader, ErrorsNameFileLineAndExpectation)
{
  EXPECT_NE(error_of("0 init\n0 sendd 1 0 4\n").find("r0.txt:2: unknown action 'sendd' (expected one of"),
            std::string::npos);
  EXPECT_NE(error_of("0 send 1 0\n").find("r0.txt:1: 'send' needs partner tag count"), std::string::npos)
      << error_of("0 send 1 0\n");
  EXPECT_NE(error_of("0 compute lots\n").find("expected a non-negative number, got 'lots'"), std::string::npos);
  EXPECT_NE(error_of("0 send 5 0 4\n").find("rank 5 is outside 0..1"), std::string::npos);
  EXPECT_NE(error_of("1 compute 4\n").find("r0.txt:1: rank mismatch"), std::string::npos);
  EXPECT_NE(error_of("0 send 1 0 4 99\n").find("unknown datatype id 99"), std::string::npos);
  EXPECT_NE(error_of("0 alltoallv 3 1\n").find("'alltoallv' needs"), std::string::npos);
}

TEST(TraceReader, MissingRankFileIsNamed)
{
  test::TempDir dir;
  dir.file("r0.txt", "0 init\n");
  std::string index = dir.file("i.txt", "r0.txt\nr1.txt\n");
  try {
    read_trace_index(index);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("i.txt:2: trace file 'r1.txt' does not exist"), std::string::npos) << e.what();
  }
}

TEST(TraceReader, TruncatedLastLineIsStillRead)
{
  test::TempDir dir;
  std::string f = dir.file("t.txt", "0 init\n0 compute 12");
  RankReader r(f, 0, 1);
  Action a;
  r.next(a);
  ASSERT_TRUE(r.next(a));
  EXPECT_DOUBLE_EQ(a.value, 12);
}

TEST(TraceWriter, RoundTripsEveryActionThroughTheReader)
{
  test::TempDir dir;
  const std::string lines = "0 init\n0 compute 1.5e+06\n0 isend 1 7 80 6\n0 irecv -1 -1 16 6\n0 wait 0 1 7\n"
                            "0 sendRecv 16 1 12 1 6 6\n0 bcast 32 1 6\n0 reduce 12 100 1 6\n0 allreduce 8 5 6\n"
                            "0 alltoall 4 4 6 6\n0 gather 3 3 1 6 6\n0 gatherv 3 2 5 0 6 6\n0 scatterv 2 5 3 1 6 6\n"
                            "0 allgatherv 3 2 5 6 6\n0 alltoallv 3 1 2 5 2 3 6 6\n0 reducescatter 2 3 77 6\n"
                            "0 waitall\n0 barrier\n0 comm_split 1 3 0\n0 comm_dup 2 comm=1\n0 ibcast 32 0 6 comm=1\n"
                            "0 wait 0 0 -2 comm=1\n0 waitany\n0 send @ 4 8 6\n0 loop_begin 3\n0 loop_end\n0 finalize\n";
  std::string in = dir.file("in.txt", lines);
  RankReader reader(in, 0, 2);
  TraceWriter writer(dir.path() + "/out", 2);
  Action a;
  while (reader.next(a))
    writer.write(a);
  Action b;
  b.rank = 1;
  b.type = ActionType::Init;
  writer.write(b);
  writer.close();
  EXPECT_EQ(test::read_text(dir.path() + "/out/rank-0.txt"), lines);
  TraceIndex t = read_trace_index(writer.index_path());
  EXPECT_EQ(t.ranks(), 2);
}


// One table describes each action's arguments: the usage in messages comes
// from it, and a line parses exactly when it has the required arguments.
TEST(TraceReader, UsageAndArgumentCountsComeFromOneGrammar)
{
  EXPECT_EQ(action_usage(ActionType::Bcast), "count [root [datatype]]");
  EXPECT_EQ(action_usage(ActionType::Alltoallv),
            "sendsum sendcount_0..sendcount_{P-1} recvsum recvcount_0..recvcount_{P-1} [sdtype [rdtype]]");
  EXPECT_EQ(action_usage(ActionType::CommSplit), "NEW COLOR KEY (or no argument)");
  EXPECT_EQ(action_usage(ActionType::Barrier), "no argument");
  const int world = 3;
  std::string error;
  auto fewest = [&](const std::string& keyword) {
    // the fewest arguments "1" with which the line parses; "1" is a valid
    // rank, tag, count, number, datatype and handle
    std::string line = "0 " + keyword;
    for (int k = 0; k < 12; ++k, line += " 1") {
      Action a;
      int dt = 6;
      if (parse_trace_line(line, world, dt, a, error) && error.empty())
        return k;
      EXPECT_NE(error.find("'" + keyword + "' needs " + std::string(action_usage(a.type))), std::string::npos)
          << line << ": " << error;
    }
    return -1;
  };
  EXPECT_EQ(fewest("send"), 3);
  EXPECT_EQ(fewest("recv"), 3);
  EXPECT_EQ(fewest("wait"), 3);
  EXPECT_EQ(fewest("sendRecv"), 4);
  EXPECT_EQ(fewest("bcast"), 1);
  EXPECT_EQ(fewest("ireduce"), 2);
  EXPECT_EQ(fewest("gatherv"), 1 + world);
  EXPECT_EQ(fewest("scatterv"), world + 1);
  EXPECT_EQ(fewest("alltoallv"), 2 + 2 * world);
  EXPECT_EQ(fewest("reducescatter"), world + 1);
  EXPECT_EQ(fewest("compute"), 1);
  EXPECT_EQ(fewest("waitall"), 0);
  EXPECT_EQ(fewest("loop_begin"), 1);
  // all or nothing: comm_split with one argument needs all three
  Action a;
  int dt = 6;
  ASSERT_TRUE(parse_trace_line("0 comm_split 1", world, dt, a, error));
  EXPECT_NE(error.find("'comm_split' needs NEW COLOR KEY"), std::string::npos) << error;
  ASSERT_TRUE(parse_trace_line("0 init 1 2", world, dt, a, error));
  EXPECT_NE(error.find("'init' takes [datatype_mode] (got 2 arguments)"), std::string::npos) << error;
  // SimGrid ignores arguments beyond those it reads; so does perfcast
  ASSERT_TRUE(parse_trace_line("0 compute 5 7", world, dt, a, error));
  EXPECT_EQ(error, "");
  EXPECT_DOUBLE_EQ(a.value, 5);
}

TEST(TraceReader, ExtensionTokensAndWildcards)
{
  std::string error;
  Action a;
  int dt = 6;
  ASSERT_TRUE(parse_trace_line("1 irecv -555 -444 8 1 src=2 comm=3", 4, dt, a, error));
  EXPECT_EQ(error, "");
  EXPECT_EQ(a.partner, kAnySource);
  EXPECT_EQ(a.tag, kAnyTag);
  EXPECT_EQ(a.comm, 3);
  EXPECT_EQ(a.bytes, 32u); // 8 ints
  ASSERT_TRUE(parse_trace_line("1 isend @ 4 8", 4, dt, a, error));
  EXPECT_EQ(a.partner, kLastSource);
  ASSERT_TRUE(parse_trace_line("1 send -1 4 8", 4, dt, a, error));
  EXPECT_NE(error.find("'send' argument 1 (partner): rank -1 is outside 0..3"), std::string::npos) << error;
  ASSERT_TRUE(parse_trace_line("1 send 2 -1 8", 4, dt, a, error));
  EXPECT_NE(error.find("'send' argument 2 (tag): expected a tag from 0 to 2147483647, got '-1'"), std::string::npos)
      << error;
  EXPECT_FALSE(parse_trace_line("   # 1 send", 4, dt, a, error));
  EXPECT_EQ(line_rank("  17\tsend"), 17);
  EXPECT_EQ(line_rank("# x"), -1);
  EXPECT_EQ(line_rank("x send"), -2);
  EXPECT_EQ(line_rank("3.0 send"), 3); // as the parser reads it
}

// The quick path reads plain-digit lines with the same table as the full
// reader; wherever it takes a line, the two must agree.
namespace {
bool same_action(const Action& a, const Action& b)
{
  return a.type == b.type && a.rank == b.rank && a.partner == b.partner && a.partner2 == b.partner2 && a.tag == b.tag &&
         a.comm == b.comm && a.nonblocking == b.nonblocking && a.value == b.value && a.color == b.color &&
         a.key == b.key && a.bytes == b.bytes && a.recv_bytes == b.recv_bytes && a.send_counts == b.send_counts &&
         a.recv_counts == b.recv_counts;
}
} // namespace

TEST(TraceReader, QuickPathAgreesWithFullReader)
{
  const std::vector<std::string> seeds = {
      "3 send 1 0 128 0", "3 isend 2 7 1024", "3 recv 1 0 128 0", "3 irecv 0 5 10 2", "3 ssend 1 3 4 6",
      "3 compute 81920", "3 compute 1e6", "3 sleep 2", "3 wait 3 1 0", "3 test 1 3 7", "3 waitall 6", "3 waitall",
      "3 allreduce 16 100", "3 scan 4 10 1", "3 bcast 100 2 1", "3 reduce 8 50 1 0", "3 barrier", "3 finalize",
      "3 init 0", "3 recv -333 0 8 0", "3 send @ 4 8", "3 send 1 0 8 0 comm=2", "3 send 1 0 8 99",
      "3 send 1 0 1099511627776 0", "3 send 1 2147483648 8", "3 ibcast 10", "3 alltoall 4 4 1 1",
      "3 gather 1 1 0 1 1", "3 sendRecv 4 1 5 2 0 1", "3 comm_split 2 0 1", "3 cancel 1 2 3", "3 loop_begin 7",
      "3 migrate 100", "3 alltoallv 4 1 1 1 1 4 1 1 1 1"};
  std::mt19937 rng(12345);
  const std::string alphabet = "0123456789 -.e@#\t\r=";
  int quick = 0;
  for (const auto& seed : seeds)
    for (int k = 0; k < 300; ++k) {
      std::string line = seed;
      for (int e = k == 0 ? 0 : 1 + static_cast<int>(rng() % 3); e > 0 && !line.empty(); --e) {
        std::size_t at = rng() % line.size();
        switch (rng() % 3) {
        case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: line.erase(at, 1); break;
        default: line.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        }
      }
      for (int dt : {6, 0}) {
        Action fast, full;
        fast.send_counts = full.send_counts = {1, 2}; // stale content from an earlier line must not survive
        if (!parse_trace_line_quick(line, 4, dt, fast))
          continue;
        ++quick;
        int dt_full = dt;
        std::string error;
        ASSERT_TRUE(parse_trace_line_full(line, 4, dt_full, full, error)) << "'" << line << "'";
        ASSERT_EQ(error, "") << "'" << line << "': the quick path took a line the full reader rejects";
        ASSERT_TRUE(same_action(fast, full)) << "'" << line << "'";
        ASSERT_EQ(dt_full, dt);
      }
    }
  EXPECT_GT(quick, 1000); // the common shapes take the quick path
  Action a;
  EXPECT_TRUE(parse_trace_line_quick("3 isend 2 7 1024 0", 4, 6, a));
  EXPECT_EQ(a.bytes, 8192u);
  EXPECT_FALSE(parse_trace_line_quick("3 send 1 0 8 0 comm=2", 4, 6, a));
  EXPECT_FALSE(parse_trace_line_quick("3 recv -333 0 8 0", 4, 6, a));
  EXPECT_FALSE(parse_trace_line_quick("3 send 1 0 1099511627777 0", 4, 6, a)); // beyond 2^43 bytes
}

TEST(TraceReader, OneFileTraceGivenAsTheIndexIsReadAsATrace)
{
  // what broke: the file's first line, "0 init", was taken for a trace file name
  test::TempDir dir;
  std::string one = dir.file("all.txt", "# comment\n0 init\n1 init\n0 send 1 0 100\n1 recv 0 0 100\n0 finalize\n1 finalize\n");
  TraceIndex index = read_trace_index(one);
  EXPECT_TRUE(index.shared_file);
  EXPECT_EQ(index.ranks(), 2);
  // a real index whose first entry is a file named like a number still is an index
  dir.file("0", "0 init\n0 finalize\n");
  std::string listing = dir.file("index.txt", "0\n");
  EXPECT_EQ(read_trace_index(listing).rank_files.front(), dir.path() + "/0");
}

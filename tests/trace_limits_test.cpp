// Arithmetic on trace values: products and sums of counts, datatype sizes,
// flops and rank numbers are checked, and a value beyond perfcast's limits is
// a located error rather than a wrapped number or a crash.
#include "core/Error.hpp"
#include "trace/TraceReader.hpp"

#include "TestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

// The error parsing one line on a world of `world` ranks ("" when it parses).
std::string line_error(const std::string& line, int world = 2)
{
  std::string error;
  Action a;
  int dt = 6;
  parse_trace_line(line, world, dt, a, error);
  return error;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST(TraceLimits, CountOfTwoToTheSixtyOneDoublesIsAnErrorNotZeroBytes)
{
  // 2^61 doubles are 2^64 bytes, which wrapped to 0
  std::string e = line_error("0 send 1 0 2305843009213693952 0");
  EXPECT_TRUE(has(e, "'send': count 2305843009213693952 of 8 bytes is more than 8796093022208 bytes (expected at "
                     "most 2^43 bytes per message)"))
      << e;
  // the limit itself is accepted: 2^40 doubles are 2^43 bytes
  EXPECT_EQ(line_error("0 send 1 0 1099511627776 0"), "");
  EXPECT_TRUE(has(line_error("0 send 1 0 1099511627777 0"), "expected at most 2^43 bytes")) << e;
}

TEST(TraceLimits, SignedProductsOfCountsAndSizesDoNotOverflow)
{
  // these were count * size in signed 64-bit arithmetic (undefined behaviour)
  for (const char* line : {"0 sendRecv 2305843009213693952 1 4 1 0 0", "0 sendRecv 4 1 2305843009213693952 1 0 0",
                           "0 bcast 2305843009213693952 1 0", "0 reduce 2305843009213693952 1 1 0",
                           "0 allreduce 2305843009213693952 1 0", "0 alltoall 1 2305843009213693952 0 0",
                           "0 gather 2305843009213693952 1 0 0 0", "0 iscatter 1 2305843009213693952 0 0 0"})
    EXPECT_TRUE(has(line_error(line), "expected at most 2^43 bytes per message")) << line << ": " << line_error(line);
}

TEST(TraceLimits, VCollectiveCountsThatSumBeyondTheLimitAreAnError)
{
  // each count is below 2^43 bytes, their sum 2^42 + 2^42 + 1 is not
  std::string e = line_error("0 alltoallv 0 4398046511104 4398046511105 0 1 1");
  EXPECT_TRUE(has(e, "'alltoallv' arguments 2..3: the counts up to rank 1 times 1 byte are more than "
                     "8796093022208 bytes (expected at most 2^43 bytes in all)"))
      << e;
  // and per count, times the datatype size: 2^41 doubles
  EXPECT_TRUE(has(line_error("0 allgatherv 1 2199023255552 0 0 0"), "expected at most 2^43 bytes in all"));
  EXPECT_TRUE(has(line_error("0 reducescatter 1 1152921504606846976 5 0"), "expected at most 2^43 bytes in all"));
  EXPECT_EQ(line_error("0 alltoallv 0 4398046511104 4398046511104 0 1 1"), "");
}

TEST(TraceLimits, DatatypeIdBeyondThirtyTwoBitsIsUnknownNotWrapped)
{
  // 2^32 was cast to int: datatype 0, a double
  EXPECT_TRUE(has(line_error("0 send 1 0 4 4294967296"), "unknown datatype id 4294967296"));
  EXPECT_TRUE(has(line_error("0 send 1 0 4 -1"), "datatype -1, a derived datatype whose size SimGrid's time-independent trace does not record"));
}

TEST(TraceLimits, FlopsAndSecondsBeyondTheLimitAreAnError)
{
  EXPECT_TRUE(has(line_error("0 compute 1e300"), "'compute' argument 1 (flops): expected at most 1e+30, got '1e300'"));
  EXPECT_TRUE(has(line_error("0 sleep 1e31"), "expected at most 1e+30"));
  EXPECT_TRUE(has(line_error("0 reduce 4 1e40"), "(comp_flops): expected at most 1e+30"));
  EXPECT_EQ(line_error("0 compute 1e30"), "");
}

TEST(TraceLimits, RequestCountsAndTagsStayInRange)
{
  EXPECT_TRUE(has(line_error("0 waitall 9000000000000000000"), "'waitall': count 9000000000000000000"));
  EXPECT_TRUE(has(line_error("0 wait 0 1 2147483648"), "(tag): expected a 32-bit integer"));
  EXPECT_TRUE(has(line_error("0 comm_split 1 4294967296 0"), "(COLOR): expected a 32-bit integer"));
  EXPECT_TRUE(has(line_error("0 send 99999999999999999999 0 4"), "(partner): expected an integer"));
  EXPECT_TRUE(has(line_error("0 send 9000000000000000000 0 4"), "rank 9000000000000000000 is outside 0..1"));
}

TEST(TraceLimits, OneFileRankOfTwoBillionIsAClearErrorNotBadAlloc)
{
  // the rank count was the largest rank plus one: 2e9 copies of the path
  test::TempDir dir;
  dir.file("all.txt", "0 init\n2000000000 init\n");
  std::string index = dir.file("i.txt", "all.txt\n");
  try {
    read_trace_index(index);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "all.txt:2: rank 2000000000 is beyond perfcast's limit of 1048576 ranks (expected a "
                              "rank from 0 to 1048575)"))
        << e.what();
  }
  EXPECT_THROW(read_trace_index(index, kMaxRanks + 1), Error);
  // beyond a rank count given by the caller: the line is an error when read
  TraceIndex t = read_trace_index(index, 2);
  TraceSource source(t);
  auto reader = source.open_rank(0);
  Action a;
  ASSERT_TRUE(reader->next(a));
  try {
    reader->next(a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(has(e.what(), "all.txt:2: expected a rank in 0..1 as first field, got '2000000000'")) << e.what();
  }
}

TEST(TraceLimits, OneFileTraceUpToTheRankLimitIsAccepted)
{
  // the index of a one-file trace keeps 8 bytes per rank, not a file name each
  test::TempDir dir;
  dir.file("all.txt", "1048575 init\n");
  TraceIndex t = read_trace_index(dir.file("i.txt", "all.txt\n"));
  EXPECT_EQ(t.ranks(), kMaxRanks);
}

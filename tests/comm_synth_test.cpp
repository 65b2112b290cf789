// Tests of `perfcast comm synth` (src/comm/Synth): the synthetic trace must
// carry exactly the estimate's messages and the partition's work.
#include "CommTestUtil.hpp"
#include "TestUtil.hpp"

#include "comm/CommEstimate.hpp"
#include "comm/Synth.hpp"
#include "core/Error.hpp"

#include <sstream>

namespace perfcast::test {
namespace {

using namespace perfcast::comm;

struct Totals {
  std::uint64_t sent = 0, received = 0, computes = 0, bcast_bytes = 0;
  double flops = 0;
};

Totals read_trace(const std::string& dir, int procs)
{
  Totals t;
  for (int r = 0; r < procs; ++r) {
    std::istringstream in(read_text(fmt::format("{}/rank-{}.txt", dir, r)));
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      int rank = 0, partner = 0, tag = 0;
      std::string action;
      words >> rank >> action;
      EXPECT_EQ(rank, r) << line;
      std::uint64_t bytes = 0;
      if (action == "isend" && words >> partner >> tag >> bytes)
        t.sent += bytes;
      else if (action == "irecv" && words >> partner >> tag >> bytes)
        t.received += bytes;
      else if (action == "bcast" && words >> bytes)
        t.bcast_bytes += bytes;
      else if (action == "compute") {
        double flops = 0;
        words >> flops;
        t.flops += flops;
        ++t.computes;
      }
    }
  }
  return t;
}

TEST(CommSynth, TraceCarriesTheEstimatedBytesAndTheWork)
{
  TempDir dir;
  const int n = 16, procs = 4;
  const std::uint64_t steps = 3;
  ValueGraph g = stencil_value_graph(n, steps, true);
  SynthOptions o{procs, 20.0, dir.path() + "/trace"};
  write_synthetic_trace(g, o);
  Singletons s = detect_singletons(g);
  ASSERT_EQ(s.count, 1u); // the parameter
  CommEstimate e = estimate_communication(g, s, partition_values(g, s, procs));
  ASSERT_GT(e.p2p_bytes, 0u);
  Totals t = read_trace(o.output, procs);
  // every byte the estimate sends is one isend and one matching irecv
  EXPECT_EQ(t.sent, e.p2p_bytes);
  EXPECT_EQ(t.received, e.p2p_bytes);
  // one compute per process and call; together the n * n cells' 3 values at 20 flops
  EXPECT_EQ(t.computes, procs * steps);
  EXPECT_NEAR(t.flops, n * n * steps * 20.0, 1e-6 * n * n * steps * 20.0);
  // the parameter is broadcast once (8 bytes, on each of the 4 ranks' lines)
  EXPECT_EQ(t.bcast_bytes, procs * 8u);
}

TEST(CommSynth, BadOptionsAreErrors)
{
  TempDir dir;
  ValueGraph g = stencil_value_graph(4, 2);
  EXPECT_THROW(write_synthetic_trace(g, {4, 0.0, dir.path() + "/a"}), Error);
  EXPECT_THROW(write_synthetic_trace(g, {0, 1.0, dir.path() + "/b"}), Error);
  EXPECT_THROW(write_synthetic_trace(g, {17, 1.0, dir.path() + "/c"}), Error); // 16 values
}

} // namespace
} // namespace perfcast::test

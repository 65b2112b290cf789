// The sweep over balancers, periods, VP levels and core counts: hand-checked
// rows, the same results for any number of threads or shards, bad input.
#include "core/Error.hpp"
#include "lb/Sweep.hpp"
#include "lb/SweepReport.hpp"
#include "platform/Platform.hpp"
#include "LbSweepTestUtil.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

namespace {

struct SweepFixture {
  test::TempDir dir;
  Platform platform = parse_simgrid_platform(test::kSweepCluster, "c.xml");
  std::vector<lb::SweepLevel> levels;
  lb::SweepOptions options;

  SweepFixture()
  {
    for (const auto& [name, flops] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"four", {"1e9", "3e8", "6e8", "2e8"}},
             {"eight", {"5e8", "5e8", "1e8", "2e8", "3e8", "3e8", "1e8", "1e8"}}}) {
      std::string path = test::write_sweep_level(dir, name, flops);
      levels.push_back({path, read_trace_index(path)});
    }
    options.balancers = {"greedy", "refine", "rotate"};
    options.periods = {1, 2};
    options.core_counts = {2, 4};
    options.mapping = "round-robin";
    options.replay.network = "loggp";
  }
};

} // namespace

TEST(LbSweep, RowsMatchTheHandDerivedReplay)
{
  // 4 VPs on 2 cores, round-robin, loggp: VpReplay.OneMigrationCosts... gives
  // 2.7101 s with greedy at every migration point and 3.2 s without balancing.
  SweepFixture f;
  auto results = lb::run_sweep(f.levels, f.platform, f.options, 0, 1);
  lb::link_references(results);
  // per level and core count: the reference, then 3 balancers x 2 periods
  ASSERT_EQ(results.size(), 2u * 2u * 7u);
  EXPECT_EQ(results[0].config.period, 0);
  EXPECT_DOUBLE_EQ(results[0].makespan_s, 3.2);
  EXPECT_EQ(results[1].config.balancer, "greedy");
  EXPECT_EQ(results[1].config.period, 1);
  EXPECT_DOUBLE_EQ(results[1].makespan_s, 2.7101);
  EXPECT_DOUBLE_EQ(results[1].reference_s, 3.2);
  EXPECT_EQ(results[1].migrations, 1u);
  // period 2: the only migration point is never a balancing step, so no step
  EXPECT_EQ(results[2].steps, 0u);
  EXPECT_DOUBLE_EQ(results[2].makespan_s, 3.2);
  std::string table = lb::format_sweep(results);
  EXPECT_NE(table.find("best: "), std::string::npos);
}

TEST(LbSweep, ResultsAreTheSameForAnyThreadsAndShards)
{
  SweepFixture f;
  f.options.threads = 1;
  auto one = lb::run_sweep(f.levels, f.platform, f.options);
  f.options.threads = 3;
  auto three = lb::run_sweep(f.levels, f.platform, f.options);
  // two shards, as two MPI ranks would take them, interleaved back
  auto even = lb::run_sweep(f.levels, f.platform, f.options, 0, 2);
  auto odd = lb::run_sweep(f.levels, f.platform, f.options, 1, 2);
  ASSERT_EQ(one.size(), three.size());
  ASSERT_EQ(even.size() + odd.size(), one.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    const auto& shard = i % 2 == 0 ? even[i / 2] : odd[i / 2];
    for (const lb::SweepResult* r : std::vector<const lb::SweepResult*>{&three[i], &shard}) {
      EXPECT_EQ(r->makespan_s, one[i].makespan_s) << i;
      EXPECT_EQ(r->migrations, one[i].migrations) << i;
      EXPECT_EQ(r->config.balancer, one[i].config.balancer) << i;
      EXPECT_EQ(r->config.period, one[i].config.period) << i;
    }
  }
}

TEST(LbSweep, BadOptionsAreErrorsNamingTheFlagOrTrace)
{
  SweepFixture f;
  f.options.core_counts = {2, 5};
  try {
    lb::check_sweep(f.levels, f.options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("four/trace.txt: 4 VPs cannot run on 5 cores"), std::string::npos)
        << e.what();
  }
  f.options.core_counts = {2};
  f.options.periods = {0};
  EXPECT_THROW(lb::check_sweep(f.levels, f.options), Error);
  f.options.periods = {1};
  f.options.balancers = {"greedyy"};
  EXPECT_THROW(lb::check_sweep(f.levels, f.options), Error);
}

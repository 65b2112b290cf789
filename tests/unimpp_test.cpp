// UniMPP's equations 2 to 9 (src/unimpp/UniMpp.hpp) on the paper's computer c_1
// (Table 1: 1145.86 Mips, 1 GB main and 1 GB virtual memory, 65.55 MB/s disk
// writes, 76.28 MB/s reads, overhead + latency 40 us for 32-byte messages) and
// its memory slowdown (Table 2: alpha = 0.0012 x - 0.0065 in main memory,
// 0.0938 e^(0.0039 x) beyond, x in MB).
#include "unimpp/UniMpp.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace perfcast::unimpp;

namespace {

Computer c1()
{
  Computer c;
  c.name = "c1";
  c.instructions_per_s = 1145.86e6;
  c.main_memory_mb = 1024;
  c.virtual_memory_mb = 1024;
  c.disk_read_bytes_per_s = 76.28e6;
  c.disk_write_bytes_per_s = 65.55e6;
  c.message_overhead_s = 10e-6; // with l = 20 us: 2 o + l = 40 us, Table 1's figure
  c.message_latency_s = 20e-6;
  c.slowdown = {0.0012, -0.0065, 0.0938, 0.0039};
  return c;
}

} // namespace

TEST(UniMpp, EachTermOfEquation8)
{
  ProcessStay p;
  p.instructions = 10 * 1145.86e6;             // TE = 10 s (eq. 2)
  p.memory_in_use_mb = 500;                    // alpha = 0.0012*500 - 0.0065 = 0.5935 (Table 2, linear)
  p.reads = {{76.28e6, 0.25}};                 // 1 s + 0.25 s waiting (eq. 4)
  p.writes = {{65.55e6 / 2, 0}, {65.55e6 / 2, 0.5}}; // 0.5 + 0.5 + 0.5 s waiting (eq. 5)
  p.messages = {{32, 0}, {32, 0.001}};         // 2 x 40 us + 1 ms waiting (eqs. 6, 7)
  p.sleep_s = 2;                               // lz
  ResponseTime t = response_time(c1(), p);
  EXPECT_DOUBLE_EQ(t.processing_s, 10);
  EXPECT_NEAR(t.memory_delay_s, 10 * 0.5935, 1e-12);
  EXPECT_NEAR(t.disk_read_s, 1.25, 1e-12);
  EXPECT_NEAR(t.disk_write_s, 1.5, 1e-12);
  EXPECT_NEAR(t.messages_s, 2 * 40e-6 + 0.001, 1e-15);
  EXPECT_DOUBLE_EQ(t.sleep_s, 2);
  EXPECT_NEAR(t.total_s(), 10 + 5.935 + 1.25 + 1.5 + 0.00108 + 2, 1e-12);
}

TEST(UniMpp, MemorySlowdownIsLinearThenExponential)
{
  MemorySlowdown s = c1().slowdown;
  EXPECT_NEAR(s.alpha(1024, 1024), 0.0012 * 1024 - 0.0065, 1e-12); // still main memory
  EXPECT_NEAR(s.alpha(1500, 1024), 0.0938 * std::exp(0.0039 * 1500), 1e-9);
  EXPECT_EQ(s.alpha(1, 1024), 0.0); // 0.0012 - 0.0065 < 0: no speed-up from a regression's intercept
}

TEST(UniMpp, MigrationSumsTheStays)
{
  // equation 9: half the work on c1, then half on a computer twice as fast
  Computer fast = c1();
  fast.instructions_per_s *= 2;
  ProcessStay half;
  half.instructions = 5 * 1145.86e6;
  half.messages = {{1e6, 0}}; // the migration's transfer as one message
  ResponseTime t = response_time({c1(), fast}, {half, half});
  EXPECT_NEAR(t.processing_s, 5 + 2.5, 1e-12);
  EXPECT_NEAR(t.messages_s, 2 * 40e-6, 1e-15);
  EXPECT_THROW(response_time({c1()}, {half, half}), std::invalid_argument);
}

#include "core/Units.hpp"

#include <gtest/gtest.h>

using namespace perfcast;

TEST(Units, SpeedsInSimgridNotation)
{
  EXPECT_DOUBLE_EQ(*parse_speed("1Gf"), 1e9);
  EXPECT_DOUBLE_EQ(*parse_speed("9.6Gf"), 9.6e9);
  EXPECT_DOUBLE_EQ(*parse_speed("100Mf"), 1e8);
  EXPECT_DOUBLE_EQ(*parse_speed("2.5e9"), 2.5e9);
  EXPECT_FALSE(parse_speed("1GHz"));
  EXPECT_FALSE(parse_speed("fast"));
}

TEST(Units, BandwidthBytesAndBits)
{
  EXPECT_DOUBLE_EQ(*parse_bandwidth("125MBps"), 1.25e8);
  // 1 Gbit/s is 125 MB/s
  EXPECT_DOUBLE_EQ(*parse_bandwidth("1Gbps"), 1.25e8);
  EXPECT_DOUBLE_EQ(*parse_bandwidth("1GiBps"), 1024.0 * 1024 * 1024);
  EXPECT_FALSE(parse_bandwidth("10 furlongs"));
}

TEST(Units, Durations)
{
  EXPECT_DOUBLE_EQ(*parse_duration("50us"), 50e-6);
  EXPECT_DOUBLE_EQ(*parse_duration("0.1ms"), 1e-4);
  EXPECT_DOUBLE_EQ(*parse_duration("2"), 2.0);
  EXPECT_FALSE(parse_duration("us"));
  EXPECT_FALSE(parse_duration(""));
}

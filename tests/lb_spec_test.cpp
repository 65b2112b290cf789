// Balancer specs (`NAME` or `NAME:key=value,...`) and the registry.
#include "core/Error.hpp"
#include "lb/BalancerSpec.hpp"

#include <gtest/gtest.h>

namespace perfcast::lb {
namespace {

std::string error_of(const std::string& spec)
{
  try {
    parse_balancer_spec(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(LbSpec, NamesAndParameters)
{
  EXPECT_EQ(parse_balancer_spec("refine-classic").kind, BalancerKind::RefineClassic);
  BalancerConfig c = parse_balancer_spec("greedy-refine:tolerance=1.05");
  EXPECT_EQ(c.kind, BalancerKind::GreedyRefine);
  EXPECT_DOUBLE_EQ(c.tolerance, 1.05);
  EXPECT_DOUBLE_EQ(parse_balancer_spec("greedy-refine").tolerance, 1.0); // greedy.h's default
  EXPECT_EQ(parse_balancer_spec("random:seed=42").seed, 42u);
}

TEST(LbSpec, BadSpecsSayWhatExists)
{
  EXPECT_EQ(error_of("grdy"),
            "unknown balancer 'grdy' (expected one of: greedy, refine, refine-classic, greedy-refine, rotate, random, none)");
  EXPECT_EQ(error_of("rotate:seed=1"), "balancer 'rotate:seed=1': unknown key 'seed' (keys of rotate: none)");
  EXPECT_EQ(error_of("random:seed"), "balancer 'random:seed': expected key=value, got 'seed' (keys of random: seed)");
  EXPECT_EQ(error_of("random:seed=-1"), "balancer 'random:seed=-1': seed '-1' is not an unsigned integer");
  EXPECT_EQ(error_of("greedy-refine:tolerance=0.9"),
            "balancer 'greedy-refine:tolerance=0.9': tolerance '0.9' is not a number >= 1");
  EXPECT_EQ(error_of("greedy-refine:tolerance=1.1,tolerance=1.2"),
            "balancer 'greedy-refine:tolerance=1.1,tolerance=1.2': key 'tolerance' given twice");
  EXPECT_EQ(error_of("greedy-refine:"),
            "balancer 'greedy-refine:': expected key=value, got '' (keys of greedy-refine: tolerance)");
}

TEST(LbSpec, RegistryRowsListEveryBalancerWithDefaults)
{
  auto rows = balancer_rows();
  ASSERT_EQ(rows.size(), balancer_registry().size());
  ASSERT_EQ(rows.size(), 7u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 4u);
    EXPECT_NO_THROW(parse_balancer_spec(row[0])) << row[0];
  }
  EXPECT_EQ(rows[3][0], "greedy-refine");
  EXPECT_EQ(rows[3][1], "tolerance=1.0 (factor over greedy's max load (>= 1))");
  EXPECT_NE(rows[2][2].find("6.x"), std::string::npos);
  // every default in the registry is what parsing the bare name gives
  EXPECT_EQ(parse_balancer_spec("random").seed, parse_balancer_spec("random:seed=" + rows[5][1].substr(5, 8)).seed);
}

} // namespace
} // namespace perfcast::lb

// The small runs (src/phase/SmallRuns, PhaseRunner): convergence judged by
// the shares, at the next size, of the phases chosen at one size, on
// synthetic profiles whose phase set flips between nested near-ties; and
// which of a size's repeated runs stand for it (the median).
#include "core/Error.hpp"
#include "phase/PhaseFinder.hpp"
#include "phase/PhaseRunner.hpp"
#include "phase/SmallRuns.hpp"

#include <gtest/gtest.h>

using namespace perfcast::phase;

namespace {

// main calls solve (a driver that also works itself) and other; solve calls
// kernel. 100 samples: kernel `k` under solve, solve alone `s - k`, other
// the rest. main is the spine (all its samples go through callees).
const std::vector<std::string> kNames = {"main", "solve", "kernel", "other"};
std::vector<StackSample> run(double kernel, double solve) {
  return {{{0, 1, 2}, kernel}, {{0, 1}, solve - kernel}, {{0, 3}, 100 - solve}};
}

} // namespace

TEST(SmallRuns, SameFunctionsGiveTheirSharesInAnotherProfile) {
  // kernel holds 69.5 of 100 samples, solve 75.5; a name the profile lacks holds 0.
  const PhaseSet chosen{{"kernel", "missing"}, {0.71, 0.1}, 0.81};
  const PhaseSet p = same_phases_in(chosen, kNames, run(69.5, 75.5));
  ASSERT_EQ(p.phases, chosen.phases);
  EXPECT_DOUBLE_EQ(p.shares[0], 0.695);
  EXPECT_DOUBLE_EQ(p.shares[1], 0.0);
  EXPECT_DOUBLE_EQ(p.coverage, 0.695);
}

TEST(SmallRuns, ANestedNearTieThatFlipsConvergesOnTheSetChosenFirst) {
  // Size 1: kernel 71%, solve 75%: the tightest single function above 70% is
  // kernel. Size 2 (a point of sampling noise): kernel 69.5%, solve 75.5%:
  // kernel is under 70%, so the finder now picks solve. Found anew at each
  // size the sets differ and never converge; kernel's own share moved by
  // 0.015, inside the tolerance 0.05, so the series converges on {kernel}.
  const PhaseSet first = find_phases(kNames, run(71, 75));
  const PhaseSet second = find_phases(kNames, run(69.5, 75.5));
  ASSERT_EQ(first.phases, std::vector<std::string>{"kernel"});
  ASSERT_EQ(second.phases, std::vector<std::string>{"solve"});
  EXPECT_FALSE(phases_converged(first, second, 0.05));
  const PhaseSet same = same_phases_in(first, kNames, run(69.5, 75.5));
  EXPECT_NEAR(same.shares[0], 0.695, 1e-12);
  EXPECT_TRUE(phases_converged(first, same, 0.05));
}

TEST(SmallRuns, ARealChangeOfSharesDoesNotConverge) {
  // Size 2: kernel falls from 71% to 60% while solve rises to 80%: the set
  // chosen at size 1 ({kernel}) moved by 0.11 > 0.05: not converged, and
  // the next comparison starts from the set chosen at size 2 ({solve}).
  const PhaseSet first = find_phases(kNames, run(71, 75));
  const PhaseSet same = same_phases_in(first, kNames, run(60, 80));
  EXPECT_NEAR(same.shares[0], 0.60, 1e-12);
  EXPECT_FALSE(phases_converged(first, same, 0.05));
  // A phase that vanishes at the next size (share 0) does not converge either.
  const PhaseSet gone = same_phases_in(first, kNames, {{{0, 3}, 100}});
  EXPECT_FALSE(phases_converged(first, gone, 0.05));
}

TEST(SmallRuns, TheMedianRunStandsForASize) {
  auto runs = [](std::vector<double> seconds) {
    std::vector<RepeatRecord> out;
    for (double s : seconds) out.push_back({s + 0.3, s, "", {}, {}});
    return out;
  };
  // one run: itself; three: the middle one by sampled seconds (4.0 < 5.0 < 9.0: the first run, 5.0),
  // whichever way the others are off
  EXPECT_EQ(median_runs(runs({7.0})), (std::vector<std::size_t>{0}));
  EXPECT_EQ(median_runs(runs({5.0, 4.0, 9.0})), (std::vector<std::size_t>{0}));
  EXPECT_EQ(median_runs(runs({5.0, 1.0, 4.9})), (std::vector<std::size_t>{2}));
  // an even count: the two middle ones, faster first (1 < 2 < 3 < 4: the runs holding 2 and 3)
  EXPECT_EQ(median_runs(runs({6.7, 7.6})), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(median_runs(runs({4.0, 3.0, 2.0, 1.0})), (std::vector<std::size_t>{2, 1}));
  EXPECT_TRUE(median_runs({}).empty());
}

TEST(SmallRuns, ASizeStandsWhenAMajorityOfItsRunsAgree) {
  auto runs = [](std::vector<double> seconds) {
    std::vector<RepeatRecord> out;
    for (double s : seconds) out.push_back({s + 0.3, s, "", {}, {}});
    return out;
  };
  // fewer than two runs: nothing to disagree
  EXPECT_EQ(majority_spread(runs({})), 0);
  EXPECT_EQ(majority_spread(runs({2.0})), 0);
  // two runs: both are the majority, (2.1 - 2.0) / 2.0
  EXPECT_NEAR(majority_spread(runs({2.1, 2.0})), 0.05, 1e-12);
  // session 11's miniMD at 28, two of three runs disturbed: sorted 3.325, 3.97, 4.86; the pairs
  // spread by 0.194 and 0.224, the tightest 0.194, more than the tolerance 0.05: run again
  EXPECT_NEAR(majority_spread(runs({4.86, 3.97, 3.325})), (3.97 - 3.325) / 3.325, 1e-12);
  EXPECT_FALSE(runs_agree(runs({4.86, 3.97, 3.325}), 0.05));
  // two more undisturbed runs: the majority 3.30, 3.31, 3.325 spreads by 0.0076; the median
  // of all five, 3.325, lies in it
  const auto five = runs({4.86, 3.97, 3.325, 3.31, 3.30});
  EXPECT_NEAR(majority_spread(five), (3.325 - 3.30) / 3.30, 1e-12);
  EXPECT_TRUE(runs_agree(five, 0.05));
  EXPECT_EQ(median_runs(five), (std::vector<std::size_t>{2}));
  // session 11's hpcc at 512: 0.485, 1.24, 1.10 s; the tightest pair (1.10, 1.24) spreads by 0.127
  EXPECT_FALSE(runs_agree(runs({0.485, 1.24, 1.10}), 0.05));
  // one off run among three does not matter: 2.41 and 2.395 agree (miniMD at 25, 3.43 disturbed)
  EXPECT_TRUE(runs_agree(runs({2.41, 2.395, 3.43}), 0.05));
  // an even count needs R / 2 + 1: of four, three within the bound
  EXPECT_FALSE(runs_agree(runs({1.0, 1.02, 1.5, 1.6}), 0.05));
  EXPECT_TRUE(runs_agree(runs({1.0, 1.02, 1.04, 1.6}), 0.05));
}

// A geometric ladder of integers (":round"): 50 * 2^(k/4) = 50, 59.46,
// 70.71, 84.09, 100, 118.92, 141.42 -> 50, 59, 71, 84, 100, 119, 141; at a
// factor too small to move the rounded size it still climbs by one:
// 3 * 1.1^k = 3, 3.3, 3.63, 3.99, 4.39 -> 3, 4 (3 + 1), 5 (4 + 1), 6, 7.
TEST(SmallRuns, AGeometricLadderOfIntegersRoundsEachSizeAndKeepsClimbing) {
  const SizeLadder l = parse_size_ladder("50:*1.189207115:round");
  std::vector<double> got;
  for (int i = 0; i < 7; ++i) got.push_back(l.at(i));
  EXPECT_EQ(got, (std::vector<double>{50, 59, 71, 84, 100, 119, 141}));
  const SizeLadder small = parse_size_ladder("3:*1.1:round");
  EXPECT_EQ(small.at(1), 4);
  EXPECT_EQ(small.at(2), 5);
  EXPECT_EQ(small.at(4), 7);
  EXPECT_NEAR(parse_size_ladder("50:*1.189207115").at(1), 59.4604, 1e-4); // unrounded as before
  EXPECT_THROW(parse_size_ladder("50:+8:round"), perfcast::Error);
  EXPECT_THROW(parse_size_ladder("50:*1.19:rnd"), perfcast::Error);
}

// The two RefineLB generations on cases derived by hand: refine-classic from
// Refiner.C (refine, multirefine, removeComputes) and ckset.C at Charm++
// commit 57ea1f2; refine (RefineA) from refine.h at commit 2ff9e15. PE and
// object ids are their indices. Where the 6.x search computes
// f x avg, the derivation rounds it to 4 digits; no comparison is closer than 0.004.
#include "lb/LoadBalancer.hpp"
#include "lb/Strategies.hpp"

#include <random>

#include <gtest/gtest.h>

namespace perfcast::lb {
namespace {

LbDecision run(const std::string& spec, const LbProblem& problem) { return decide(parse_balancer_spec(spec), problem); }

// PE0: o0 (4), o1 (3.5); PE1: o2 (1). Total 8.5, average 4.25.
LbProblem two_pes() { return {{{}, {}}, {{0, 4}, {0, 3.5}, {1, 1}}}; }

TEST(LbRefineClassic, MultirefineNeedsKAboveZero)
{
  // k = 0, f = 1.05, limit 4.4625: donor PE0 (7.5), light PE1 (1): o1 3.5 + 1
  // = 4.5 and o0 4 + 1 = 5 are both >= 4.4625: the pass fails, nothing moved.
  // max/avg = 7.5 / 4.25 = 1.7647, k_max = (int)(71.47 + 1) = 72, f = 1.77,
  // limit 7.5225: no PE is heavy, success. Binary search, each probe from the
  // original mapping:
  //   k=36 (5.9925): largest fitting object o0 (5 < 5.9925) moves: success
  //   k=18 (5.2275): o0 still fits: success
  //   k=9  (4.845):  o0 (5) no, o1 (4.5) yes: success
  //   k=4 (4.6325), k=2 (4.5475), k=1 (4.505): o1 (4.5) fits: success
  // k_max - k_min = 1: the last pass (k = 1) moved o1 to PE1.
  LbDecision d = run("refine-classic", two_pes());
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(d.migrations, 1u);
}

TEST(LbRefineA, BestPassIsAboveGreedyMaxLoad)
{
  // The same loads. Greedy: o0 -> PE0 (tie, lower id): 4; o1 -> PE1: 3.5;
  // o2 -> PE1: 4.5; M0 = 4.5. Current loads PE0 7.5, PE1 1.
  // [lower, upper] = [4.5, 6.75]; each pass moves PE0's heaviest object that
  // fits on the lightest light PE (PE1, 1):
  //   M=5.625: o0 (1+4=5) moves, max 5 (best); upper=5.625
  //   M=5.0625: o0 moves, max 5 (not smaller); upper
  //   M=4.78125: o0 no, o1 (4.5) moves, max 4.5 (best); upper
  //   M=4.640625, 4.5703125, 4.53515625: o1 moves, max 4.5; upper each time
  // stop at 4.53515625 / 4.5 < 1.01. The winner is the pass at M = 4.78125.
  LbDecision d = run("refine", two_pes());
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(d.migrations, 1u);
}

// PE0: o0 (4.5), o1 (3.5); PE1: o2 (3); PE2: o3 (3). Total 14, average 4.6667.
LbProblem three_pes() { return {{{}, {}, {}}, {{0, 4.5}, {0, 3.5}, {1, 3}, {2, 3}}}; }

TEST(LbRefineA, NothingFitsAtGreedyMaxLoadButAHigherThresholdMoves)
{
  // Greedy: o0 -> PE0: 4.5; o1 -> PE1: 3.5; o2 -> PE2: 3; o3 -> PE2 (3 < 3.5):
  // 6; M0 = 6. Loads now 8, 3, 3; lightest light PE has 3.
  //   M=7.5:   o0 (3+4.5=7.5 <= 7.5) moves to PE1 (first light PE): max 7.5 (best); upper
  //   M=6.75:  o0 no, o1 (6.5) moves to PE1: max 6.5 (best); upper
  //   M=6.375: nothing fits, PE0 stays heavy: max 8; lower
  //   M=6.5625: o1 moves, max 6.5; upper.   M=6.46875: fails; lower
  //   M=6.515625: o1 moves; upper; 6.515625 / 6.46875 < 1.01: stop.
  // Best: the pass at M = 6.75 > M0; at M0 = 6 nothing would fit at all.
  LbDecision d = run("refine", three_pes());
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 1, 1, 2}));
  EXPECT_EQ(d.migrations, 1u);
}

TEST(LbRefineClassic, EndsWithWhatAFailedLastProbeLeft)
{
  // Average 4.6667. k=0 (limit 4.9): donor PE0 (8); light PEs visited newest
  // first (PE2, PE1), PE0's objects newest first (o1, o0): 3.5+3 = 6.5 and
  // 7.5 do not fit: fail. max/avg = 1.7143, k_max = (int)(66.43 + 1) = 67,
  // limit 8.0267: nothing heavy, success. Search:
  //   k=33 (6.44): fail.  k=50 (7.2333): o1 to PE2: success
  //   k=41 (6.8133), k=37 (6.6267), k=35 (6.5333): o1 fits (6.5): success
  //   k=34 (6.4867): 6.5 does not fit: fail, k_max - k_min = 1: stop.
  // The last probe failed before moving anything, and multirefine keeps its
  // state: the original mapping, although k = 35 had found a move.
  LbDecision d = run("refine-classic", three_pes());
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 0, 1, 2}));
  EXPECT_EQ(d.migrations, 0u);
}

TEST(LbRefineClassic, UnavailablePeIsEmptiedToTheFirstAvailable)
{
  // PE1 unavailable holds o0 (2), o1 (1); PE0 holds o2 (1); PE2 is empty.
  // removeComputes moves o1 then o0 (list order) to PE0: load 4. Average over
  // the 2 available PEs = 4 / 2 = 2, limit 2.1. Donor PE0, light PE2 (0):
  // PE0's objects newest first: o0 (2 < 2.1, best), o1, o2. o0 -> PE2 (2),
  // PE0 falls to 2: neither heavy nor light: success at k = 0.
  LbProblem p{{{}, {1, 0, false}, {}}, {{1, 2}, {1, 1}, {0, 1}}};
  LbDecision d = run("refine-classic", p);
  EXPECT_EQ(d.new_pe, (std::vector<int>{2, 0, 0}));
  EXPECT_EQ(d.migrations, 2u);
  // RefineA (perfcast's rule: objects of an unavailable PE start on the lowest
  // available PE): loads PE0 4, PE2 0; M0 = 2 (greedy: o0 -> PE0, o1 -> PE2,
  // o2 -> PE2). M = 2.5: o0 (0 + 2) moves to PE2, max 2 (best); every later
  // pass also gives 2: the same mapping.
  EXPECT_EQ(run("refine", p).new_pe, (std::vector<int>{2, 0, 0}));
}

TEST(LbRefineClassic, NonMigratableObjectCountsInTheAverageButStays)
{
  // PE0: o0 (3, non-migratable), o1 (1); PE1: empty. Average 2 (o0 counts,
  // Refiner::computeAverage sums every object), limit 2.1. Donor PE0 (4): o0
  // is skipped, o1 (1 + 0 < 2.1) moves to PE1. PE0 = 3 is still heavy and has
  // only o0: the k = 0 pass fails. max/avg = 4/2 = 2 (taken before the pass),
  // k_max = 96, limit 4.02: nothing heavy, success. Every probe of the search
  // starts with o1 as the only movable object and PE1 light, moves it first
  // (1 + 1 < f x 2 for every f >= 1.05), then stops or fails on o0: o1 ends
  // on PE1 whatever the last probe was; o0 never moves.
  LbProblem p{{{}, {}}, {{0, 3, false}, {0, 1}}};
  LbDecision d = run("refine-classic", p);
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 1}));
}

TEST(LbRefineClassic, LightPesAreVisitedNewestFirst)
{
  // PE0: o0 (0.1), o1 (1.04); PE1: o2 (0.92); PE2: o3 (0.94). Total 3,
  // average 1, limit 1.05 at k = 0. Donor PE0 (1.14). The light list got PE1
  // then PE2 at its head, so PE2 is visited first: o0 fits there (1.04 <
  // 1.05) and is the largest object that fits anywhere (o1 fits nowhere);
  // on PE1 it fits too but is not larger, so PE2, the heavier light PE, takes
  // it. PE2 (1.04) leaves the light list, PE0 (1.04) is neither heavy nor
  // light: success at k = 0.
  LbProblem p{{{}, {}, {}}, {{0, 0.1}, {0, 1.04}, {1, 0.92}, {2, 0.94}}};
  LbDecision d = run("refine-classic", p);
  EXPECT_EQ(d.new_pe, (std::vector<int>{2, 0, 1, 2}));
  EXPECT_EQ(d.migrations, 1u);
}

TEST(LbRefineClassic, ProbeRestartKeepsTheLoadOfAPeThatStartedEmpty)
{
  // PE0: o0 (4), o1 (2); PE1 empty. Average 3. k=0 (limit 3.15): o1 (2 + 0)
  // moves, PE0 (4) is still heavy and o0 fits nowhere: fail, PE1 at 2.
  // max/avg = 2: k_max = (int)((2 - 1.05) / 0.01 + 1) = 96 in double; f = 2.01:
  // nothing heavy. Each probe puts o0, o1 back on PE0, but PE1, which had no
  // object at the start, keeps load 2 (Refiner.C multirefine resets only
  // computeLoad and the object lists). So o0 (4 + 2) never fits, o1 does when
  // 4 < f x 3:
  //   k=48 (4.59) success; k=24 (3.87) fail; k=36 (4.23), k=30 (4.05)
  //   success; k=27 (3.96), k=28 (3.99) fail; k=29 (4.02) success: stop.
  // o1 ends on PE1. Had PE1 been reset to 0, the larger o0 would fit first
  // (4 + 0 < 4.59) and the search would end with o0 on PE1 instead.
  LbProblem p{{{}, {}}, {{0, 4}, {0, 2}}};
  LbDecision d = run("refine-classic", p);
  EXPECT_EQ(d.new_pe, (std::vector<int>{0, 1}));
  EXPECT_EQ(d.migrations, 1u);
}

TEST(LbRefineA, ReceiverIsTheFirstLightPeInOrderNotTheLightest)
{
  // Backgrounds PE0 6, PE1 1.5, PE2 1; one object o0 (2) on PE0. Greedy puts
  // o0 on PE2: M0 = 3, search in [3, 4.5]. Every pass: PE0 (8) is heavy; o0
  // fits on the lightest light PE (1 + 2 <= M), and refine.h then scans the
  // light PEs in processor order: PE1 (1.5 + 2 = 3.5 <= M for all M >= 3.75)
  // takes it. PE0 stays above M at 6 and has nothing left: the pass ends with
  // max 6, so every pass raises the lower bound and the first one (M = 3.75)
  // stays best. Greedy and a lightest-receiver rule would pick PE2.
  LbProblem p{{{1, 6}, {1, 1.5}, {1, 1}}, {{0, 2}}};
  EXPECT_EQ(run("greedy", p).new_pe, (std::vector<int>{2}));
  EXPECT_EQ(run("refine", p).new_pe, (std::vector<int>{1}));
}

TEST(LbRefineClassic, LinearSearchPicksThePairOfCharmsQuadraticSearch)
{
  // refine-classic's linear shortcut must choose the same (object, receiver)
  // as Refiner.C's quadratic loop on every move. Random problems with many
  // equal loads (multiples of 0.25), unavailable PEs and pinned objects.
  std::mt19937_64 rng(2016);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    LbProblem p;
    int npes = 2 + static_cast<int>(rng() % 12);
    for (int i = 0; i < npes; ++i)
      p.pes.push_back({1.0, 0.25 * static_cast<double>(rng() % 4), rng() % 9 != 0});
    p.pes[rng() % npes].available = true;
    int nobjs = static_cast<int>(rng() % 60);
    for (int o = 0; o < nobjs; ++o) {
      int pe = static_cast<int>(rng() % (npes > 3 ? npes / 2 : npes)); // crowd the low PEs
      bool pinned = p.pes[pe].available && rng() % 10 == 0;
      p.objects.push_back({pe, 0.25 * static_cast<double>(1 + rng() % 12), !pinned});
    }
    std::vector<int> fast = detail::refine_classic(p, false);
    EXPECT_EQ(fast, detail::refine_classic(p, true)) << "trial " << trial;
    compared += fast != detail::current_mapping(p) ? 1 : 0;
  }
  EXPECT_GT(compared, 100); // most trials moved something, so the searches were exercised
}

} // namespace
} // namespace perfcast::lb

// `perfcast lb decide`: the table, the JSON, and every kind of bad input.
#include "TestUtil.hpp"

#include <gtest/gtest.h>

namespace perfcast::test {
namespace {

std::string data(const std::string& name) { return source_dir() + "/tests/data/lb/" + name; }

// A load database with one PE and the given objects array (JSON text).
std::string one_pe_db(const std::string& objects)
{
  return R"({"format": "perfcast-lbdb", "version": 1, "pes": [{"id": 0}], "objects": )" + objects + "}";
}

TEST(LbCli, DecidePrintsLoadsBeforeAndAfter)
{
  // five-on-one.json is LbGreedy.BackgroundLoadDecidesWhereHeavyObjectsGo:
  // greedy sends o0 (4096 B), o1 (2048 B) and o4 (256 B) away: 6400 bytes.
  // Loads before: PE0 0.5 + 15 = 15.5, PE1 0.25; total 15.75, average 5.25.
  // After: 5.5, 5.25, 5; max/avg = 5.5 / 5.25 = 1.0476.
  auto r = run_perfcast("lb decide --balancer greedy " + data("five-on-one.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, "balancer: greedy   (3 PEs, 5 objects)\n"
                      "\n"
                      "   pe available   speed     before_s      after_s objs_bef objs_aft\n"
                      "    0       yes   1.000    15.500000     5.500000        5        2\n"
                      "    1       yes   1.000     0.250000     5.250000        0        2\n"
                      "    2       yes   1.000     0.000000     5.000000        0        1\n"
                      "\n"
                      "max/avg load: before 2.9524 (15.500000 / 5.250000 s), after 1.0476 (5.500000 / 5.250000 s)\n"
                      "migrations: 3 of 5 objects, 6400 bytes moved\n");
}

TEST(LbCli, DecideJsonHasTheAssignmentAndMigrations)
{
  // greedy-refine, tolerance 1.5: M = 1.5 x 5.5 = 8.25. o0 stays (5.5);
  // o1: 5.5 + 4 > M -> PE2 (0): 4; o2: 8.5 > M -> PE1 (0.25): 3.25; o3: 7.5
  // stays; o4: 8.5 > M -> PE1 (3.25 < 4): 4.25. Moved: o1, o2, o4 = 3328 B.
  auto r = run_perfcast("lb decide -b greedy-refine:tolerance=1.5 --json " + data("five-on-one.json"));
  ASSERT_EQ(r.status, 0) << r.output;
  auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["assignment"], nlohmann::json({0, 2, 1, 0, 1}));
  EXPECT_EQ(j["migrations"], 3);
  EXPECT_EQ(j["bytes_moved"], 3328);
  EXPECT_DOUBLE_EQ(j["pes"][1]["load_after_s"].get<double>(), 4.25);
}

TEST(LbCli, PeSpeedsCountOnlyWhenAsked)
{
  // LbGreedy.SlowerCoreGetsLessWhenSpeedsAreUsed through the CLI
  TempDir dir;
  std::string db = dir.file("speed.json", R"({"format": "perfcast-lbdb", "version": 1,
    "pes": [{"id": 0, "speed": 1, "background_s": 0.25}, {"id": 1, "speed": 2}],
    "objects": [{"id": 0, "pe": 0, "load_s": 4}, {"id": 1, "pe": 0, "load_s": 2},
                {"id": 2, "pe": 1, "load_s": 1}, {"id": 3, "pe": 0, "load_s": 1}]})");
  auto fast = nlohmann::json::parse(run_perfcast("lb decide --json --use-pe-speed " + db).output);
  EXPECT_EQ(fast["assignment"], nlohmann::json({1, 0, 1, 0}));
  auto plain = nlohmann::json::parse(run_perfcast("lb decide --json " + db).output);
  EXPECT_EQ(plain["assignment"], nlohmann::json({1, 0, 0, 0}));
}

struct BadInput {
  const char* name;
  std::string text;
  std::string expected; // after "error: FILE"
};

TEST(LbCli, BadLoadDatabasesNameTheFileAndTheField)
{
  const std::vector<BadInput> cases = {
      {"missing-pe", one_pe_db(R"([{"id": 0, "pe": 3, "load_s": 1}])"),
       ": /objects/0/pe: object 0 is on PE 3, which does not exist (PE ids are 0..0)"},
      {"negative-load", one_pe_db(R"([{"id": 0, "pe": 0, "load_s": -2}])"),
       ": /objects/0/load_s: expected a finite number >= 0"},
      {"huge-load", one_pe_db(R"([{"id": 0, "pe": 0, "load_s": 1e999}])"),
       ": malformed JSON: [json.exception.out_of_range.406] number overflow parsing '1e999'"},
      {"duplicate-object", one_pe_db(R"([{"id": 0, "pe": 0, "load_s": 1}, {"id": 0, "pe": 0, "load_s": 2}])"),
       ": /objects/1/id: duplicate object id 0 (first at /objects/0)"},
      {"duplicate-pe", R"({"format": "perfcast-lbdb", "version": 1, "pes": [{"id": 0}, {"id": 0}], "objects": []})",
       ": /pes/1/id: duplicate PE id 0 (first at /pes/0)"},
      {"sparse-ids", one_pe_db(R"([{"id": 4, "pe": 0, "load_s": 1}])"),
       ": /objects/0/id: object id 4 out of range: the 1 objects must have ids 0..0"},
      {"format", R"({"format": "perfcast-platform", "version": 1, "pes": [], "objects": []})",
       ": /format: expected \"perfcast-lbdb\""},
      {"version", R"({"format": "perfcast-lbdb", "version": 2, "pes": [], "objects": []})",
       ": /version: expected 1 (the only version perfcast reads)"},
      {"typo", one_pe_db(R"([{"id": 0, "pe": 0, "load": 1}])"),
       ": /objects/0/load: unknown field (expected one of: id, pe, load_s, migratable, bytes)"},
      {"no-available", R"({"format": "perfcast-lbdb", "version": 1, "pes": [{"id": 0, "available": false}], "objects": []})",
       ": /pes: expected at least one available PE"},
      {"pinned-on-unavailable",
       R"({"format": "perfcast-lbdb", "version": 1, "pes": [{"id": 0}, {"id": 1, "available": false}],
           "objects": [{"id": 0, "pe": 1, "load_s": 1, "migratable": false}]})",
       ": /objects/0: object 0 is non-migratable but on PE 1, which is unavailable"},
      {"syntax", "{\"format\": \"perfcast-lbdb\",\n\"version\": 1\n\"pes\": []}",
       ":3: malformed JSON: [json.exception.parse_error.101] parse error at line 3, column 5: syntax error while "
       "parsing object - unexpected string literal; expected '}'"},
  };
  TempDir dir;
  for (const BadInput& c : cases) {
    std::string path = dir.file(std::string(c.name) + ".json", c.text);
    auto r = run_perfcast("lb decide " + path);
    EXPECT_EQ(r.status, 1) << c.name;
    EXPECT_EQ(r.output, "error: " + path + c.expected + "\n") << c.name;
  }
}

TEST(LbCli, UnknownBalancerListsTheBalancers)
{
  auto r = run_perfcast("lb decide -b greedy-refin " + data("five-on-one.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "error: --balancer: unknown balancer 'greedy-refin' (expected one of: greedy, refine, "
                      "refine-classic, greedy-refine, rotate, random, none)\n");
  r = run_perfcast("lb decide -b greedy-refine:tol=2 " + data("five-on-one.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "error: --balancer: balancer 'greedy-refine:tol=2': unknown key 'tol' (keys of greedy-refine: "
                      "tolerance)\n");
}

TEST(LbCli, MissingFileIsAnError)
{
  auto r = run_perfcast("lb decide /nonexistent/lbdb.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "error: /nonexistent/lbdb.json: cannot open load database\n");
}

} // namespace
} // namespace perfcast::test

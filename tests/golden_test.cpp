// Golden outputs of the command line: each command runs in the source tree on bundled inputs, and what it prints
// (and the files it writes) must be byte for byte what tests/golden/ holds. A change of output is a change of
// these files, reviewed as such; regenerate one with the command in its test.
#include "TestUtil.hpp"

#include <fstream>
#include <sstream>

namespace perfcast {
namespace {

using test::TempDir;

test::CommandResult in_source(const std::string& args)
{
  return test::run_command("cd " + test::source_dir() + " && " + test::perfcast_binary() + " " + args + " 2>&1");
}

std::string golden(const std::string& name) { return test::read_text(test::source_dir() + "/tests/golden/" + name); }

// The queueing model fitted on examples/runs/stencil2d-4nodes.csv (tests/golden/qn-stencil2d-4nodes.model.json,
// written by `perfcast fit qn examples/runs/stencil2d-4nodes.csv -p examples/platforms/table1-4nodes.json -o ...`)
const std::string kQnPredict = "predict tests/golden/qn-stencil2d-4nodes.model.json -p "
                               "examples/platforms/table1-4nodes.json --procs 2..64:x2";

TEST(Golden, PredictWithTheQueueingModel)
{
  auto text = in_source(kQnPredict + " --best-group 2");
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_EQ(text.output, golden("predict-qn.txt"));
  auto json = in_source(kQnPredict + " --best-group 2 --json");
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_EQ(json.output, golden("predict-qn.json"));
  TempDir dir;
  auto svg = in_source(kQnPredict + " --measured examples/runs/stencil2d-4nodes.csv --svg " + dir.path() + "/p.svg");
  ASSERT_EQ(svg.status, 0) << svg.output;
  EXPECT_EQ(test::read_text(dir.path() + "/p.svg"), golden("predict-qn.svg"));
}

// examples/traces/collectives-scaling: examples/apps/collectives.c (5 iterations, 4096 elements, 2e8 flops a rank
// and iteration) recorded with smpirun at 1, 2, 4 and 8 ranks on cluster16 (scripts/record-trace.sh); its real runs
// at 16, 32 and 64 replay to 0.214188, 0.31288 and 0.49385 s there
const std::string kForecastCollectives =
    "forecast examples/traces/collectives-scaling/1 examples/traces/collectives-scaling/2 "
    "examples/traces/collectives-scaling/4 examples/traces/collectives-scaling/8 -p examples/platforms/cluster16.xml "
    "--procs 16,32,64 -q";

TEST(Golden, ForecastOfTheBundledCollectives)
{
  auto text = in_source(kForecastCollectives);
  ASSERT_EQ(text.status, 0) << text.output;
  EXPECT_EQ(text.output, golden("forecast-collectives.txt"));
  auto json = in_source(kForecastCollectives + " --json");
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_EQ(json.output, golden("forecast-collectives.json"));
}

} // namespace
} // namespace perfcast

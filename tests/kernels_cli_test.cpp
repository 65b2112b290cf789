// perfcast kernels build and list end to end (two kernels at tiny sizes under
// mpirun), their errors, and the shipped database (examples/kernels).
#include "TestUtil.hpp"
#include "phase/KernelDatabase.hpp"
#include "phase/KernelLadder.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace perfcast;

namespace {

class KernelsCli : public ::testing::Test {
protected:
  void SetUp() override
  {
#ifndef PERFCAST_KERNEL_DIR
    GTEST_SKIP() << "the kernel programs were not built (no MPI found at configure time)";
#endif
    if (!test::have_command("mpirun")) GTEST_SKIP() << "Open MPI's mpirun is not installed (Debian openmpi-bin)";
  }
};

test::CommandResult kernels(const std::string& args, const std::string& env = "")
{
  return test::run_command(fmt::format("{} {} {} kernels {}", test::kMpiEnv, env, test::perfcast_binary(), args));
}

// One run per size, the ladder stopped at its minimum of three sizes.
const char* kTiny = "--procs 2 --repeats 1 --max-seconds 1e-9";
// One run per size until a run takes 2 ms: microsecond runs at the first
// sizes and milliseconds at the last, so the times grow even on a loaded machine.
const char* kSmall = "--procs 2 --repeats 1 --max-seconds 2e-3";

} // namespace

TEST_F(KernelsCli, BuildsTwoKernelsAtTinySizesAndListsTheirModels)
{
  test::TempDir dir;
  const std::string db = dir.path() + "/k.db";
  auto r = kernels(fmt::format("build -o {} --kernels gemm,is --machine testbox {}", db, kSmall));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("2 kernels of 2 written to " + db + " (machine testbox, 2 processes)"), std::string::npos)
      << r.output;
  const auto entries = std::distance(std::filesystem::directory_iterator(dir.path()), {});
  EXPECT_EQ(entries, 1) << "a temporary file was left behind";

  const phase::KernelDatabase opened = phase::KernelDatabase::open(db);
  EXPECT_EQ(opened.machine(), "testbox");
  EXPECT_EQ(opened.procs(), 2);
  EXPECT_EQ(opened.kernels(), (std::vector<std::string>{"gemm", "is"}));
  auto list = kernels("list --json " + db);
  ASSERT_EQ(list.status, 0) << list.output;
  const auto j = nlohmann::json::parse(list.output);
  ASSERT_EQ(j["kernels"].size(), 2u);
  for (const auto& k : j["kernels"]) {
    const auto sizes = phase::size_ladder(phase::find_kernel(k["name"]));
    ASSERT_GE(k["sizes"].size(), 3u) << k.dump();
    for (std::size_t i = 0; i < k["sizes"].size(); ++i) EXPECT_EQ(k["sizes"][i], sizes[i]) << k.dump();
    EXPECT_EQ(k["model_s"].size(), k["sizes"].size()) << k.dump();
    EXPECT_GE(k["mean_s"].back().get<double>(), 2e-3) << "the ladder stopped before a run took 2 ms";
    EXPECT_FALSE(k.contains("model_error")) << k.dump();
  }
  auto table = kernels("list " + db);
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.output.find("kernel database " + db + " (machine testbox, 2 processes)"), std::string::npos)
      << table.output;
}

TEST_F(KernelsCli, FailingKernelIsNamedSkippedAndNotStored)
{
  test::TempDir dir;
  const std::string db = dir.path() + "/k.db";
  // kSmall, not kTiny: gemm must be stored, and at microsecond sizes its
  // times need not grow on a loaded machine (then no model can be built).
  auto r = kernels(fmt::format("build -o {} --kernels is,gemm {}", db, kSmall), "PERFCAST_KERNEL_CORRUPT=is");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("kernel is: skipped: size 4096: exit status 1: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrong result"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error: 1 kernel(s) failed and were not stored: is"), std::string::npos) << r.output;
  EXPECT_EQ(phase::KernelDatabase::open(db).kernels(), (std::vector<std::string>{"gemm"}));
}

TEST_F(KernelsCli, NothingIsWrittenWhenEveryKernelFails)
{
  test::TempDir dir;
  const std::string db = dir.path() + "/k.db";
  auto r = kernels(fmt::format("build -o {} --kernels cg {}", db, kTiny), "PERFCAST_KERNEL_CORRUPT=all");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: " + db + ": no kernel could be measured (nothing written)"), std::string::npos)
      << r.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the partial database was left behind";
}

TEST_F(KernelsCli, BadOptionsAndPathsAreRefusedBeforeAnyRun)
{
  test::TempDir dir;
  const std::string db = dir.path() + "/k.db";
  auto unknown = kernels("build -o " + db + " --kernels gemm,dgemm");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.output.find("error: --kernels: kernel 'dgemm': no such kernel"), std::string::npos)
      << unknown.output;
  auto repeats = kernels("build -o " + db + " --repeats 0");
  EXPECT_EQ(repeats.status, 1);
  EXPECT_NE(repeats.output.find("error: --repeats 0: expected at least 1"), std::string::npos) << repeats.output;
  auto no_output = kernels("build --kernels gemm");
  EXPECT_NE(no_output.status, 0);
  test::TempDir other;
  const std::string plain = other.file("plain", "x\n");
  auto under_a_file = kernels("build -o " + plain + "/k.db --kernels gemm");
  EXPECT_EQ(under_a_file.status, 1);
  EXPECT_NE(under_a_file.output.find(fmt::format("error: {}/k.db: no directory {} (expected an existing directory)",
                                                 plain, plain)),
            std::string::npos)
      << under_a_file.output;
  auto missing_dir = kernels("build -o " + dir.path() + "/no/such/k.db --kernels gemm");
  EXPECT_EQ(missing_dir.status, 1) << missing_dir.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST_F(KernelsCli, ExistingFilesAreReplacedOnlyWithForce)
{
  test::TempDir dir;
  const std::string foreign = dir.file("notes.db", "my own notes\n");
  auto r = kernels("build -o " + foreign + " --kernels gemm");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("exists and is not a kernel database perfcast wrote (expected a new path, or --force"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(test::read_text(foreign), "my own notes\n");

  const std::string db = dir.path() + "/k.db";
  phase::KernelDatabase::create(db, "old", 2).add("is", {"keys", 1}, {{1024, 1e-5}, {4096, 4e-5}});
  r = kernels("build -o " + db + " --kernels gemm");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("exists and is a kernel database (expected a new path, or --force"), std::string::npos)
      << r.output;
  // kSmall, not kTiny: at microsecond sizes a loaded machine can make a kernel's
  // time fall with the size, and then nothing is stored (this test is about --force)
  r = kernels(fmt::format("build -o {} --kernels gemm --force {}", db, kSmall));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(phase::KernelDatabase::open(db).kernels(), (std::vector<std::string>{"gemm"}));
}

TEST(KernelsShippedDatabase, HoldsAModelForEveryKernel)
{
  // examples/kernels/README.md says how it was built; a test fixture, not a reference for any machine
  const std::string path = test::source_dir() + "/examples/kernels/kernels-2procs.db";
  const phase::KernelDatabase db = phase::KernelDatabase::open(path);
  EXPECT_EQ(db.procs(), 2);
  std::vector<std::string> names;
  for (const phase::KernelSpec& k : phase::reference_kernels()) names.push_back(k.name);
  EXPECT_EQ(db.kernels(), names);
  for (const std::string& name : names) {
    const phase::KernelModel model = db.model(name);
    EXPECT_GE(model.points().size(), 3u) << name;
    EXPECT_GT(model.seconds_at(model.max_size()), model.seconds_at(model.min_size())) << name;
  }
  // a version 1 file (no kernel table): the units are the reference kernels'
  EXPECT_EQ(db.version(), 1);
  EXPECT_EQ(db.size_unit("lu").dim, 2);
  EXPECT_EQ(db.size_unit("cg").counts, "matrix rows");
  EXPECT_EQ(db.size_unit("bt").dim, 3);
  const auto r = test::run_perfcast("kernels list --json " + path);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["version"], 1);
  for (const auto& k : j["kernels"])
    if (k["name"] == "spmv") {
      EXPECT_EQ(k["size_dim"], 1) << k.dump();
    }
}

TEST(KernelsShippedDatabase, ListRefusesAFileThatIsNotAKernelDatabase)
{
  test::TempDir dir;
  auto r = test::run_perfcast("kernels list " + dir.file("x.db", "not sqlite\n"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("x.db: not a perfcast kernel database"), std::string::npos) << r.output;
}

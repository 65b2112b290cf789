// The reference-kernel database (src/phase/KernelDatabase): what is stored
// comes back, models are built from it, and foreign or broken files are
// refused with the file named.
#include "TestUtil.hpp"
#include "core/Error.hpp"
#include "phase/KernelDatabase.hpp"

#include <fstream>
#include <gtest/gtest.h>

using namespace perfcast::phase;

TEST(KernelDatabase, StoresMeasurementsAndBuildsModels) {
  perfcast::test::TempDir dir;
  const std::string path = dir.path() + "/k.db";
  {
    KernelDatabase db = KernelDatabase::create(path, "node-a", 8);
    db.add("mm", {{100, 0.008}, {200, 0.064}, {400, 0.512}});
    db.add("cg", {{1000, 0.5}, {2000, 1.0}});
  }
  const KernelDatabase db = KernelDatabase::open(path);
  EXPECT_EQ(db.machine(), "node-a");
  EXPECT_EQ(db.procs(), 8);
  EXPECT_EQ(db.kernels(), (std::vector<std::string>{"cg", "mm"}));
  ASSERT_EQ(db.points("mm").size(), 3u);
  // mm is 8e-9 n^3, a line in log-log: the model gives 8e-9 * 300^3 = 0.216 s.
  EXPECT_NEAR(db.model("mm").seconds_at(300), 0.216, 1e-9);
  EXPECT_THROW(db.model("fft"), perfcast::Error);
}

TEST(KernelDatabase, RefusesForeignFilesAndBadMeasurements) {
  perfcast::test::TempDir dir;
  const std::string text = dir.path() + "/notes.txt";
  std::ofstream(text) << "not a database\n";
  try {
    KernelDatabase::open(text);
    FAIL() << "expected an error";
  } catch (const perfcast::Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
  EXPECT_THROW(KernelDatabase::open(dir.path() + "/missing.db"), perfcast::Error);
  EXPECT_THROW(KernelDatabase::create(text, "m", 1), perfcast::Error); // never overwrites
  std::ifstream still(text);
  std::string line;
  std::getline(still, line);
  EXPECT_EQ(line, "not a database");
  KernelDatabase db = KernelDatabase::create(dir.path() + "/k.db", "m", 2);
  // A bad point rejects the whole batch: nothing of it is stored.
  EXPECT_THROW(db.add("mm", {{100, 1}, {200, -1}}), perfcast::Error);
  EXPECT_TRUE(db.kernels().empty());
}

// The reference-kernel database (src/phase/KernelDatabase): what is stored
// comes back, models are built from it, and foreign or broken files are
// refused with the file named.
#include "TestUtil.hpp"
#include "core/Error.hpp"
#include "phase/KernelDatabase.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace perfcast::phase;

TEST(KernelDatabase, StoresMeasurementsAndBuildsModels) {
  perfcast::test::TempDir dir;
  const std::string path = dir.path() + "/k.db";
  {
    KernelDatabase db = KernelDatabase::create(path, "node-a", 8);
    db.add("mm", {"matrix order", 2}, {{100, 0.008}, {200, 0.064}, {400, 0.512}});
    db.add("cg", {"matrix rows", 1}, {{1000, 0.5}, {2000, 1.0}});
  }
  const KernelDatabase db = KernelDatabase::open(path);
  EXPECT_EQ(db.machine(), "node-a");
  EXPECT_EQ(db.procs(), 8);
  EXPECT_EQ(db.kernels(), (std::vector<std::string>{"cg", "mm"}));
  ASSERT_EQ(db.points("mm").size(), 3u);
  // mm is 8e-9 n^3, a line in log-log: the model gives 8e-9 * 300^3 = 0.216 s.
  EXPECT_NEAR(db.model("mm").seconds_at(300), 0.216, 1e-9);
  EXPECT_THROW(db.model("fft"), perfcast::Error);
  EXPECT_EQ(db.version(), 2);
  EXPECT_EQ(db.size_unit("mm").counts, "matrix order");
  EXPECT_EQ(db.size_unit("mm").dim, 2);
  EXPECT_EQ(db.size_unit("cg").dim, 1);
  EXPECT_THROW(db.size_unit("fft"), perfcast::Error);
}

TEST(KernelDatabase, AVersionOneFileTakesTheReferenceKernelsUnitsOrSaysWhyNot) {
  // Sessions 5 to 12 wrote version 1: no kernel table. Make one from a
  // version 2 file: drop the table, set the version back.
  perfcast::test::TempDir dir;
  const std::string path = dir.path() + "/old.db";
  KernelDatabase::create(path, "m", 2).add("lu", {"matrix order", 2}, {{32, 1e-4}, {64, 8e-4}});
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE kernel; UPDATE meta SET value = '1' WHERE key = 'version'; "
                                "INSERT INTO measurement VALUES ('mine', 10, 1, 0), ('mine', 20, 2, 0)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  KernelDatabase db = KernelDatabase::open(path);
  EXPECT_EQ(db.version(), 1);
  EXPECT_NEAR(db.model("lu").seconds_at(64), 8e-4, 1e-12); // read as before
  EXPECT_EQ(db.size_unit("lu").counts, "matrix order");    // perfcast's lu
  EXPECT_EQ(db.size_unit("lu").dim, 2);
  try {
    db.size_unit("mine");
    FAIL() << "expected an error";
  } catch (const perfcast::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": version 1 kernel database: kernel mine has no size unit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(db.add("gemm", {"matrix order", 2}, {{32, 1e-4}, {64, 8e-4}}), perfcast::Error);
  // a unit outside 1 to 3 dimensions is refused in a new file
  KernelDatabase fresh = KernelDatabase::create(dir.path() + "/new.db", "m", 2);
  EXPECT_THROW(fresh.add("k", {"hypercube side", 4}, {{1, 1}, {2, 2}}), perfcast::Error);
  EXPECT_TRUE(fresh.kernels().empty());
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
  EXPECT_THROW(db.add("mm", {"matrix order", 2}, {{100, 1}, {200, -1}}), perfcast::Error);
  EXPECT_TRUE(db.kernels().empty());
}

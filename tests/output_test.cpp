// Outputs (src/core/OutputFile): what perfcast may replace, what it writes
// through, and that no failure passes for success. Regression tests for the
// review's item 5: an SVG once replaced a device node.
#include "core/Error.hpp"
#include "core/OutputFile.hpp"
#include "TestUtil.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <thread>

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

std::string examples() { return test::source_dir() + "/examples"; }

std::string replay_args()
{
  return examples() + "/traces/collectives8/trace.txt --platform " + examples() + "/platforms/hetero8.xml -q";
}

mode_t file_type(const std::string& path)
{
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & S_IFMT;
}

} // namespace

TEST(Output, TimelineDoesNotReplaceADeviceNode)
{
  // what broke: run as root, --timeline /dev/full replaced the device node with an SVG file
  test::TempDir dir;
  std::string dev = dir.path() + "/null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot create a device node here (needs root): " << std::strerror(errno);
  auto r = test::run_perfcast("replay " + replay_args() + " --timeline " + dev);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(file_type(dev), static_cast<mode_t>(S_IFCHR)) << "the device node was replaced";
}

TEST(Output, WriteErrorOnADeviceIsReported)
{
  // /dev/full refuses every write with ENOSPC
  if (::access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/full";
  auto r = test::run_perfcast("replay " + replay_args() + " --timeline /dev/full");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/full: cannot write file: No space left on device"), std::string::npos) << r.output;
  EXPECT_EQ(file_type("/dev/full"), static_cast<mode_t>(S_IFCHR));
}

TEST(Output, JsonToAFullDeviceExitsNonZero)
{
  // what broke: `--json > /dev/full` exited 0
  if (::access("/dev/full", W_OK) != 0)
    GTEST_SKIP() << "no writable /dev/full";
  auto r = test::run_command("sh -c '" + test::perfcast_binary() + " replay " + replay_args() + " --json > /dev/full'");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("standard output: cannot write: No space left on device"), std::string::npos) << r.output;
}

TEST(Output, SymbolicLinkIsFollowedAndKept)
{
  test::TempDir dir;
  std::string target = dir.path() + "/real.svg", link = dir.path() + "/link.svg";
  fs::create_symlink("real.svg", link);
  auto r = test::run_perfcast("replay " + replay_args() + " --timeline " + link);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(file_type(link), static_cast<mode_t>(S_IFLNK));
  EXPECT_NE(test::read_text(target).find("</svg>"), std::string::npos);
  // a second run replaces the target (perfcast wrote it), still through the link
  r = test::run_perfcast("replay " + replay_args() + " --timeline " + link);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(file_type(link), static_cast<mode_t>(S_IFLNK));
}

TEST(Output, FifoIsWrittenThroughNotReplaced)
{
  test::TempDir dir;
  std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = test::read_text(fifo); });
  auto r = test::run_perfcast("replay " + replay_args() + " --timeline " + fifo);
  reader.join();
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(file_type(fifo), static_cast<mode_t>(S_IFIFO));
  EXPECT_NE(received.find("</svg>"), std::string::npos);
}

TEST(Output, DashMeansStandardOutput)
{
  auto r = test::run_command(test::perfcast_binary() + " replay " + replay_args() + " --json --timeline - 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("\"makespan_s\""), std::string::npos);
  EXPECT_NE(r.output.find("</svg>"), std::string::npos);
  EXPECT_FALSE(fs::exists("-"));
}

TEST(Output, ReplacedFileKeepsItsMode)
{
  test::TempDir dir;
  std::string svg = dir.path() + "/t.svg";
  ASSERT_EQ(test::run_perfcast("replay " + replay_args() + " --timeline " + svg).status, 0);
  ASSERT_EQ(::chmod(svg.c_str(), 0640), 0);
  ASSERT_EQ(test::run_perfcast("replay " + replay_args() + " --timeline " + svg).status, 0);
  struct stat st {};
  ASSERT_EQ(::stat(svg.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(Output, FileNotWrittenByPerfcastNeedsForce)
{
  test::TempDir dir;
  std::string notes = dir.file("notes.txt", "my own notes\n");
  std::string runs = examples() + "/runs/stencil2d-4nodes.csv", platform = examples() + "/platforms/table1-4nodes.json";
  auto r = test::run_perfcast("fit qn " + runs + " -p " + platform + " -o " + notes);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("notes.txt: exists and was not written by perfcast"), std::string::npos) << r.output;
  EXPECT_EQ(test::read_text(notes), "my own notes\n");
  r = test::run_perfcast("fit qn " + runs + " -p " + platform + " -o " + notes + " --force");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(written_by_perfcast(notes));
  // the model perfcast wrote is replaced without --force, and so is an SVG
  r = test::run_perfcast("fit qn " + runs + " -p " + platform + " -o " + notes);
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(Output, PathsAreCheckedBeforeTheReplayStarts)
{
  // what broke: a bad --timeline path was found only after the whole replay;
  // here the trace does not even exist, so an output error proves the order
  auto r = test::run_perfcast("replay /nonexistent/trace.txt --platform " + examples() +
                              "/platforms/hetero8.xml --timeline /nonexistent-dir/t.svg");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("/nonexistent-dir/t.svg: directory '/nonexistent-dir' does not exist"), std::string::npos)
      << r.output;
  test::TempDir dir;
  r = test::run_perfcast("replay /nonexistent/trace.txt --platform " + examples() + "/platforms/hetero8.xml --timeline " +
                         dir.path());
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
}

TEST(Output, UnknownCollectiveAlgorithmIsRejectedBeforeAnyWork)
{
  // what broke: `--coll allreduce=foo` read freed memory while building its
  // error message, in the middle of the replay
  auto r = test::run_perfcast("replay /nonexistent/trace.txt --platform " + examples() +
                              "/platforms/hetero8.xml --coll allreduce=foo");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("--coll 'allreduce=foo': unknown allreduce algorithm 'foo' (expected one of: default, "
                          "reduce-bcast, recursive-doubling, ring, rabenseifner)"),
            std::string::npos)
      << r.output;
  r = test::run_perfcast("replay /nonexistent/trace.txt --platform " + examples() + "/platforms/hetero8.xml --coll gossip=x");
  EXPECT_NE(r.output.find("no algorithm choice for 'gossip'"), std::string::npos) << r.output;
}

TEST(Output, EagerThresholdMustBeANonNegativeNumber)
{
  // what broke: --eager-threshold -5 and nan were accepted
  for (const char* bad : {"-5", "nan", "inf"}) {
    auto r = test::run_perfcast("replay " + replay_args() + " --eager-threshold " + bad);
    EXPECT_EQ(r.status, 1) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("expected a non-negative number of bytes"), std::string::npos) << r.output;
  }
}

TEST(Output, MarkedSvgIsRecognisedAndMarkedOnce)
{
  std::string svg = mark_svg("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(mark_svg(svg), svg);
  test::TempDir dir;
  std::string path = dir.file("x.svg", svg);
  EXPECT_TRUE(written_by_perfcast(path));
  EXPECT_FALSE(written_by_perfcast(dir.file("y.svg", "<svg></svg>")));
  EXPECT_TRUE(written_by_perfcast(dir.file("empty", "")));
}

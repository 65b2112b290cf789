// Standard Workload Format reading (src/sched/Swf): fields, header, errors.
#include "core/Error.hpp"
#include "sched/Swf.hpp"

#include <gtest/gtest.h>

using namespace perfcast;
using namespace perfcast::sched;

namespace {

std::string error_of(const std::string& text)
{
  try {
    parse_swf(text, "log.swf");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

} // namespace

TEST(Swf, ReadsJobsAndHeader)
{
  SwfLog log = parse_swf("; Version: 2.2\n; MaxProcs: 128\n"
                         "1 0 10 3600 64 -1 -1 64 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
                         "\n"
                         "2 5 -1 120 -1 -1 -1 8 600 -1 0 4 1 -1 1 -1 1 30\n",
                         "log.swf");
  EXPECT_EQ(log.max_procs, 128);
  EXPECT_EQ(log.header.size(), 2u);
  ASSERT_EQ(log.jobs.size(), 2u);
  EXPECT_EQ(log.jobs[0].procs(), 64);
  EXPECT_DOUBLE_EQ(log.jobs[0].run_s, 3600);
  EXPECT_DOUBLE_EQ(log.jobs[0].requested_s, 7200);
  EXPECT_EQ(log.jobs[1].procs(), 8); // allocated unknown: the requested count
  EXPECT_EQ(log.jobs[1].preceding_job, 1);
  EXPECT_EQ(log.jobs[1].line, 5u);
}

TEST(Swf, BadLinesAreNamed)
{
  EXPECT_NE(error_of("1 0 10 3600 64\n").find("log.swf:1: 5 fields (expected the 18 fields"), std::string::npos);
  EXPECT_NE(error_of("1 -5 10 3600 64 -1 -1 64 7200 -1 1 3 1 -1 1 -1 -1 -1\n").find("log.swf:1: negative submit time"),
            std::string::npos);
  EXPECT_NE(error_of("; c\n1 0 10 -7 64 -1 -1 64 7200 -1 1 3 1 -1 1 -1 -1 -1\n").find("log.swf:2: negative run time"),
            std::string::npos);
  EXPECT_NE(error_of("1 0 10 3600 x -1 -1 64 7200 -1 1 3 1 -1 1 -1 -1 -1\n")
                .find("allocated processors 'x' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of("1 0 10 3600 -1 -1 -1 -1 7200 -1 1 3 1 -1 1 -1 -1 -1\n").find("no processor count"),
            std::string::npos);
  EXPECT_NE(error_of("1 9 10 3600 4 -1 -1 4 7200 -1 1 3 1 -1 1 -1 -1 -1\n"
                     "2 3 10 3600 4 -1 -1 4 7200 -1 1 3 1 -1 1 -1 -1 -1\n")
                .find("log.swf:2: submit time 3 before the previous job's 9"),
            std::string::npos);
}

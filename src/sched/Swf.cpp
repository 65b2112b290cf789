#include "sched/Swf.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <cmath>
#include <fmt/format.h>

namespace perfcast::sched {
namespace {

constexpr int kFields = 18;
constexpr const char* kFieldNames[kFields] = {
    "job number", "submit time", "wait time", "run time", "allocated processors", "average CPU time",
    "used memory", "requested processors", "requested time", "requested memory", "status", "user id",
    "group id", "executable number", "queue number", "partition number", "preceding job", "think time"};

} // namespace

SwfLog parse_swf(const std::string& text, const std::string& path)
{
  SwfLog log;
  log.path = path;
  std::size_t line_no = 0, start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_no;
    line = trim(line);
    if (line.empty())
      continue;
    if (line.front() == ';') {
      log.header.emplace_back(line);
      auto pos = line.find("MaxProcs:");
      if (pos != std::string_view::npos)
        log.max_procs = std::atoi(std::string(line.substr(pos + 9)).c_str());
      continue;
    }
    double v[kFields];
    int n = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
      if (i == line.size())
        break;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t')
        ++j;
      std::string field(line.substr(i, j - i));
      if (n < kFields) {
        char* stop = nullptr;
        v[n] = std::strtod(field.c_str(), &stop);
        if (*stop != '\0' || !std::isfinite(v[n]))
          fail_at(path, line_no, fmt::format("{} '{}' is not a number", kFieldNames[n], field));
      }
      ++n;
      i = j;
    }
    if (n != kFields)
      fail_at(path, line_no, fmt::format("{} fields (expected the 18 fields of the Standard Workload Format)", n));
    SwfJob job;
    job.line = line_no;
    job.id = static_cast<long long>(v[0]);
    job.submit_s = v[1];
    job.wait_s = v[2];
    job.run_s = v[3];
    job.allocated_procs = static_cast<int>(v[4]);
    job.avg_cpu_s = v[5];
    job.used_memory_kb = v[6];
    job.requested_procs = static_cast<int>(v[7]);
    job.requested_s = v[8];
    job.requested_memory_kb = v[9];
    job.status = static_cast<int>(v[10]);
    job.user = static_cast<int>(v[11]);
    job.group = static_cast<int>(v[12]);
    job.executable = static_cast<int>(v[13]);
    job.queue = static_cast<int>(v[14]);
    job.partition = static_cast<int>(v[15]);
    job.preceding_job = static_cast<long long>(v[16]);
    job.think_s = v[17];
    if (job.submit_s < 0)
      fail_at(path, line_no, fmt::format("negative submit time {} (expected seconds from the log's start)", v[1]));
    if (job.run_s < 0 && job.run_s != -1)
      fail_at(path, line_no, fmt::format("negative run time {} (expected seconds, or -1 for unknown)", v[3]));
    if (job.wait_s < 0 && job.wait_s != -1)
      fail_at(path, line_no, fmt::format("negative wait time {} (expected seconds, or -1 for unknown)", v[2]));
    if (job.procs() <= 0)
      fail_at(path, line_no, "no processor count (expected allocated or requested processors above 0)");
    if (!log.jobs.empty() && job.submit_s < log.jobs.back().submit_s)
      fail_at(path, line_no,
              fmt::format("submit time {} before the previous job's {} (expected jobs in submit order)", job.submit_s,
                          log.jobs.back().submit_s));
    log.jobs.push_back(job);
  }
  return log;
}

SwfLog read_swf(const std::string& path) { return parse_swf(read_file(path, "workload file"), path); }

} // namespace perfcast::sched

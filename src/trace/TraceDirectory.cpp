#include "trace/TraceDirectory.hpp"

#include "core/Error.hpp"

#include <filesystem>

namespace perfcast {
namespace {

std::string file_in_directory(const std::string& path, const char* name, const char* what)
{
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec))
    return path;
  std::filesystem::path file = std::filesystem::path(path) / name;
  if (!std::filesystem::exists(file, ec))
    fail_in(path, std::string("a directory without ") + name + " (expected " + what +
                      ", or a directory written by perfcast trace)");
  return file.string();
}

} // namespace

std::string trace_index_for(const std::string& path)
{
  // perfcast trace writes trace.txt, perfcast extrapolate index.txt
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec) && !std::filesystem::exists(std::filesystem::path(path) / "trace.txt", ec) &&
      std::filesystem::exists(std::filesystem::path(path) / "index.txt", ec))
    return (std::filesystem::path(path) / "index.txt").string();
  return file_in_directory(path, "trace.txt", "a trace index");
}

std::string run_file_for(const std::string& path) { return file_in_directory(path, "profile.json", "a run file"); }

} // namespace perfcast

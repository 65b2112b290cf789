#include "core/OutputFile.hpp"

#include "core/AtomicFile.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace perfcast {
namespace {

namespace fs = std::filesystem;

// The mark as it stands in JSON outputs ("generator": "perfcast 0.1.0").
constexpr std::string_view kJsonGeneratorMark = "\"generator\": \"perfcast";

std::string system_error(int err) { return std::strerror(err); }

/// Follows symbolic links (at most 40, as the kernel does) to the path they end at,
/// which may not exist yet.
std::string follow_links(const std::string& path)
{
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return current;
    std::error_code ec;
    fs::path target = fs::read_symlink(current, ec);
    if (ec)
      fail_in(path, "cannot read symbolic link: " + ec.message());
    current = target.is_absolute() ? target.string() : (fs::path(current).parent_path() / target).string();
  }
  fail_in(path, "too many levels of symbolic links");
}

void check_directory_writable(const std::string& path, const std::string& resolved)
{
  fs::path dir = fs::path(resolved).parent_path();
  if (dir.empty())
    dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    fail_in(path, fmt::format("directory '{}' does not exist (expected an existing directory)", dir.string()));
  if (!S_ISDIR(st.st_mode))
    fail_in(path, fmt::format("'{}' is not a directory", dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail_in(path, fmt::format("cannot write in directory '{}': {}", dir.string(), system_error(errno)));
}

} // namespace

bool written_by_perfcast(const std::string& path)
{
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return false;
  char head[4096];
  std::size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  std::string_view text(head, n);
  return n == 0 || text.find(kGeneratorMark) != std::string_view::npos ||
         text.find(kJsonGeneratorMark) != std::string_view::npos;
}

OutputTarget check_output(const std::string& path, std::string_view what, bool force)
{
  OutputTarget t;
  t.path = path;
  if (path.empty())
    throw Error(fmt::format("empty path for the {} (expected a file name, or - for standard output)", what));
  if (path == "-") {
    t.mode = OutputMode::Stdout;
    t.resolved = path;
    return t;
  }
  t.resolved = follow_links(path);
  struct stat st {};
  if (::stat(t.resolved.c_str(), &st) != 0) {
    if (errno != ENOENT)
      fail_in(path, "cannot inspect the path: " + system_error(errno));
    check_directory_writable(path, t.resolved);
    t.mode = OutputMode::Replace;
    return t;
  }
  if (S_ISDIR(st.st_mode))
    fail_in(path, fmt::format("is a directory (expected a file name for the {})", what));
  if (!S_ISREG(st.st_mode)) {
    // FIFOs, terminals and devices are written in place, never replaced
    if (::access(t.resolved.c_str(), W_OK) != 0)
      fail_in(path, "cannot write: " + system_error(errno));
    t.mode = OutputMode::WriteThrough;
    return t;
  }
  if (!force && !written_by_perfcast(t.resolved))
    fail_in(path, fmt::format("exists and was not written by perfcast; refusing to replace it with the {} "
                              "(expected a new path, or --force)",
                              what));
  check_directory_writable(path, t.resolved);
  t.mode = OutputMode::Replace;
  t.exists = true;
  return t;
}

void write_output(const OutputTarget& target, std::string_view content)
{
  switch (target.mode) {
  case OutputMode::Stdout:
    std::cout.write(content.data(), static_cast<std::streamsize>(content.size()));
    flush_stdout();
    return;
  case OutputMode::Replace:
    write_file_atomically(target.resolved, content);
    return;
  case OutputMode::WriteThrough: {
    int fd = ::open(target.resolved.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
      fail_in(target.path, "cannot open for writing: " + system_error(errno));
    try {
      write_all_to_fd(fd, content, target.path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0)
      fail_in(target.path, "cannot write file: " + system_error(errno));
    return;
  }
  }
}

void write_output_file(const std::string& path, std::string_view what, bool force, std::string_view content)
{
  write_output(check_output(path, what, force), content);
}

std::string mark_svg(std::string_view svg)
{
  if (svg.substr(0, 1024).find(kGeneratorMark) != std::string_view::npos)
    return std::string(svg);
  std::string out;
  std::size_t root = 0;
  if (svg.substr(0, 5) == "<?xml") {
    root = svg.find("?>");
    root = root == std::string_view::npos ? 0 : root + 2;
    if (root < svg.size() && svg[root] == '\n')
      ++root;
  } else {
    out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  }
  out.append(svg.substr(0, root));
  out += fmt::format("<!-- {} -->\n", kGeneratorMark);
  out.append(svg.substr(root));
  return out;
}

void flush_stdout()
{
  // a write that already failed (output larger than the stream's buffer)
  // left its reason in errno; a flush that fails now leaves its own
  int earlier = std::cout ? 0 : errno;
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0) {
    int err = errno ? errno : earlier;
    std::cout.clear();
    throw Error(fmt::format("standard output: cannot write: {}", err ? system_error(err) : "stream error"));
  }
}

bool create_output_directory(const std::string& dir, std::string_view what)
{
  if (dir.empty())
    throw Error(fmt::format("empty path for the {} (expected a directory name)", what));
  const std::string resolved = follow_links(dir);
  struct stat st {};
  if (::stat(resolved.c_str(), &st) == 0)
    return false;
  if (errno != ENOENT)
    fail_in(dir, "cannot inspect the path: " + system_error(errno));
  // the parent must be there: a mistyped path must not grow a tree of directories
  std::string normal = fs::path(resolved).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/')
    normal.pop_back();
  check_directory_writable(dir, normal);
  if (::mkdir(resolved.c_str(), 0777) != 0)
    fail_in(dir, fmt::format("cannot create the {} directory: {}", what, system_error(errno)));
  return true;
}

OutputDirectory::OutputDirectory(const std::string& dir, std::string_view what, bool force, const OursFn& ours)
    : path_(dir)
{
  if (dir.empty())
    throw Error(fmt::format("empty path for the {} (expected a directory name)", what));
  resolved_ = follow_links(dir);
  const std::string& resolved = resolved_;
  if (create_output_directory(dir, what)) {
    created_ = true;
    on_interrupt_ = std::make_unique<CleanupOnInterrupt>(resolved);
    return;
  }
  struct stat st {};
  if (::stat(resolved.c_str(), &st) != 0)
    fail_in(dir, "cannot inspect the path: " + system_error(errno));
  if (!S_ISDIR(st.st_mode))
    fail_in(dir, fmt::format("exists and is not a directory (expected a directory for the {})", what));
  if (::access(resolved.c_str(), W_OK | X_OK) != 0)
    fail_in(dir, "cannot write in the directory: " + system_error(errno));
  std::vector<std::string> foreign;
  for (const auto& entry : fs::directory_iterator(resolved)) {
    if (ours(entry))
      earlier_.push_back(entry.path());
    else
      foreign.push_back(entry.path().filename().string());
  }
  std::sort(earlier_.begin(), earlier_.end());
  std::sort(foreign.begin(), foreign.end());
  if (!foreign.empty() && !force)
    fail_in(dir, fmt::format("the directory holds '{}', which perfcast did not write (expected an empty or new "
                             "directory, one perfcast wrote the {} in, or --force to replace only perfcast's files)",
                             foreign.front(), what));
}

OutputDirectory::~OutputDirectory()
{
  if (kept_ || !created_)
    return;
  std::error_code ec;
  fs::remove_all(resolved_, ec);
}

void OutputDirectory::keep()
{
  kept_ = true;
  if (on_interrupt_)
    on_interrupt_->release();
}

} // namespace perfcast

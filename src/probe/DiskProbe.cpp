#include "probe/MachineProbes.hpp"

#include "core/Error.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace perfcast::probe {
namespace {

constexpr std::size_t kBlock = 1u << 20; // 1 MiB, a multiple of any device's O_DIRECT alignment

/// The probe's temporary file: created in the directory, removed when done.
class ScratchFile {
public:
  explicit ScratchFile(const std::string& dir)
  {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw Error(fmt::format("{}: expected a directory for the disk probe", dir));
    path_ = dir + "/.perfcast-probe-XXXXXX";
    int fd = ::mkstemp(path_.data());
    if (fd < 0)
      throw Error(fmt::format("{}: cannot create the disk probe's file: {}", dir, std::strerror(errno)));
    ::close(fd);
  }
  ~ScratchFile() { ::unlink(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

struct Fd {
  int fd = -1;
  ~Fd()
  {
    if (fd >= 0)
      ::close(fd);
  }
};

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Bytes per second of writing (then fdatasync) or reading the whole file once.
double pass(const std::string& path, bool direct, bool write, std::size_t blocks, char* buffer)
{
  Fd f;
  // a write truncates first: each pass allocates its blocks, as a process writing a new file does
  f.fd = ::open(path.c_str(), (write ? O_WRONLY | O_TRUNC : O_RDONLY) | (direct ? O_DIRECT : 0));
  if (f.fd < 0)
    throw Error(fmt::format("{}: cannot open for the disk probe: {}", path, std::strerror(errno)));
  if (!write && !direct) // clean pages of the file leave the cache, so the read goes to the device
    ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  double t0 = now_s();
  for (std::size_t b = 0; b < blocks; ++b) {
    ssize_t n = write ? ::write(f.fd, buffer, kBlock) : ::read(f.fd, buffer, kBlock);
    if (n != static_cast<ssize_t>(kBlock))
      throw Error(fmt::format("{}: disk probe {} failed: {}", path, write ? "write" : "read",
                              n < 0 ? std::strerror(errno) : "short transfer"));
  }
  if (write && ::fdatasync(f.fd) != 0)
    throw Error(fmt::format("{}: disk probe fdatasync failed: {}", path, std::strerror(errno)));
  double t = now_s() - t0;
  return static_cast<double>(blocks * kBlock) / t;
}

} // namespace

DiskFigure probe_disk(const std::string& dir, double file_bytes, const StoppingRule& rule, const Progress& progress)
{
  ScratchFile file(dir);
  std::size_t blocks = std::max<std::size_t>(1, static_cast<std::size_t>(file_bytes / kBlock));
  std::unique_ptr<char, decltype(&std::free)> buffer(static_cast<char*>(std::aligned_alloc(4096, kBlock)), std::free);
  std::memset(buffer.get(), 7, kBlock);
  DiskFigure f;
  auto measure = [&](const char* name, bool direct, bool write) {
    return measure_until_tight(rule, [&] { return pass(file.path(), direct, write, blocks, buffer.get()); },
                               [&](const Estimate& e) {
                                 if (progress)
                                   progress(name, e);
                               });
  };
  f.write_buffered = measure("disk write (buffered)", false, true);
  f.read_buffered = measure("disk read (buffered)", false, false);
  {
    Fd probe;
    probe.fd = ::open(file.path().c_str(), O_RDONLY | O_DIRECT);
    f.has_direct = probe.fd >= 0;
    if (!f.has_direct)
      f.note = fmt::format("O_DIRECT refused in {} ({}): the buffered figures stand for the disk", dir,
                           std::strerror(errno));
  }
  if (f.has_direct) {
    f.write_direct = measure("disk write (direct)", true, true);
    f.read_direct = measure("disk read (direct)", true, false);
  }
  return f;
}

} // namespace perfcast::probe

#include "probe/MachineProbes.hpp"

#include "core/Error.hpp"
#include "probe/CpuRate.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

namespace perfcast::probe {
namespace {

constexpr std::size_t kBlock = 1u << 20; // 1 MiB, a multiple of any device's O_DIRECT alignment

} // namespace

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

namespace {

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

/// Flop per wall second of `cores` threads running the probe's mix while
/// `during` runs on the calling thread (the threads start before it and stop
/// after it), and the seconds `during` took.
template <typename F>
std::pair<double, double> mix_rate_beside(int cores, F&& during)
{
  std::atomic<bool> stop{false};
  std::vector<double> flops(static_cast<std::size_t>(cores), 0.0);
  std::vector<std::thread> threads;
  double t0 = now_s();
  for (double& f : flops)
    threads.emplace_back([&f, &stop] {
      double x[8] = {1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
      double flop = 0;
      while (!stop.load(std::memory_order_relaxed))
        flop += mix_chunk(x);
      volatile double sink = x[0] + x[7];
      (void)sink;
      f = flop;
    });
  double d0 = now_s();
  during();
  double took = now_s() - d0;
  stop = true;
  for (std::thread& t : threads)
    t.join();
  double wall = now_s() - t0, sum = 0;
  for (double f : flops)
    sum += f;
  return {sum / wall, took};
}

} // namespace

DiskSampler::DiskSampler(const std::string& dir, double file_bytes, int cores)
    : file_(std::make_unique<ScratchFile>(dir)), dir_(dir),
      blocks_(std::max<std::size_t>(1, static_cast<std::size_t>(file_bytes / kBlock))),
      buffer_(static_cast<char*>(std::aligned_alloc(4096, kBlock)), std::free)
{
  std::memset(buffer_.get(), 7, kBlock);
  pass(file_->path(), false, true, blocks_, buffer_.get()); // the file exists in full before any read
  Fd probe;
  probe.fd = ::open(file_->path().c_str(), O_RDONLY | O_DIRECT);
  has_direct_ = probe.fd >= 0;
  cores_ = has_direct_ ? std::max(0, cores) : 0;
  if (!has_direct_)
    note_ = fmt::format("O_DIRECT refused in {} ({}): the buffered figures stand for the disk", dir,
                        std::strerror(errno));
}

DiskSampler::~DiskSampler() = default;

std::vector<std::string> DiskSampler::names() const
{
  std::vector<std::string> out{"disk write (buffered)", "disk read (buffered)"};
  if (has_direct_) {
    out.push_back("disk write (direct)");
    out.push_back("disk read (direct)");
  }
  if (cores_ > 0) {
    out.push_back("disk CPU per byte (direct write)");
    out.push_back("disk write (direct, cores busy)");
  }
  return out;
}

std::vector<double> DiskSampler::sample()
{
  std::vector<double> out{pass(file_->path(), false, true, blocks_, buffer_.get()),
                          pass(file_->path(), false, false, blocks_, buffer_.get())};
  if (has_direct_) {
    out.push_back(pass(file_->path(), true, true, blocks_, buffer_.get()));
    out.push_back(pass(file_->path(), true, false, blocks_, buffer_.get()));
  }
  if (cores_ > 0) {
    // the mix on every core alone, beside a direct write, and alone again (the
    // two alone around the write, so a drift of the machine's speed cancels):
    // the cores lost while the write ran, times its duration, over its bytes
    auto idle = [] { std::this_thread::sleep_for(std::chrono::milliseconds(250)); };
    double alone0 = mix_rate_beside(cores_, idle).first;
    double bytes = static_cast<double>(blocks_ * kBlock);
    auto [beside, took] = mix_rate_beside(cores_, [&] { pass(file_->path(), true, true, blocks_, buffer_.get()); });
    double alone1 = mix_rate_beside(cores_, idle).first;
    double alone = 0.5 * (alone0 + alone1);
    out.push_back(static_cast<double>(cores_) * (1 - beside / alone) * took / bytes);
    out.push_back(bytes / took);
  }
  return out;
}

DiskFigure DiskSampler::figure(const std::vector<Estimate>& figures) const
{
  DiskFigure f;
  f.write_buffered = figures.at(0);
  f.read_buffered = figures.at(1);
  f.has_direct = has_direct_;
  f.note = note_;
  if (has_direct_) {
    f.write_direct = figures.at(2);
    f.read_direct = figures.at(3);
  }
  if (cores_ > 0) {
    f.cpu_per_byte = figures.at(4);
    f.write_direct_busy = figures.at(5);
    f.cores_busy = cores_;
  }
  return f;
}

} // namespace perfcast::probe

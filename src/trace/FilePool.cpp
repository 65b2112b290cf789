#include "trace/FilePool.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

namespace perfcast {

FilePool::FilePool(std::size_t max_open) : max_open_(std::max<std::size_t>(1, max_open)) {}

FilePool::~FilePool()
{
  for (File& f : files_)
    if (f.fd >= 0)
      ::close(f.fd);
}

std::size_t FilePool::default_max_open()
{
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return 256;
  return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur / 4), 8, 256);
}

std::size_t FilePool::add(std::string path)
{
  files_.push_back(File{std::move(path)});
  return files_.size() - 1;
}

void FilePool::unlink(std::size_t id)
{
  File& f = files_[id];
  (f.newer == kNone ? newest_ : files_[f.newer].older) = f.older;
  (f.older == kNone ? oldest_ : files_[f.older].newer) = f.newer;
  f.newer = f.older = kNone;
}

void FilePool::push_newest(std::size_t id)
{
  File& f = files_[id];
  f.older = newest_;
  f.newer = kNone;
  (newest_ == kNone ? oldest_ : files_[newest_].newer) = id;
  newest_ = id;
}

void FilePool::close(std::size_t id)
{
  File& f = files_[id];
  if (f.fd < 0)
    return;
  unlink(id);
  ::close(f.fd);
  f.fd = -1;
  --open_;
}

void FilePool::close_oldest() { close(oldest_); }

int FilePool::descriptor(std::size_t id)
{
  File& f = files_[id];
  if (f.fd >= 0) {
    if (newest_ != id) {
      unlink(id);
      push_newest(id);
    }
    return f.fd;
  }
  if (open_ >= max_open_)
    close_oldest();
  for (;;) {
    f.fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd >= 0)
      break;
    // descriptors taken elsewhere in the process: give back ours and retry
    if ((errno == EMFILE || errno == ENFILE) && open_ > 0) {
      close_oldest();
      continue;
    }
    if (errno != EINTR)
      fail_in(f.path, fmt::format("cannot open trace file: {}", std::strerror(errno)));
  }
  ++open_;
  push_newest(id);
  return f.fd;
}

std::size_t FilePool::read_at(std::size_t id, std::uint64_t offset, char* data, std::size_t size)
{
  int fd = descriptor(id);
  for (;;) {
    ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n >= 0)
      return static_cast<std::size_t>(n);
    if (errno != EINTR)
      fail_in(files_[id].path, fmt::format("read error: {}", std::strerror(errno)));
  }
}

} // namespace perfcast

#include "core/AtomicFile.hpp"

#include "core/Error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace perfcast {

void write_file_atomically(const std::string& path, std::string_view content)
{
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    fail_in(path, std::string("cannot create file: ") + std::strerror(errno));
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail_in(path, std::string("cannot write file: ") + std::strerror(err));
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    fail_in(path, std::string("cannot flush file: ") + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail_in(path, std::string("cannot rename temporary file into place: ") + std::strerror(err));
  }
}

} // namespace perfcast

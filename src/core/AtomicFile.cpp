#include "core/AtomicFile.hpp"

#include "core/Error.hpp"
#include "core/Interrupt.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfcast {

void write_all_to_fd(int fd, std::string_view content, const std::string& path)
{
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      fail_in(path, std::string("cannot write file: ") + std::strerror(errno));
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void write_file_atomically(const std::string& path, std::string_view content)
{
  struct stat old {};
  bool replacing = ::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);
  std::string tmp = path + ".perfcast-tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    fail_in(path, std::string("cannot create file: ") + std::strerror(errno));
  CleanupOnInterrupt partial(tmp); // a Ctrl-C that cannot wait leaves no temporary file behind
  try {
    if (replacing) {
      // the replacement keeps the file's permissions and, where allowed, its owner
      if (::fchmod(fd, old.st_mode & 07777) != 0)
        fail_in(path, std::string("cannot keep the file's mode: ") + std::strerror(errno));
      if (::fchown(fd, old.st_uid, old.st_gid) != 0 && errno != EPERM)
        fail_in(path, std::string("cannot keep the file's owner: ") + std::strerror(errno));
    }
    write_all_to_fd(fd, content, path);
    if (::fsync(fd) != 0)
      fail_in(path, std::string("cannot flush file: ") + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail_in(path, std::string("cannot flush file: ") + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fail_in(path, std::string("cannot rename temporary file into place: ") + std::strerror(err));
  }
}

} // namespace perfcast

#include "core/TempDirectory.hpp"

#include "core/Error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <system_error>
#include <vector>

namespace perfcast {

TempDirectory::TempDirectory(const std::string& prefix)
{
  const char* base = std::getenv("TMPDIR");
  std::string parent = base && *base ? base : "/tmp";
  std::string pattern = parent + "/" + prefix + ".XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (!::mkdtemp(name.data()))
    throw Error(fmt::format("{}: cannot create a scratch directory ({}; expected a writable TMPDIR)", parent,
                            std::strerror(errno)));
  path_ = name.data();
}

TempDirectory::~TempDirectory()
{
  std::error_code ignored; // a scratch directory that cannot be removed is left behind, never an error
  std::filesystem::remove_all(path_, ignored);
}

} // namespace perfcast

#pragma once
// A private scratch directory that lives as long as its owner: made with
// mkdtemp under $TMPDIR (or /tmp) and removed with everything in it when the
// owner goes, also when an error unwinds the stack.
#include <string>

namespace perfcast {

/// A fresh directory named PREFIX.XXXXXX under the temporary directory, removed on destruction.
class TempDirectory {
public:
  /// Creates the directory; throws Error naming the place when it cannot.
  explicit TempDirectory(const std::string& prefix);
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  /// The directory's path.
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace perfcast

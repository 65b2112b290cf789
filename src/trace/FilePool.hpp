#pragma once
// A bounded set of open file descriptors over many files: a file is opened when
// it is read and closed again when the least recently read one must make room,
// so a trace with one file per rank needs no more descriptors than the limit.
#include <cstdint>
#include <string>
#include <vector>

namespace perfcast {

/// Files read at offsets through at most `max_open` open descriptors.
class FilePool {
public:
  /// A pool that keeps at most `max_open` files open (at least one).
  explicit FilePool(std::size_t max_open = default_max_open());
  ~FilePool();
  FilePool(const FilePool&) = delete;
  FilePool& operator=(const FilePool&) = delete;

  /// Registers a file (not opened yet); returns its id.
  std::size_t add(std::string path);
  /// The path of file `id`.
  const std::string& path(std::size_t id) const { return files_[id].path; }
  /// Reads up to `size` bytes at `offset` of file `id`; 0 at its end. Throws Error when it cannot.
  std::size_t read_at(std::size_t id, std::uint64_t offset, char* data, std::size_t size);
  /// Closes file `id` if it is open (it reopens when read again).
  void close(std::size_t id);
  /// How many files are open now.
  std::size_t open_count() const { return open_; }
  /// A quarter of the soft limit on open files, between 8 and 256.
  static std::size_t default_max_open();

private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct File {
    std::string path;
    int fd = -1;
    std::size_t newer = kNone, older = kNone; // neighbours in the recently-read list
  };
  int descriptor(std::size_t id);
  void unlink(std::size_t id);
  void push_newest(std::size_t id);
  void close_oldest();

  std::vector<File> files_;
  std::size_t max_open_;
  std::size_t open_ = 0;
  std::size_t newest_ = kNone, oldest_ = kNone;
};

} // namespace perfcast

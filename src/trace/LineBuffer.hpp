#pragma once
// A window of a file that yields it line by line, refilled on demand through a
// caller-given read function, so one class serves every way the trace reader
// reads (a pool of descriptors, a shared scanner, a private cursor).
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace perfcast {

/// Lines of a file from a given offset, read a bounded buffer at a time.
class LineBuffer {
public:
  /// `base_size` bytes are read at a time; a longer line grows the buffer until it is consumed.
  explicit LineBuffer(std::size_t base_size) : base_size_(base_size) {}

  /// The next line without its '\n'; false at the end of the file. `read_at(offset,
  /// data, size)` returns the bytes it read there, 0 at the end of the file. The
  /// view is valid until the next call.
  template <class ReadAt>
  bool next(std::string_view& line, ReadAt&& read_at)
  {
    for (;;) {
      const char* start = buffer_.data() + begin_;
      if (const void* nl = begin_ < end_ ? std::memchr(start, '\n', end_ - begin_) : nullptr) {
        auto length = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
        line = std::string_view(start, length);
        begin_ += length + 1;
        return true;
      }
      if (eof_) {
        if (begin_ == end_)
          return false;
        line = std::string_view(start, end_ - begin_); // last line without a newline
        begin_ = end_;
        return true;
      }
      make_room();
      std::size_t n = read_at(file_offset_ + end_, buffer_.data() + end_, buffer_.size() - end_);
      eof_ = n == 0;
      end_ += n;
    }
  }

  /// File offset of the next line.
  std::uint64_t offset() const { return file_offset_ + begin_; }
  /// Continues from another offset, dropping what is buffered.
  void seek(std::uint64_t offset)
  {
    file_offset_ = offset;
    begin_ = end_ = 0;
    eof_ = false;
  }
  /// Frees the buffer; reading goes on from offset() with a new one.
  void release()
  {
    seek(offset());
    std::vector<char>().swap(buffer_);
  }

private:
  // moves the partial line to the front, and sizes the buffer for one more read
  void make_room()
  {
    std::size_t rest = end_ - begin_;
    if (rest > 0)
      std::memmove(buffer_.data(), buffer_.data() + begin_, rest);
    file_offset_ += begin_;
    begin_ = 0;
    end_ = rest;
    if (buffer_.size() < base_size_) {
      buffer_.resize(base_size_);
    } else if (rest == buffer_.size()) {
      buffer_.resize(buffer_.size() * 2); // a line longer than the buffer (a large v-collective)
    } else if (buffer_.size() > base_size_ && rest < base_size_) {
      buffer_.resize(base_size_); // that long line is consumed: give the memory back
      buffer_.shrink_to_fit();
    }
  }

  std::size_t base_size_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t file_offset_ = 0; // of buffer_[0]
  bool eof_ = false;
};

} // namespace perfcast

#pragma once
// Writes a whole file atomically: content goes to a temporary name beside the
// target, is flushed, then renamed over it, so readers never see half a file.
// Callers decide whether the path may be replaced (core/OutputFile).
#include <string>
#include <string_view>

namespace perfcast {

/// Replaces the regular file at path (or creates it) with content atomically,
/// keeping an existing file's mode and owner; throws Error naming the path.
void write_file_atomically(const std::string& path, std::string_view content);

/// Writes all of content to an open descriptor; throws Error naming path.
void write_all_to_fd(int fd, std::string_view content, const std::string& path);

} // namespace perfcast

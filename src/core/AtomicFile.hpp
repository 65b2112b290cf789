#pragma once
// Writes a whole file atomically: content goes to a temporary name beside the
// target, is flushed, then renamed over it, so readers never see half a file.
#include <string>
#include <string_view>

namespace perfcast {

/// Replaces path with content atomically; throws Error naming the path on failure.
void write_file_atomically(const std::string& path, std::string_view content);

} // namespace perfcast

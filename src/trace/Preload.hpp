#pragma once
// What must be preloaded with the tracer: a sanitized build of it (cmake
// -DPERFCAST_SANITIZE=ON) needs its sanitizer runtime loaded first.
#include <string>
#include <vector>

namespace perfcast {

/// The DT_NEEDED entries of a 64-bit ELF shared object; empty when the file is not one.
std::vector<std::string> needed_libraries(const std::string& path);

/// The ASan runtime a library was linked with ("libasan.so.8"), which must come
/// first in LD_PRELOAD when it is preloaded into an uninstrumented program; "" when none.
std::string sanitizer_runtime_of(const std::string& library);

} // namespace perfcast

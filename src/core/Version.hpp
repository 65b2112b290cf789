#pragma once
// perfcast's version, as CMake's project() declares it, for --version and the
// provenance written into every output.
#ifndef PERFCAST_VERSION
#error "PERFCAST_VERSION comes from CMakeLists.txt"
#endif

namespace perfcast {

inline constexpr const char* kPerfcastVersion = PERFCAST_VERSION;
/// The generator field of perfcast's JSON outputs.
inline constexpr const char* kPerfcastGenerator = "perfcast " PERFCAST_VERSION;

} // namespace perfcast

#pragma once
// The directory `perfcast trace` writes (trace.txt, rank-R.txt, profile.json)
// is accepted wherever a trace index or a run file is.
#include <string>

namespace perfcast {

/// The trace index to read for `path`: path itself, or DIR/trace.txt (DIR/index.txt, as perfcast extrapolate
/// writes, when it has no trace.txt) when path is a directory; throws Error naming what a directory lacks.
std::string trace_index_for(const std::string& path);

/// The run file to read for `path`: path itself, or DIR/profile.json when
/// path is a directory; throws Error naming what a directory lacks.
std::string run_file_for(const std::string& path);

} // namespace perfcast

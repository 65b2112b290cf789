#pragma once
// Where a user-named output goes, decided before the work that produces it.
//
// One policy for every output perfcast writes (SVGs, models, trace
// directories): a path that does not exist is created; an existing regular
// file is replaced atomically, keeping its mode, when it is empty or perfcast
// wrote it (it carries perfcast's generator mark); any other existing file is
// refused unless the user passed --force. A symbolic link is followed and its
// target is treated by the same rules, so the link stays a link. Anything that
// is not a regular file (a FIFO, a terminal, a device such as /dev/null) is
// written through, never replaced. "-" means standard output.
#include <string>
#include <string_view>

namespace perfcast {

/// The mark perfcast puts in the first lines of every file it writes.
inline constexpr std::string_view kGeneratorMark = "generator: perfcast";

/// How an output path will be written.
enum class OutputMode {
  Stdout,       ///< "-": standard output
  Replace,      ///< absent or replaceable regular file: temporary name, then rename
  WriteThrough, ///< FIFO, device, terminal: opened and written in place
};

/// A checked output: the path the user gave and what will happen to it.
struct OutputTarget {
  std::string path;     ///< as given
  std::string resolved; ///< symbolic links followed (equal to path when none)
  OutputMode mode = OutputMode::Replace;
  bool exists = false;  ///< a regular file is there now (it will be replaced)
};

/// Checks an output path: its directory exists and can be written, it is not
/// a directory, and the overwrite policy allows it. Throws Error naming the
/// path and what was expected. `what` names the output in messages ("timeline").
OutputTarget check_output(const std::string& path, std::string_view what, bool force);

/// Writes content to a checked output; throws Error on any write failure.
void write_output(const OutputTarget& target, std::string_view content);

/// check_output then write_output, for outputs produced in no time.
void write_output_file(const std::string& path, std::string_view what, bool force, std::string_view content);

/// True when the file at path is empty or carries perfcast's generator mark
/// in its first 4 KiB.
bool written_by_perfcast(const std::string& path);

/// Adds perfcast's generator mark to an SVG document (an XML comment before
/// the root element), unless it already has one.
std::string mark_svg(std::string_view svg);

/// Flushes standard output; throws Error when anything written to it was lost
/// (a full disk, a closed pipe).
void flush_stdout();

} // namespace perfcast

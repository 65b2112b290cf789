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
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

/// Creates the directory `dir` when it is absent, and only it: its parent
/// must exist (never a chain of directories). Returns whether it was made;
/// throws Error naming the path when the parent is missing or it cannot.
bool create_output_directory(const std::string& dir, std::string_view what);

class CleanupOnInterrupt;

/// A directory of outputs (a trace, an analysis), checked before the work that
/// fills it, under the same rule as a file: its parent must exist (perfcast
/// never creates a chain of directories); an existing directory may hold only
/// files `ours` accepts (perfcast's, which the caller replaces) unless `force`.
/// A directory this object created is removed with what is in it unless
/// keep() was called: a failed or interrupted run leaves nothing behind.
class OutputDirectory {
public:
  using OursFn = std::function<bool(const std::filesystem::directory_entry&)>;
  OutputDirectory(const std::string& dir, std::string_view what, bool force, const OursFn& ours);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  const std::string& path() const { return path_; }
  /// Whether the directory was made for this run.
  bool created() const { return created_; }
  /// Perfcast's files from an earlier run, found when the directory was checked.
  const std::vector<std::filesystem::path>& earlier_files() const { return earlier_; }
  /// The run succeeded (or is kept as it is): the directory stays.
  void keep();

private:
  std::string path_;
  std::string resolved_; // symbolic links followed
  bool created_ = false;
  bool kept_ = false;
  std::vector<std::filesystem::path> earlier_;
  std::unique_ptr<CleanupOnInterrupt> on_interrupt_;
};

/// Flushes standard output; throws Error when anything written to it was lost
/// (a full disk, a closed pipe).
void flush_stdout();

} // namespace perfcast

#pragma once
// The reference-kernel database of one machine and process count: every
// measured (kernel, size, time) of `perfcast kernels build`, in SQLite, from
// which each kernel's KernelModel is built when matching. Measurements are
// stored rather than fitted models, so a better model later needs no re-run.
//
// Schema (version 2):
//   meta(key TEXT PRIMARY KEY, value TEXT)  format=perfcast-kernels, version=2,
//                                           machine, procs, generator=perfcast
//   measurement(kernel TEXT, size REAL, seconds REAL, repeat INTEGER)
//   kernel(name TEXT PRIMARY KEY, size_counts TEXT, size_dim INTEGER)
//                                           what each kernel's size counts
// Version 1 had no kernel table; such a file is read as
// it is, and its kernels' size units are those of perfcast's reference
// kernels of the same names (their sizes have counted the same things since
// they were written), or an error naming the file for any other name.
#include "phase/KernelModel.hpp"

#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace perfcast::phase {

/// A kernel database file, open for reading or for adding measurements.
class KernelDatabase {
public:
  /// Opens an existing database; throws perfcast::Error naming the file when
  /// it is missing, not SQLite, or not a perfcast kernel database.
  static KernelDatabase open(const std::string& path);
  /// Creates a new, empty database for `machine` and `procs` processes at a
  /// path that must not exist yet.
  static KernelDatabase create(const std::string& path, const std::string& machine, int procs);

  KernelDatabase(KernelDatabase&&) noexcept;
  KernelDatabase& operator=(KernelDatabase&&) noexcept;
  ~KernelDatabase();

  /// Adds the measurements of one kernel and what its size counts, in one
  /// transaction (all or none).
  void add(const std::string& kernel, const KernelSizeUnit& unit, const std::vector<KernelPoint>& points);
  /// Names of the kernels measured, sorted.
  std::vector<std::string> kernels() const;
  /// Every measurement of `kernel`, by size then repeat.
  std::vector<KernelPoint> points(const std::string& kernel) const;
  /// The run-time model of `kernel`; throws when it has too few measurements.
  KernelModel model(const std::string& kernel) const;
  /// What `kernel`'s size counts (for a version 1 file, the reference kernel
  /// of that name's); throws naming the file when it is not known.
  KernelSizeUnit size_unit(const std::string& kernel) const;

  const std::string& path() const { return path_; }
  const std::string& machine() const { return machine_; }
  int procs() const { return procs_; }
  /// The file's schema version (1 or 2).
  int version() const { return version_; }

private:
  KernelDatabase(std::string path, sqlite3* db);
  void exec(const std::string& sql) const;
  std::string path_, machine_;
  int procs_ = 0;
  int version_ = 0;
  sqlite3* db_ = nullptr;
};

} // namespace perfcast::phase

#include "phase/KernelDatabase.hpp"

#include "core/Error.hpp"
#include "phase/KernelLadder.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <sqlite3.h>

namespace perfcast::phase {
namespace {

constexpr const char* kFormat = "perfcast-kernels";
constexpr int kVersion = 2;
/// The first version, without the kernel table; still read.
constexpr int kVersionWithoutUnits = 1;

/// A prepared statement, finalized on scope exit.
class Statement {
public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(fmt::format("{}: {} (expected a perfcast kernel database)", path, sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }

private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

} // namespace

KernelDatabase::KernelDatabase(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
KernelDatabase::KernelDatabase(KernelDatabase&& o) noexcept
    : path_(std::move(o.path_)), machine_(std::move(o.machine_)), procs_(o.procs_), version_(o.version_), db_(o.db_) {
  o.db_ = nullptr;
}
KernelDatabase& KernelDatabase::operator=(KernelDatabase&& o) noexcept {
  if (this != &o) {
    sqlite3_close(db_);
    path_ = std::move(o.path_);
    machine_ = std::move(o.machine_);
    procs_ = o.procs_;
    version_ = o.version_;
    db_ = o.db_;
    o.db_ = nullptr;
  }
  return *this;
}
KernelDatabase::~KernelDatabase() { sqlite3_close(db_); }

void KernelDatabase::exec(const std::string& sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(fmt::format("{}: {} (expected a writable perfcast kernel database)", path_, why));
  }
}

KernelDatabase KernelDatabase::open(const std::string& path) {
  if (!std::filesystem::is_regular_file(path))
    throw Error(fmt::format("{}: no such kernel database (expected a file written by perfcast kernels build)", path));
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  KernelDatabase db(path, raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("{}: {} (expected a perfcast kernel database)", path, sqlite3_errmsg(raw)));
  std::string format, version, procs;
  try {
    Statement s(raw, "SELECT key, value FROM meta", path);
    int step;
    while ((step = sqlite3_step(s.get())) == SQLITE_ROW) {
      const std::string key = column_text(s.get(), 0), value = column_text(s.get(), 1);
      if (key == "format") format = value;
      if (key == "version") version = value;
      if (key == "machine") db.machine_ = value;
      if (key == "procs") procs = value;
    }
    if (step != SQLITE_DONE) throw Error(sqlite3_errmsg(raw));
  } catch (const Error&) {
    throw Error(fmt::format("{}: not a perfcast kernel database (expected an SQLite file with format {})", path,
                            kFormat));
  }
  if (format != kFormat ||
      (version != std::to_string(kVersion) && version != std::to_string(kVersionWithoutUnits)))
    throw Error(fmt::format("{}: format '{}' version '{}' (expected format {} version {} or {})", path, format,
                            version, kFormat, kVersionWithoutUnits, kVersion));
  db.version_ = std::stoi(version);
  try {
    db.procs_ = std::stoi(procs);
  } catch (const std::exception&) {
    throw Error(fmt::format("{}: process count '{}' (expected a positive integer)", path, procs));
  }
  return db;
}

KernelDatabase KernelDatabase::create(const std::string& path, const std::string& machine, int procs) {
  if (procs < 1) throw Error(fmt::format("{}: {} processes (expected at least 1)", path, procs));
  if (std::filesystem::exists(path))
    throw Error(fmt::format("{}: exists already (expected a new path for a kernel database)", path));
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  KernelDatabase db(path, raw);
  if (rc != SQLITE_OK) throw Error(fmt::format("{}: {} (expected a path that can be created)", path, sqlite3_errmsg(raw)));
  db.machine_ = machine;
  db.procs_ = procs;
  db.version_ = kVersion;
  db.exec("BEGIN");
  db.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  db.exec("CREATE TABLE measurement(kernel TEXT NOT NULL, size REAL NOT NULL, seconds REAL NOT NULL, "
          "repeat INTEGER NOT NULL)");
  db.exec("CREATE TABLE kernel(name TEXT PRIMARY KEY, size_counts TEXT NOT NULL, size_dim INTEGER NOT NULL)");
  Statement s(raw, "INSERT INTO meta VALUES (?, ?)", path);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"format", kFormat},
           {"version", std::to_string(kVersion)},
           {"machine", machine},
           {"procs", std::to_string(procs)},
           {"generator", "perfcast"}}) {
    sqlite3_bind_text(s.get(), 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s.get(), 2, value.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s.get()) != SQLITE_DONE) throw Error(fmt::format("{}: {}", path, sqlite3_errmsg(raw)));
    sqlite3_reset(s.get());
  }
  db.exec("COMMIT");
  return db;
}

void KernelDatabase::add(const std::string& kernel, const KernelSizeUnit& unit,
                         const std::vector<KernelPoint>& points) {
  if (version_ != kVersion)
    throw Error(fmt::format("{}: a version {} kernel database (expected version {} to add kernels: build a new one)",
                            path_, version_, kVersion));
  if (unit.dim < 1 || unit.dim > 3)
    throw Error(fmt::format("{}: kernel {}'s size spans {} dimensions (expected 1 to 3)", path_, kernel, unit.dim));
  for (const KernelPoint& p : points)
    if (!(std::isfinite(p.size) && p.size > 0 && std::isfinite(p.seconds) && p.seconds > 0))
      throw Error(fmt::format("{}: kernel {} at size {} took {} s (expected a positive size and time)", path_, kernel,
                              p.size, p.seconds));
  exec("BEGIN");
  try {
    Statement s(db_, "INSERT INTO measurement VALUES (?, ?, ?, ?)", path_);
    int repeat = 0;
    for (const KernelPoint& p : points) {
      sqlite3_bind_text(s.get(), 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_double(s.get(), 2, p.size);
      sqlite3_bind_double(s.get(), 3, p.seconds);
      sqlite3_bind_int(s.get(), 4, repeat++);
      if (sqlite3_step(s.get()) != SQLITE_DONE) throw Error(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
      sqlite3_reset(s.get());
    }
    Statement u(db_, "INSERT INTO kernel VALUES (?, ?, ?)", path_);
    sqlite3_bind_text(u.get(), 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(u.get(), 2, unit.counts.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(u.get(), 3, unit.dim);
    if (sqlite3_step(u.get()) != SQLITE_DONE)
      throw Error(fmt::format("{}: kernel {}: {} (expected each kernel added once)", path_, kernel,
                              sqlite3_errmsg(db_)));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<std::string> KernelDatabase::kernels() const {
  Statement s(db_, "SELECT DISTINCT kernel FROM measurement ORDER BY kernel", path_);
  std::vector<std::string> names;
  while (sqlite3_step(s.get()) == SQLITE_ROW) names.push_back(column_text(s.get(), 0));
  return names;
}

std::vector<KernelPoint> KernelDatabase::points(const std::string& kernel) const {
  Statement s(db_, "SELECT size, seconds FROM measurement WHERE kernel = ? ORDER BY size, repeat", path_);
  sqlite3_bind_text(s.get(), 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<KernelPoint> pts;
  while (sqlite3_step(s.get()) == SQLITE_ROW) pts.push_back({sqlite3_column_double(s.get(), 0), sqlite3_column_double(s.get(), 1)});
  return pts;
}

KernelModel KernelDatabase::model(const std::string& kernel) const {
  std::vector<KernelPoint> pts = points(kernel);
  if (pts.empty())
    throw Error(fmt::format("{}: no measurements of kernel {} (expected one of the kernels the database holds)", path_,
                            kernel));
  try {
    return KernelModel(kernel, std::move(pts));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path_, e.what()));
  }
}

KernelSizeUnit KernelDatabase::size_unit(const std::string& kernel) const {
  if (version_ == kVersionWithoutUnits) {
    for (const KernelSpec& spec : reference_kernels())
      if (spec.name == kernel) return spec.unit();
    throw Error(fmt::format("{}: version 1 kernel database: kernel {} has no size unit (expected one of perfcast's "
                            "reference kernels, or a database built by perfcast kernels build since version 2)",
                            path_, kernel));
  }
  Statement s(db_, "SELECT size_counts, size_dim FROM kernel WHERE name = ?", path_);
  sqlite3_bind_text(s.get(), 1, kernel.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.get()) != SQLITE_ROW)
    throw Error(fmt::format("{}: kernel {} has no size unit (expected one of the kernels the database holds)", path_,
                            kernel));
  return {column_text(s.get(), 0), sqlite3_column_int(s.get(), 1)};
}

} // namespace perfcast::phase

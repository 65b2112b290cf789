#pragma once
// What `perfcast kernels list` shows of a kernel database: per kernel what its size counts, its measured runs
// by size and its model's time there.
#include "phase/KernelDatabase.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast::phase {

struct KernelListing {
  struct Size {
    double size = 0;
    std::size_t runs = 0;
    double mean_s = 0;
    double model_s = -1; ///< -1 without a model
  };
  struct Kernel {
    std::string name;
    bool unit_known = false;
    KernelSizeUnit unit;
    std::string unit_error; ///< why the unit is unknown
    std::string model_error; ///< why there is no model ("" when there is one)
    std::vector<Size> sizes;
  };
  std::string database, machine;
  int procs = 0, version = 0;
  std::vector<Kernel> kernels;

  /// {"database", "machine", "procs", "version", "kernels": [{"name", "sizes", "runs", "mean_s", "model_s",
  /// "size_counts", "size_dim", "model_error"?}]}
  nlohmann::json to_json() const;
  std::string text() const;
};

/// The listing of a database opened from `path`.
KernelListing list_kernel_database(const KernelDatabase& db, const std::string& path);

} // namespace perfcast::phase

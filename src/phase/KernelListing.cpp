#include "phase/KernelListing.hpp"

#include "core/Error.hpp"

#include <fmt/format.h>
#include <map>
#include <optional>

namespace perfcast::phase {

KernelListing list_kernel_database(const KernelDatabase& db, const std::string& path)
{
  KernelListing l;
  l.database = path;
  l.machine = db.machine();
  l.procs = db.procs();
  l.version = db.version();
  for (const std::string& name : db.kernels()) {
    KernelListing::Kernel k;
    k.name = name;
    try {
      k.unit = db.size_unit(name);
      k.unit_known = true;
    } catch (const Error& e) {
      k.unit_error = e.what();
    }
    std::optional<KernelModel> model;
    try {
      model.emplace(db.model(name));
    } catch (const Error& e) {
      k.model_error = e.what();
    }
    std::map<double, std::vector<double>> runs;
    for (const KernelPoint& p : db.points(name))
      runs[p.size].push_back(p.seconds);
    for (const auto& [size, seconds] : runs) {
      double mean = 0;
      for (double s : seconds)
        mean += s / static_cast<double>(seconds.size());
      k.sizes.push_back({size, seconds.size(), mean, model ? model->seconds_at(size) : -1});
    }
    l.kernels.push_back(std::move(k));
  }
  return l;
}

nlohmann::json KernelListing::to_json() const
{
  nlohmann::json out = {{"database", database}, {"machine", machine}, {"procs", procs},
                        {"version", version}, {"kernels", nlohmann::json::array()}};
  for (const Kernel& k : kernels) {
    nlohmann::json j = {{"name", k.name}, {"sizes", nlohmann::json::array()}, {"runs", nlohmann::json::array()},
                        {"mean_s", nlohmann::json::array()}, {"model_s", nlohmann::json::array()}};
    j["size_counts"] = k.unit_known ? nlohmann::json(k.unit.counts) : nlohmann::json(nullptr);
    j["size_dim"] = k.unit_known ? nlohmann::json(k.unit.dim) : nlohmann::json(nullptr);
    if (!k.model_error.empty())
      j["model_error"] = k.model_error;
    for (const Size& s : k.sizes) {
      j["sizes"].push_back(s.size);
      j["runs"].push_back(s.runs);
      j["mean_s"].push_back(s.mean_s);
      if (k.model_error.empty())
        j["model_s"].push_back(s.model_s);
    }
    out["kernels"].push_back(std::move(j));
  }
  return out;
}

std::string KernelListing::text() const
{
  std::string text = fmt::format("kernel database {} (machine {}, {} processes), format version {}\n\n{:<8} {:>10} "
                                 "{:>5} {:>12} {:>12}\n",
                                 database, machine, procs, version, "kernel", "size", "runs", "mean_s", "model_s");
  for (const Kernel& k : kernels) {
    if (k.unit_known)
      text += fmt::format("{:<8} size: {} (K^{} points)\n", k.name, k.unit.counts, k.unit.dim);
    else
      text += fmt::format("{:<8} size: unknown ({})\n", k.name, k.unit_error);
    for (const Size& s : k.sizes)
      text += fmt::format("{:<8} {:>10} {:>5} {:>12.4e} {:>12}\n", k.name, s.size, s.runs, s.mean_s,
                          k.model_error.empty() ? fmt::format("{:.4e}", s.model_s) : "-");
    if (!k.model_error.empty())
      text += fmt::format("{:<8} no model: {}\n", k.name, k.model_error);
  }
  return text;
}

} // namespace perfcast::phase

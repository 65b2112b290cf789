#include "net/NetworkModel.hpp"

#include "core/Error.hpp"

#include <fmt/format.h>

namespace perfcast {

void check_network_model_name(const std::string& name)
{
  std::string names;
  for (const auto& [known, text] : network_model_names()) {
    if (known == name)
      return;
    names += (names.empty() ? "" : ", ") + known;
  }
  throw Error(fmt::format("--net: unknown network model '{}' (expected one of: {})", name, names));
}

std::vector<std::pair<std::string, std::string>> network_model_names()
{
  return {{"smpi", "SimGrid 3.32's SMPI model: piecewise latency/bandwidth factors, max-min sharing, "
                   "TCP window cap, cross-traffic"},
          {"loggp", "contention-free LogGP: T = L + 2o + bytes * G, parameters settable"}};
}

std::unique_ptr<NetworkModel> make_network_model(const std::string& name, const Platform& platform,
                                                 const NetworkOptions& options)
{
  if (name == "smpi")
    return make_smpi_network(platform, options);
  if (name == "loggp")
    return make_loggp_network(platform, options);
  throw Error(fmt::format("unknown network model '{}' (expected smpi or loggp)", name));
}

} // namespace perfcast

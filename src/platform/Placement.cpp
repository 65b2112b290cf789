#include "platform/Placement.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"
#include "core/Units.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fstream>

namespace perfcast {

namespace {


// At most this many ranks on one entry (perfcast's limit on ranks, 2^20).
constexpr int kMaxRepeat = 1 << 20;

// Expands one "name" or "name:k" entry into host indices.
void expand_entry(const Platform& platform, const std::string& entry, const std::string& file, std::size_t line,
                  std::vector<int>& out)
{
  std::string name = entry;
  int repeat = 1;
  if (auto colon = entry.rfind(':'); colon != std::string::npos) {
    auto k = parse_number(entry.substr(colon + 1));
    // compared as doubles: converting a count beyond int's range is undefined
    if (!k || *k < 1 || *k > kMaxRepeat || *k != std::floor(*k))
      fail_at(file, line,
              fmt::format("'{}': expected HOST or HOST:COUNT with a count from 1 to {}", entry, kMaxRepeat));
    repeat = static_cast<int>(*k);
    name = entry.substr(0, colon);
  }
  int h = platform.find_host(name);
  if (h < 0)
    fail_at(file, line, fmt::format("host '{}' is not in the platform", name));
  for (int i = 0; i < repeat; ++i)
    out.push_back(h);
}

Placement cycle(const std::vector<int>& hosts, int ranks)
{
  Placement p(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    p[static_cast<std::size_t>(r)] = hosts[static_cast<std::size_t>(r) % hosts.size()];
  return p;
}

} // namespace

Placement place_by_hostfile(const Platform& platform, const std::string& path, int ranks)
{
  std::ifstream in(path);
  if (!in)
    fail_in(path, "cannot open hostfile");
  std::vector<int> hosts;
  std::string raw;
  std::size_t line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string entry(trim(raw));
    if (entry.empty() || entry[0] == '#')
      continue;
    expand_entry(platform, entry, path, line, hosts);
  }
  if (hosts.empty())
    fail_in(path, "hostfile lists no host");
  return cycle(hosts, ranks);
}

Placement place_by_policy(const Platform& platform, const std::string& policy, int ranks)
{
  int host_count = static_cast<int>(platform.hosts().size());
  if (host_count == 0)
    throw Error("the platform has no host");
  if (policy == "round-robin") {
    std::vector<int> all(static_cast<std::size_t>(host_count));
    for (int h = 0; h < host_count; ++h)
      all[static_cast<std::size_t>(h)] = h;
    return cycle(all, ranks);
  }
  if (policy == "block") {
    std::vector<int> slots;
    for (int h = 0; h < host_count; ++h)
      for (int c = 0; c < platform.hosts()[static_cast<std::size_t>(h)].cores; ++c)
        slots.push_back(h);
    return cycle(slots, ranks);
  }
  std::vector<int> hosts;
  std::size_t pos = 0;
  while (pos <= policy.size()) {
    auto end = policy.find(',', pos);
    std::string entry(trim(std::string_view(policy).substr(pos, end == std::string::npos ? std::string::npos : end - pos)));
    if (entry.empty())
      throw Error(fmt::format("placement '{}': expected round-robin, block or a comma-separated list of hosts", policy));
    expand_entry(platform, entry, "--placement", 1, hosts);
    if (end == std::string::npos)
      break;
    pos = end + 1;
  }
  return cycle(hosts, ranks);
}

} // namespace perfcast

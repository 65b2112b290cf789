#include "platform/Platform.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast {

int Platform::add_host(Host host)
{
  int id = static_cast<int>(hosts_.size());
  if (!host_by_name_.emplace(host.name, id).second)
    throw Error(fmt::format("duplicate host '{}'", host.name));
  hosts_.push_back(std::move(host));
  up_.emplace_back();
  down_.emplace_back();
  loopback_.push_back(-1);
  in_star_.push_back(false);
  zone_.push_back(0);
  return id;
}

int Platform::add_link(Link link)
{
  int id = static_cast<int>(links_.size());
  if (!link_by_name_.emplace(link.name, id).second)
    throw Error(fmt::format("duplicate link '{}'", link.name));
  links_.push_back(std::move(link));
  return id;
}

void Platform::set_star_links(int host, std::vector<int> up, std::vector<int> down)
{
  up_.at(static_cast<std::size_t>(host)) = std::move(up);
  down_.at(static_cast<std::size_t>(host)) = std::move(down);
  in_star_.at(static_cast<std::size_t>(host)) = true;
}

void Platform::set_loopback(int host, int link) { loopback_.at(static_cast<std::size_t>(host)) = link; }

void Platform::set_explicit_route(int src, int dst, std::vector<int> links)
{
  explicit_routes_[{src, dst}] = std::move(links);
}

void Platform::set_zone(int host, int zone) { zone_.at(static_cast<std::size_t>(host)) = zone; }

void Platform::set_zone_route(int src_zone, int dst_zone, std::vector<int> links)
{
  zone_routes_[{src_zone, dst_zone}] = std::move(links);
}

int Platform::find_host(const std::string& name) const
{
  auto it = host_by_name_.find(name);
  return it == host_by_name_.end() ? -1 : it->second;
}

int Platform::find_link(const std::string& name) const
{
  auto it = link_by_name_.find(name);
  return it == link_by_name_.end() ? -1 : it->second;
}

bool Platform::has_route(int src, int dst) const
{
  if (explicit_routes_.count({src, dst}))
    return true;
  auto s = static_cast<std::size_t>(src), d = static_cast<std::size_t>(dst);
  if (src == dst && loopback_[s] >= 0)
    return true;
  if (zone_[s] != zone_[d])
    return in_star_[s] && in_star_[d] && zone_routes_.count({zone_[s], zone_[d]});
  return in_star_[s] && in_star_[d];
}

double Platform::narrowest_bandwidth(const Route& r) const
{
  if (r.links.empty())
    return 0;
  double bw = links_[static_cast<std::size_t>(r.links.front())].bandwidth_Bps;
  for (int l : r.links)
    bw = std::min(bw, links_[static_cast<std::size_t>(l)].bandwidth_Bps);
  return bw;
}

Route Platform::route(int src, int dst) const
{
  Route r;
  auto add = [&](int link) {
    // A link appears once per route, as in SimGrid (a shared backbone is crossed once).
    if (std::find(r.links.begin(), r.links.end(), link) != r.links.end())
      return;
    r.links.push_back(link);
    r.latency_s += links_[static_cast<std::size_t>(link)].latency_s;
  };
  auto s = static_cast<std::size_t>(src), d = static_cast<std::size_t>(dst);
  if (auto it = explicit_routes_.find({src, dst}); it != explicit_routes_.end()) {
    for (int l : it->second)
      add(l);
    return r;
  }
  if (src == dst && loopback_[s] >= 0) {
    add(loopback_[s]);
    return r;
  }
  if (!has_route(src, dst))
    throw Error(no_route_message(src, dst));
  for (int l : up_[s])
    add(l);
  if (zone_[s] != zone_[d])
    for (int l : zone_routes_.at({zone_[s], zone_[d]}))
      add(l);
  for (int l : down_[d])
    add(l);
  return r;
}

std::string Platform::no_route_message(int src, int dst) const
{
  const std::string& a = hosts_[static_cast<std::size_t>(src)].name;
  const std::string& b = hosts_[static_cast<std::size_t>(dst)].name;
  std::string where = source_.empty() ? "the platform" : source_;
  if (src == dst)
    return fmt::format("{}: no route from host '{}' to itself (expected a loopback link for it: a <route src=\"{}\" "
                       "dst=\"{}\"> in its zone, or \"loopback\" in its cluster); two ranks share that host",
                       where, a, a, a);
  return fmt::format("{}: no route from host '{}' to host '{}' (expected both in one cluster, a route between them, "
                     "or a route between their zones)",
                     where, a, b);
}

Platform load_platform(const std::string& path)
{
  std::string text = read_file(path, "platform file");
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    fail_in(path, "empty platform file (expected SimGrid XML or perfcast JSON)");
  if (text[first] == '<' || text[first] == '{') {
    Platform p = text[first] == '<' ? parse_simgrid_platform(text, path) : parse_json_platform(text, path);
    p.set_source(path);
    return p;
  }
  fail_at(path, 1, "unknown platform format (expected SimGrid XML starting with '<' or perfcast JSON starting with '{')");
}

} // namespace perfcast

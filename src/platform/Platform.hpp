#pragma once
// The machine a replay runs on: hosts (cores, flop/s), links (bandwidth,
// latency, sharing policy) and routes between hosts. Loaded from perfcast JSON
// (PlatformJson.cpp) or SimGrid v4.1 XML (PlatformXml.cpp).
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace perfcast {

/// How concurrent flows share a link (SimGrid's sharing policies).
enum class SharingPolicy : std::uint8_t {
  Shared,  ///< flows share the bandwidth (max-min)
  Fatpipe, ///< each flow may use the whole bandwidth
};

/// Memory slowdown alpha(x MB) of UniMPP (eq. 3): linear in main memory,
/// exponential beyond; all zero when not described.
struct MemorySlowdownFit {
  double linear_slope = 0, linear_intercept = 0;
  double exp_scale = 0, exp_rate = 0;
};

struct Host {
  std::string name;
  double speed_flops = 1e9; ///< per core
  int cores = 1;
  // what the scheduling simulator also needs (UniMPP's c_i); 0 = not described
  double memory_bytes = 0;
  double virtual_memory_bytes = 0;
  double disk_read_Bps = 0;
  double disk_write_Bps = 0;
  /// writing while the processes keep every core busy (a virtual machine's host that
  /// emulates the disk within the machine's CPU allowance serves it slower); 0 = disk_write_Bps
  double disk_write_busy_Bps = 0;
  double message_overhead_s = 0; ///< o: packing or unpacking one message
  double message_latency_s = 0;  ///< l: carrying a small message, as the net probe measures it
  /// core-seconds the machine spends per byte moved to or from the disk, beyond the
  /// process's own CPU time (a virtual machine's host emulating the device, or the
  /// kernel's I/O path), taken from the cores when the processes want them all
  double disk_cpu_s_per_byte = 0;
  MemorySlowdownFit memory_slowdown;
};

struct Link {
  std::string name;
  double bandwidth_Bps = 1.25e8;
  double latency_s = 0.0;
  SharingPolicy sharing = SharingPolicy::Shared;
};

/// A resolved route: the links a message crosses, in order.
struct Route {
  std::vector<int> links;
  double latency_s = 0.0;
};

class Platform {
public:
  /// Adds a host; returns its index. Names must be unique.
  int add_host(Host host);
  /// Adds a link; returns its index. Names must be unique.
  int add_link(Link link);

  /// Star (cluster) routing for a host: route(a,b) = up(a) then down(b).
  void set_star_links(int host, std::vector<int> up, std::vector<int> down);
  /// A host's loopback link, used when both ends are that host.
  void set_loopback(int host, int link);
  /// An explicit route, overriding star routing (and loopback when src == dst).
  void set_explicit_route(int src, int dst, std::vector<int> links);
  /// Puts a host in a routing zone (0 by default); star routing stays inside a zone.
  void set_zone(int host, int zone);
  /// Links joining two zones: route = up(src), these links, down(dst).
  void set_zone_route(int src_zone, int dst_zone, std::vector<int> links);

  const std::vector<Host>& hosts() const { return hosts_; }
  /// Sets a host's speed per core (flop/s, or the unit of the traces replayed on it).
  void set_host_speed(int host, double speed_flops) { hosts_.at(static_cast<std::size_t>(host)).speed_flops = speed_flops; }
  const std::vector<Link>& links() const { return links_; }
  /// Index of a host by name, or -1.
  int find_host(const std::string& name) const;
  /// Index of a link by name, or -1.
  int find_link(const std::string& name) const;
  /// Whether a route between the two hosts exists.
  bool has_route(int src, int dst) const;
  /// The route between two hosts; throws Error when there is none.
  Route route(int src, int dst) const;
  /// The smallest bandwidth of a route's links; 0 for a route without links.
  double narrowest_bandwidth(const Route& r) const;
  /// The error for a pair of hosts without a route, naming the platform's file.
  std::string no_route_message(int src, int dst) const;

  /// The file the platform was read from ("" when built in code), for messages.
  const std::string& source() const { return source_; }
  void set_source(std::string path) { source_ = std::move(path); }

private:
  std::string source_;
  std::vector<Host> hosts_;
  std::vector<Link> links_;
  std::unordered_map<std::string, int> host_by_name_;
  std::unordered_map<std::string, int> link_by_name_;
  std::vector<std::vector<int>> up_, down_;
  std::vector<int> loopback_;
  std::vector<bool> in_star_;
  std::vector<int> zone_;
  std::map<std::pair<int, int>, std::vector<int>> zone_routes_;
  std::map<std::pair<int, int>, std::vector<int>> explicit_routes_;
};

/// Loads a platform, choosing the format by content (XML or JSON).
Platform load_platform(const std::string& path);
/// Parses SimGrid v4.1 platform XML; path is used in error messages.
Platform parse_simgrid_platform(const std::string& text, const std::string& path);
/// Parses perfcast's JSON platform format; path is used in error messages.
Platform parse_json_platform(const std::string& text, const std::string& path);

} // namespace perfcast

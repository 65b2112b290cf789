// SimGrid v4.1 platform XML: <cluster>, <zone routing="Cluster"> (hosts,
// host_link, backbone), <zone routing="Full"> with <route>s, and one level of
// nesting joined by <zoneRoute>. Semantics follow SimGrid 3.32's StarZone and
// FullZone: a cluster route is the source's up links then the destination's
// down links, each link crossed once.
#include "core/Error.hpp"
#include "core/NamedSpec.hpp"
#include "core/Text.hpp"
#include "core/Units.hpp"
#include "platform/Platform.hpp"

#include <cmath>
#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <pugixml.hpp>

namespace perfcast {

namespace {

class XmlLoader {
public:
  XmlLoader(const std::string& text, std::string path) : path_(std::move(path)), text_(text) {}

  Platform load()
  {
    pugi::xml_parse_result ok = doc_.load_string(text_.c_str(), pugi::parse_default | pugi::parse_ws_pcdata_single);
    if (!ok)
      fail_at(path_, line_of(static_cast<std::size_t>(ok.offset)), fmt::format("malformed XML: {}", ok.description()));
    pugi::xml_node root = doc_.child("platform");
    if (!root)
      fail_at(path_, 1, "expected a <platform> root element");
    std::string version = root.attribute("version").as_string("");
    if (!version.empty() && version != "4" && version != "4.0" && version != "4.1")
      fail_at(path_, line(root), fmt::format("platform version '{}' is not supported (expected 4.1)", version));
    // hosts and links at the top are perfcast's shorthand for a one-zone platform
    check_element(root, {"zone", "AS", "cluster", "host", "link", "route"});
    load_zone_children(root, -1);
    for (const auto& [key, links] : pending_zone_routes_)
      platform_.set_zone_route(key.first, key.second, links);
    if (platform_.hosts().empty())
      fail_at(path_, line(root), "the platform has no host (expected a <cluster>, or a <zone> with <host>s or "
                                 "<cabinet>s)");
    return std::move(platform_);
  }

private:
  std::string path_;
  const std::string& text_;
  pugi::xml_document doc_;
  Platform platform_;
  // zone bookkeeping for one level of nesting
  std::map<std::string, int> zone_by_name_;
  std::map<std::pair<int, int>, std::vector<int>> pending_zone_routes_;
  int zone_count_ = 0;

  std::size_t line_of(std::size_t offset) const
  {
    std::size_t n = 1;
    for (std::size_t i = 0; i < offset && i < text_.size(); ++i)
      if (text_[i] == '\n')
        ++n;
    return n;
  }
  std::size_t line(const pugi::xml_node& node) const { return line_of(static_cast<std::size_t>(node.offset_debug())); }

  // SimGrid v4.1's attributes of each element perfcast reads (its DTD); one
  // outside the list is a typo or another format, and an error
  static const std::vector<std::string>& known_attributes(const std::string& tag)
  {
    static const std::map<std::string, std::vector<std::string>> known = {
        {"platform", {"version"}},
        {"zone", {"id", "routing"}},
        {"AS", {"id", "routing"}},
        {"cluster", {"id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat", "sharing_policy", "topology",
                     "topo_parameters", "bb_bw", "bb_lat", "bb_sharing_policy", "router_id", "limiter_link",
                     "loopback_bw", "loopback_lat"}},
        {"cabinet", {"id", "prefix", "suffix", "radical", "speed", "bw", "lat"}},
        {"host", {"id", "speed", "core", "pstate", "availability_file", "state_file", "coordinates"}},
        {"link", {"id", "bandwidth", "latency", "sharing_policy", "bandwidth_file", "latency_file", "state_file"}},
        {"backbone", {"id", "bandwidth", "latency", "sharing_policy"}},
        {"host_link", {"id", "up", "down"}},
        {"route", {"src", "dst", "gw_src", "gw_dst", "symmetrical"}},
        {"zoneRoute", {"src", "dst", "gw_src", "gw_dst", "symmetrical"}},
        {"ASroute", {"src", "dst", "gw_src", "gw_dst", "symmetrical"}},
        {"link_ctn", {"id", "direction"}},
        {"prop", {"id", "value"}},
    };
    static const std::vector<std::string> none;
    auto it = known.find(tag);
    return it == known.end() ? none : it->second;
  }

  // Checks an element's attributes, and those of its children against the
  // elements this context reads. A SimGrid element perfcast does not model
  // is refused by name rather than skipped: skipping it would change the
  // platform without a word.
  void check_element(const pugi::xml_node& node, const std::vector<std::string>& children)
  {
    const std::string tag = node.name();
    const auto& attributes = known_attributes(tag);
    for (pugi::xml_attribute a : node.attributes())
      if (std::find(attributes.begin(), attributes.end(), a.name()) == attributes.end())
        fail_at(path_, line(node), fmt::format("<{}> has an unknown attribute '{}'{}; expected one of {}", tag,
                                               a.name(), did_you_mean(a.name(), attributes), join_names(attributes)));
    // attributes whose effect perfcast does not model
    for (const char* unmodelled : {"availability_file", "state_file", "bandwidth_file", "latency_file"})
      if (node.attribute(unmodelled))
        fail_at(path_, line(node), fmt::format("<{}> {}=\"{}\": time-varying resources are not supported yet "
                                               "(expected a platform without profiles)",
                                               tag, unmodelled, node.attribute(unmodelled).as_string()));
    if (node.attribute("pstate") && std::string(node.attribute("pstate").as_string()) != "0")
      fail_at(path_, line(node), fmt::format("<{}> pstate=\"{}\": only the first power state is supported (expected "
                                             "pstate=\"0\")",
                                             tag, node.attribute("pstate").as_string()));
    static const std::vector<std::string> simgrid_elements = {
        "platform", "zone",  "AS",         "cluster", "cabinet", "host",    "link",    "backbone",
        "host_link", "route", "zoneRoute", "ASroute", "link_ctn", "prop",   "config",  "router",
        "peer",      "trace", "trace_connect", "bypassRoute", "bypassZoneRoute", "bypassASroute", "actor",
        "process",   "argument", "include", "disk",    "storage", "storage_type", "mount", "model_prop", "random"};
    for (pugi::xml_node c : node.children()) {
      if (c.type() != pugi::node_element)
        continue;
      const std::string child = c.name();
      if (std::find(children.begin(), children.end(), child) != children.end())
        continue;
      if (std::find(simgrid_elements.begin(), simgrid_elements.end(), child) != simgrid_elements.end())
        fail_at(path_, line(c), fmt::format("<{}> inside <{}> is not supported yet (perfcast reads {} there)", child,
                                            tag, join_names(children)));
      std::vector<std::string> suggestions = children;
      suggestions.insert(suggestions.end(), simgrid_elements.begin(), simgrid_elements.end());
      fail_at(path_, line(c), fmt::format("<{}> is not a SimGrid platform element{}; expected one of {} inside <{}>",
                                          child, did_you_mean(child, suggestions), join_names(children), tag));
    }
  }

  // elements that hold nothing perfcast reads but properties
  void check_leaf(const pugi::xml_node& node)
  {
    check_element(node, {"prop"});
    for (pugi::xml_node p : node.children("prop"))
      check_element(p, {});
  }

  std::string required(const pugi::xml_node& node, const char* attr)
  {
    pugi::xml_attribute a = node.attribute(attr);
    if (!a)
      fail_at(path_, line(node), fmt::format("<{}> lacks the required attribute '{}'", node.name(), attr));
    return a.as_string();
  }

  double quantity(const pugi::xml_node& node, const char* attr, std::optional<double> (*parse)(std::string_view),
                  const char* expected, std::optional<double> fallback = std::nullopt)
  {
    pugi::xml_attribute a = node.attribute(attr);
    if (!a) {
      if (fallback)
        return *fallback;
      fail_at(path_, line(node), fmt::format("<{}> lacks the required attribute '{}'", node.name(), attr));
    }
    std::string text = a.as_string();
    // host speeds may list several power states: the first one is the default
    if (auto comma = text.find(','); comma != std::string::npos)
      text = text.substr(0, comma);
    auto v = parse(text);
    if (!v || *v < 0)
      fail_at(path_, line(node), fmt::format("<{}> attribute {}=\"{}\": expected {}", node.name(), attr,
                                             a.as_string(), expected));
    return *v;
  }

  int cores(const pugi::xml_node& node)
  {
    pugi::xml_attribute a = node.attribute("core");
    if (!a)
      return 1;
    auto v = parse_number(a.as_string());
    // compared as doubles first: converting a value beyond int's range is undefined
    if (!v || *v < 1 || *v > 1e6 || *v != std::floor(*v))
      fail_at(path_, line(node), fmt::format("<{}> attribute core=\"{}\": expected a whole number from 1 to 1000000", node.name(),
                                             a.as_string()));
    return static_cast<int>(*v);
  }

  SharingPolicy sharing(const pugi::xml_node& node, const char* attr, bool* split_duplex)
  {
    std::string p = node.attribute(attr).as_string("SHARED");
    if (split_duplex)
      *split_duplex = p == "SPLITDUPLEX";
    if (p == "SHARED" || p == "SPLITDUPLEX")
      return SharingPolicy::Shared;
    if (p == "FATPIPE")
      return SharingPolicy::Fatpipe;
    fail_at(path_, line(node), fmt::format("<{}> {}=\"{}\": expected SHARED, SPLITDUPLEX or FATPIPE", node.name(),
                                           attr, p));
  }

  int add_host(const pugi::xml_node& node, Host h, int zone)
  {
    try {
      int id = platform_.add_host(std::move(h));
      platform_.set_zone(id, zone);
      return id;
    } catch (const Error& e) {
      fail_at(path_, line(node), e.what());
    }
  }

  int add_link(const pugi::xml_node& node, Link l)
  {
    try {
      return platform_.add_link(std::move(l));
    } catch (const Error& e) {
      fail_at(path_, line(node), e.what());
    }
  }

  // A <link>; SPLITDUPLEX creates NAME_UP and NAME_DOWN as SimGrid does.
  void load_link(const pugi::xml_node& node)
  {
    check_leaf(node);
    Link l;
    l.name = required(node, "id");
    l.bandwidth_Bps = quantity(node, "bandwidth", parse_bandwidth, "a bandwidth such as 125MBps or 1Gbps");
    l.latency_s = quantity(node, "latency", parse_duration, "a duration such as 50us", 0.0);
    bool split = false;
    l.sharing = sharing(node, "sharing_policy", &split);
    if (split) {
      Link up = l, down = l;
      up.name += "_UP";
      down.name += "_DOWN";
      add_link(node, up);
      add_link(node, down);
    } else {
      add_link(node, l);
    }
  }

  int link_ref(const pugi::xml_node& node, const std::string& id, const char* direction)
  {
    std::string dir = direction ? direction : "NONE";
    std::string name = id;
    if (dir == "UP" || dir == "DOWN")
      name = id + "_" + dir;
    int l = platform_.find_link(name);
    if (l < 0 && dir == "NONE")
      l = platform_.find_link(id + "_UP"); // a split-duplex link named without direction
    if (l < 0)
      fail_at(path_, line(node), fmt::format("unknown link '{}'{}", id, dir == "NONE" ? "" : " (direction " + dir + ")"));
    return l;
  }

  std::vector<int> route_links(const pugi::xml_node& route)
  {
    std::vector<int> links;
    check_element(route, {"link_ctn"});
    for (pugi::xml_node c : route.children("link_ctn"))
      check_element(c, {}), links.push_back(link_ref(c, required(c, "id"), c.attribute("direction").as_string(nullptr)));
    return links;
  }

  int host_ref(const pugi::xml_node& node, const char* attr)
  {
    std::string name = required(node, attr);
    int h = platform_.find_host(name);
    if (h < 0)
      fail_at(path_, line(node), fmt::format("unknown host '{}'", name));
    return h;
  }

  std::vector<int> parse_radical(const pugi::xml_node& node)
  {
    std::string text = required(node, "radical");
    std::vector<int> values;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      std::size_t end = text.find(',', pos);
      std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      std::size_t dash = part.find('-');
      auto a = parse_number(part.substr(0, dash));
      auto b = dash == std::string::npos ? a : parse_number(part.substr(dash + 1));
      // whole numbers an int holds, compared as doubles first (converting one beyond int's range is undefined)
      if (!a || !b || *a < 0 || *b < *a || *b > 1e9 || *a != std::floor(*a) || *b != std::floor(*b) ||
          *b - *a >= 1e6 || values.size() + (*b - *a) >= 1e6)
        fail_at(path_, line(node), fmt::format("<{}> radical=\"{}\": expected ranges such as 0-99 or 1,3,5-8", node.name(),
                                             text));
      for (int i = static_cast<int>(*a); i <= static_cast<int>(*b); ++i)
        values.push_back(i);
      if (end == std::string::npos)
        break;
      pos = end + 1;
    }
    return values;
  }

  void load_cluster(const pugi::xml_node& node, int zone)
  {
    check_leaf(node);
    std::string id = required(node, "id");
    std::string prefix = node.attribute("prefix").as_string("");
    std::string suffix = node.attribute("suffix").as_string("");
    std::string topology = node.attribute("topology").as_string("FLAT");
    if (topology != "FLAT")
      fail_at(path_, line(node), fmt::format("<cluster> topology=\"{}\" is not supported yet (expected FLAT)", topology));
    double speed = quantity(node, "speed", parse_speed, "a speed such as 1Gf");
    int core = cores(node);
    double bw = quantity(node, "bw", parse_bandwidth, "a bandwidth such as 125MBps");
    double lat = quantity(node, "lat", parse_duration, "a duration such as 50us", 0.0);
    bool split = true;
    if (node.attribute("sharing_policy"))
      sharing(node, "sharing_policy", &split);
    SharingPolicy node_policy = split ? SharingPolicy::Shared : sharing(node, "sharing_policy", nullptr);
    double bb_bw = quantity(node, "bb_bw", parse_bandwidth, "a bandwidth", 0.0);
    double bb_lat = quantity(node, "bb_lat", parse_duration, "a duration", 0.0);
    double lb_bw = quantity(node, "loopback_bw", parse_bandwidth, "a bandwidth", 0.0);
    double lb_lat = quantity(node, "loopback_lat", parse_duration, "a duration", 0.0);
    double limiter_bw = quantity(node, "limiter_link", parse_bandwidth, "a bandwidth", 0.0);

    int backbone = -1;
    if (bb_bw > 0 || bb_lat > 0)
      backbone = add_link(node, {id + "_backbone", bb_bw, bb_lat, sharing(node, "bb_sharing_policy", nullptr)});
    for (int i : parse_radical(node)) {
      std::string host_name = prefix + std::to_string(i) + suffix;
      int h = add_host(node, {host_name, speed, core}, zone);
      std::string link_id = id + "_link_" + std::to_string(i);
      if (lb_bw > 0 || lb_lat > 0)
        platform_.set_loopback(h, add_link(node, {link_id + "_loopback", lb_bw, lb_lat, SharingPolicy::Fatpipe}));
      int limiter = -1;
      if (limiter_bw > 0)
        limiter = add_link(node, {link_id + "_limiter", limiter_bw, 0.0, SharingPolicy::Shared});
      int up, down;
      if (split) {
        up = add_link(node, {link_id + "_UP", bw, lat, SharingPolicy::Shared});
        down = add_link(node, {link_id + "_DOWN", bw, lat, SharingPolicy::Shared});
      } else {
        up = down = add_link(node, {link_id, bw, lat, node_policy});
      }
      std::vector<int> up_links, down_links;
      if (limiter >= 0)
        up_links.push_back(limiter);
      up_links.push_back(up);
      if (backbone >= 0) {
        up_links.push_back(backbone);
        down_links.push_back(backbone);
      }
      down_links.push_back(down);
      if (limiter >= 0)
        down_links.push_back(limiter);
      platform_.set_star_links(h, up_links, down_links);
    }
  }

  int load_host(const pugi::xml_node& node, int zone)
  {
    check_leaf(node);
    return add_host(node, {required(node, "id"), quantity(node, "speed", parse_speed, "a speed such as 1Gf"), cores(node)},
                    zone);
  }

  // <cabinet> (SimGrid's sg_platf_new_cabinet): hosts PREFIX+i+SUFFIX for i
  // in the radical, one core each, each with a split-duplex private link
  // link_HOST (link_HOST_UP, link_HOST_DOWN) as its host link in the zone
  void load_cabinet(const pugi::xml_node& node, int zone, std::vector<int>& zone_hosts,
                    std::map<int, std::pair<int, int>>& host_links)
  {
    check_element(node, {});
    required(node, "id");
    std::string prefix = node.attribute("prefix").as_string("");
    std::string suffix = node.attribute("suffix").as_string("");
    double speed = quantity(node, "speed", parse_speed, "a speed such as 1Gf");
    double bw = quantity(node, "bw", parse_bandwidth, "a bandwidth such as 125MBps");
    double lat = quantity(node, "lat", parse_duration, "a duration such as 50us");
    for (int i : parse_radical(node)) {
      std::string host_name = prefix + std::to_string(i) + suffix;
      int h = add_host(node, {host_name, speed, 1}, zone);
      int up = add_link(node, {"link_" + host_name + "_UP", bw, lat, SharingPolicy::Shared});
      int down = add_link(node, {"link_" + host_name + "_DOWN", bw, lat, SharingPolicy::Shared});
      zone_hosts.push_back(h);
      host_links[h] = {up, down};
    }
  }

  // <zone routing="Cluster">: hosts joined through host_links and an optional backbone.
  void load_cluster_zone(const pugi::xml_node& zone_node, int zone)
  {
    check_element(zone_node, {"host", "link", "backbone", "host_link", "route", "cabinet", "prop"});
    std::vector<int> zone_hosts;
    std::map<int, std::pair<int, int>> host_links;
    int backbone = -1;
    for (pugi::xml_node c : zone_node.children()) {
      std::string tag = c.name();
      if (tag == "host") {
        zone_hosts.push_back(load_host(c, zone));
      } else if (tag == "link") {
        load_link(c);
      } else if (tag == "backbone") {
        check_leaf(c);
        if (backbone >= 0)
          fail_at(path_, line(c), fmt::format("cluster zone '{}' has a second <backbone> (expected one at most)",
                                              zone_node.attribute("id").as_string()));
        Link l{required(c, "id"), quantity(c, "bandwidth", parse_bandwidth, "a bandwidth"),
               quantity(c, "latency", parse_duration, "a duration", 0.0), SharingPolicy::Shared};
        l.sharing = sharing(c, "sharing_policy", nullptr);
        backbone = add_link(c, l);
      } else if (tag == "cabinet") {
        load_cabinet(c, zone, zone_hosts, host_links);
      }
    }
    for (pugi::xml_node c : zone_node.children("host_link")) {
      check_element(c, {});
      int h = host_ref(c, "id");
      host_links[h] = {link_ref(c, required(c, "up"), nullptr), link_ref(c, required(c, "down"), nullptr)};
    }
    for (int h : zone_hosts) {
      auto it = host_links.find(h);
      if (it == host_links.end())
        fail_at(path_, line(zone_node), fmt::format("host '{}' of cluster zone '{}' has no <host_link>",
                                                    platform_.hosts()[static_cast<std::size_t>(h)].name,
                                                    zone_node.attribute("id").as_string()));
      std::vector<int> up{it->second.first}, down;
      if (backbone >= 0) {
        up.push_back(backbone);
        down.push_back(backbone);
      }
      down.push_back(it->second.second);
      platform_.set_star_links(h, up, down);
    }
    for (pugi::xml_node r : zone_node.children("route")) {
      int s = host_ref(r, "src"), d = host_ref(r, "dst");
      if (s != d)
        fail_at(path_, line(r), "a cluster zone only takes loopback routes (src equal to dst)");
      auto links = route_links(r);
      if (links.size() != 1)
        fail_at(path_, line(r), "a loopback route takes exactly one <link_ctn>");
      platform_.set_loopback(s, links[0]);
    }
  }

  void load_full_zone_routes(const pugi::xml_node& zone_node)
  {
    for (pugi::xml_node r : zone_node.children("route")) {
      int s = host_ref(r, "src"), d = host_ref(r, "dst");
      auto links = route_links(r);
      platform_.set_explicit_route(s, d, links);
      bool symmetric = std::string(r.attribute("symmetrical").as_string("YES")) != "NO";
      if (symmetric && s != d) {
        std::vector<int> back(links.rbegin(), links.rend());
        platform_.set_explicit_route(d, s, back);
      }
    }
    for (pugi::xml_node r : zone_node.children()) {
      if (std::string(r.name()) != "zoneRoute" && std::string(r.name()) != "ASroute")
        continue;
      auto zone_id = [&](const char* attr) {
        std::string name = required(r, attr);
        auto it = zone_by_name_.find(name);
        if (it == zone_by_name_.end())
          fail_at(path_, line(r), fmt::format("unknown zone '{}'", name));
        return it->second;
      };
      int a = zone_id("src"), b = zone_id("dst");
      auto links = route_links(r);
      pending_zone_routes_[{a, b}] = links;
      if (std::string(r.attribute("symmetrical").as_string("YES")) != "NO")
        pending_zone_routes_[{b, a}] = std::vector<int>(links.rbegin(), links.rend());
    }
  }

  void load_zone_children(const pugi::xml_node& parent, int zone)
  {
    for (pugi::xml_node c : parent.children()) {
      std::string tag = c.name();
      if (tag == "zone" || tag == "AS") {
        int child = zone_count_++;
        std::string name = required(c, "id");
        zone_by_name_[name] = child;
        std::string routing = c.attribute("routing").as_string("");
        if (routing == "Cluster") {
          load_cluster_zone(c, child);
        } else if (routing == "Full" || routing == "Floyd" || routing == "Dijkstra" || routing == "None") {
          if (routing != "Full")
            fail_at(path_, line(c), fmt::format("routing=\"{}\" is not supported yet (expected Full or Cluster)", routing));
          check_element(c, {"link", "host", "zone", "AS", "cluster", "route", "zoneRoute", "ASroute", "prop"});
          for (pugi::xml_node l : c.children("link"))
            load_link(l);
          for (pugi::xml_node h : c.children("host"))
            load_host(h, child);
          load_zone_children(c, child);
          load_full_zone_routes(c);
        } else {
          fail_at(path_, line(c), fmt::format("zone routing=\"{}\": expected Full or Cluster", routing));
        }
      } else if (tag == "cluster") {
        int child = zone_count_++;
        zone_by_name_[required(c, "id")] = child;
        load_cluster(c, child);
      } else if (tag == "link" && zone < 0) {
        load_link(c);
      } else if (tag == "host" && zone < 0) {
        load_host(c, zone);
      } else if (tag == "route" && zone < 0) {
        fail_at(path_, line(c), "<route> must be inside a <zone>");
      }
    }
  }

};

} // namespace

Platform parse_simgrid_platform(const std::string& text, const std::string& path)
{
  return XmlLoader(text, path).load();
}

} // namespace perfcast

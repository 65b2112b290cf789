// perfcast's JSON platform format (docs/formats.md):
//   {"format": "perfcast-platform", "version": 1,
//    "clusters": [{"name": "c", "bandwidth": "1Gbps", "latency": "50us",
//                  "backbone": {"bandwidth": "10Gbps", "latency": "1us"},
//                  "loopback": {"bandwidth": "10GBps", "latency": "1us"},
//                  "nodes": [{"prefix": "e5620-", "count": 4, "speed": "9.6Gf", "cores": 8}]}],
//    "hosts": [...], "links": [...], "routes": [{"src", "dst", "links": [...]}],
//    "cluster_routes": [{"src": "c1", "dst": "c2", "links": [...]}]}
// A cluster is SimGrid's <cluster>: split-duplex private links, optional backbone.
#include "core/Error.hpp"
#include "core/JsonKeys.hpp"
#include "core/Units.hpp"
#include "platform/Platform.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perfcast {

namespace {

using nlohmann::json;

// Larger than any machine simulated; keeps a typo from building a billion hosts.
constexpr long long kMaxCount = 1000000;

class JsonLoader {
public:
  JsonLoader(const std::string& text, std::string path) : path_(std::move(path)), text_(text), lines_(text) {}

  Platform load()
  {
    json doc;
    try {
      doc = json::parse(text_);
    } catch (const json::parse_error& e) {
      fail_at(path_, line_of(e.byte), fmt::format("malformed JSON: {}", e.what()));
    } catch (const json::exception& e) {
      fail_in(path_, fmt::format("malformed JSON: {}", e.what())); // e.g. a number out of range
    }
    try {
      return load(doc);
    } catch (const json::exception& e) {
      // a field of the wrong JSON type somewhere the checks below did not look
      fail_in(path_, fmt::format("unexpected JSON value: {}", e.what()));
    }
  }

  Platform load(const json& doc)
  {
    if (!doc.is_object())
      fail_in(path_, "expected a JSON object");
    if (doc.value("format", "") != "perfcast-platform")
      fail_in(path_, "field 'format' must be \"perfcast-platform\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != 1)
      fail_in(path_, "field 'version' must be 1");
    // "description" and "generator" are free text for people and tools (perfcast probe writes both)
    keys(doc, {"format", "version", "description", "generator", "clusters", "links", "hosts", "routes",
               "cluster_routes"},
         "");
    int zone = 0;
    if (doc.contains("clusters"))
      for (std::size_t i = 0; i < array(doc, "clusters").size(); ++i)
        load_cluster(doc["clusters"][i], fmt::format("clusters[{}]", i), zone++);
    if (doc.contains("links"))
      for (std::size_t i = 0; i < array(doc, "links").size(); ++i) {
        const json& l = doc["links"][i];
        std::string where = fmt::format("links[{}]", i);
        keys(l, {"name", "bandwidth", "latency", "sharing"}, where);
        Link link{string(l, "name", where), bandwidth(l, "bandwidth", where), duration(l, "latency", where, 0.0),
                  SharingPolicy::Shared};
        std::string policy = l.value("sharing", "shared");
        if (policy == "fatpipe")
          link.sharing = SharingPolicy::Fatpipe;
        else if (policy != "shared")
          fail_in(path_, where + ".sharing: expected \"shared\" or \"fatpipe\"");
        guarded(where, [&] { platform_.add_link(link); });
      }
    if (doc.contains("hosts"))
      for (std::size_t i = 0; i < array(doc, "hosts").size(); ++i) {
        const json& h = doc["hosts"][i];
        std::string where = fmt::format("hosts[{}]", i);
        keys(h, with_machine_figures({"name", "speed", "cores"}), where);
        Host host = machine_figures(h, where);
        host.name = string(h, "name", where);
        host.speed_flops = speed(h, "speed", where);
        host.cores = count(h, "cores", where, 1);
        int id = 0;
        guarded(where, [&] { id = platform_.add_host(host); });
        platform_.set_zone(id, zone);
      }
    if (doc.contains("routes"))
      for (std::size_t i = 0; i < array(doc, "routes").size(); ++i) {
        const json& r = doc["routes"][i];
        std::string where = fmt::format("routes[{}]", i);
        keys(r, {"src", "dst", "links", "symmetric"}, where);
        int s = host(r, "src", where), d = host(r, "dst", where);
        auto links = link_list(r, where);
        platform_.set_explicit_route(s, d, links);
        if (r.value("symmetric", true) && s != d)
          platform_.set_explicit_route(d, s, std::vector<int>(links.rbegin(), links.rend()));
      }
    if (doc.contains("cluster_routes"))
      for (std::size_t i = 0; i < array(doc, "cluster_routes").size(); ++i) {
        const json& r = doc["cluster_routes"][i];
        std::string where = fmt::format("cluster_routes[{}]", i);
        keys(r, {"src", "dst", "links", "symmetric"}, where);
        int a = cluster(r, "src", where), b = cluster(r, "dst", where);
        auto links = link_list(r, where);
        platform_.set_zone_route(a, b, links);
        if (r.value("symmetric", true))
          platform_.set_zone_route(b, a, std::vector<int>(links.rbegin(), links.rend()));
      }
    if (platform_.hosts().empty())
      fail_in(path_, "the platform has no host (expected 'clusters' or 'hosts')");
    return std::move(platform_);
  }

private:
  std::string path_;
  const std::string& text_;
  JsonLines lines_;
  Platform platform_;
  std::map<std::string, int> cluster_zone_;

  // an object's keys are all known ones; an unknown key is an error at its line
  void keys(const json& obj, const std::vector<std::string>& known, const std::string& where)
  {
    check_json_keys(obj, known, where, path_, lines_);
  }

  static std::vector<std::string> with_machine_figures(std::vector<std::string> names)
  {
    for (const char* k : {"memory", "virtual_memory", "disk_read", "disk_write", "disk_write_busy", "message_overhead",
                          "message_latency", "disk_cpu_per_MB", "memory_slowdown"})
      names.emplace_back(k);
    return names;
  }

  std::size_t line_of(std::size_t offset) const
  {
    std::size_t n = 1;
    for (std::size_t i = 0; i + 1 < offset && i < text_.size(); ++i)
      if (text_[i] == '\n')
        ++n;
    return n;
  }

  template <class F> void guarded(const std::string& where, F&& f)
  {
    try {
      f();
    } catch (const Error& e) {
      fail_in(path_, where + ": " + e.what());
    }
  }

  const json& array(const json& obj, const char* key)
  {
    const json& a = obj[key];
    if (!a.is_array())
      fail_in(path_, fmt::format("field '{}' must be an array", key));
    return a;
  }

  const json& field(const json& obj, const char* key, const std::string& where)
  {
    if (!obj.is_object())
      fail_in(path_, where + ": expected an object");
    if (!obj.contains(key))
      fail_in(path_, fmt::format("{}: missing field '{}'", where, key));
    return obj[key];
  }

  std::string string(const json& obj, const char* key, const std::string& where)
  {
    const json& v = field(obj, key, where);
    if (!v.is_string() || v.get<std::string>().empty())
      fail_in(path_, fmt::format("{}.{}: expected a non-empty string", where, key));
    return v.get<std::string>();
  }

  double quantity(const json& obj, const char* key, const std::string& where, std::optional<double> fallback,
                  std::optional<double> (*parse)(std::string_view), const char* expected)
  {
    if (!obj.contains(key) && fallback)
      return *fallback;
    const json& v = field(obj, key, where);
    std::optional<double> value;
    if (v.is_number())
      value = v.get<double>();
    else if (v.is_string())
      value = parse(v.get<std::string>());
    if (!value || *value < 0)
      fail_in(path_, fmt::format("{}.{}: expected {}", where, key, expected));
    return *value;
  }

  double speed(const json& o, const char* k, const std::string& w)
  {
    double v = quantity(o, k, w, std::nullopt, parse_speed, "a speed such as \"1Gf\" or a number of flop/s");
    if (v <= 0)
      fail_in(path_, fmt::format("{}.{}: expected a positive speed", w, k));
    return v;
  }
  double bandwidth(const json& o, const char* k, const std::string& w)
  {
    double v = quantity(o, k, w, std::nullopt, parse_bandwidth, "a bandwidth such as \"1Gbps\" or a number of bytes/s");
    if (v <= 0)
      fail_in(path_, fmt::format("{}.{}: expected a positive bandwidth", w, k));
    return v;
  }
  double duration(const json& o, const char* k, const std::string& w, std::optional<double> fallback)
  {
    return quantity(o, k, w, fallback, parse_duration, "a duration such as \"50us\" or a number of seconds");
  }
  double bytes(const json& o, const char* k, const std::string& w)
  {
    return quantity(o, k, w, 0.0, parse_bytes, "a size such as \"8GiB\" or a number of bytes");
  }

  /// The optional figures of a node kind that the scheduling simulator uses.
  Host machine_figures(const json& kind, const std::string& w)
  {
    Host h;
    h.memory_bytes = bytes(kind, "memory", w);
    h.virtual_memory_bytes = bytes(kind, "virtual_memory", w);
    if (kind.contains("disk_read"))
      h.disk_read_Bps = bandwidth(kind, "disk_read", w);
    if (kind.contains("disk_write"))
      h.disk_write_Bps = bandwidth(kind, "disk_write", w);
    if (kind.contains("disk_write_busy"))
      h.disk_write_busy_Bps = bandwidth(kind, "disk_write_busy", w);
    h.message_overhead_s = duration(kind, "message_overhead", w, 0.0);
    h.message_latency_s = duration(kind, "message_latency", w, 0.0);
    h.disk_cpu_s_per_byte = duration(kind, "disk_cpu_per_MB", w, 0.0) / 1e6;
    if (kind.contains("memory_slowdown")) {
      const json& m = kind["memory_slowdown"];
      std::string mw = w + ".memory_slowdown";
      auto pair = [&](const char* key, double& a, double& b) {
        if (!m.contains(key))
          return;
        const json& v = m[key];
        if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_number())
          fail_in(path_, fmt::format("{}.{}: expected two numbers [a, b]", mw, key));
        a = v[0].get<double>();
        b = v[1].get<double>();
      };
      if (!m.is_object())
        fail_in(path_, mw + ": expected {\"linear\": [slope, intercept], \"exponential\": [scale, rate]}");
      keys(m, {"linear", "exponential"}, mw);
      pair("linear", h.memory_slowdown.linear_slope, h.memory_slowdown.linear_intercept);
      pair("exponential", h.memory_slowdown.exp_scale, h.memory_slowdown.exp_rate);
    }
    return h;
  }

  int count(const json& o, const char* k, const std::string& w, std::optional<int> fallback)
  {
    if (!o.contains(k) && fallback)
      return *fallback;
    const json& v = field(o, k, w);
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > kMaxCount)
      fail_in(path_, fmt::format("{}.{}: expected an integer from 1 to {}", w, k, kMaxCount));
    return v.get<int>();
  }

  int host(const json& o, const char* k, const std::string& w)
  {
    std::string name = string(o, k, w);
    int h = platform_.find_host(name);
    if (h < 0)
      fail_in(path_, fmt::format("{}.{}: unknown host '{}'", w, k, name));
    return h;
  }

  int cluster(const json& o, const char* k, const std::string& w)
  {
    std::string name = string(o, k, w);
    auto it = cluster_zone_.find(name);
    if (it == cluster_zone_.end())
      fail_in(path_, fmt::format("{}.{}: unknown cluster '{}'", w, k, name));
    return it->second;
  }

  std::vector<int> link_list(const json& r, const std::string& where)
  {
    const json& links = field(r, "links", where);
    if (!links.is_array())
      fail_in(path_, where + ".links: expected an array of link names");
    std::vector<int> ids;
    for (const json& l : links) {
      if (!l.is_string())
        fail_in(path_, where + ".links: expected link names");
      int id = platform_.find_link(l.get<std::string>());
      if (id < 0)
        fail_in(path_, fmt::format("{}.links: unknown link '{}'", where, l.get<std::string>()));
      ids.push_back(id);
    }
    return ids;
  }

  void load_cluster(const json& c, const std::string& where, int zone)
  {
    std::string name = string(c, "name", where);
    keys(c, {"name", "bandwidth", "latency", "backbone", "loopback", "nodes"}, where);
    cluster_zone_[name] = zone;
    double bw = bandwidth(c, "bandwidth", where);
    double lat = duration(c, "latency", where, 0.0);
    int backbone = -1;
    if (c.contains("backbone")) {
      const json& b = c["backbone"];
      std::string w = where + ".backbone";
      keys(b, {"bandwidth", "latency", "sharing"}, w);
      Link l{name + "_backbone", bandwidth(b, "bandwidth", w), duration(b, "latency", w, 0.0), SharingPolicy::Shared};
      const std::string policy = b.contains("sharing") && b["sharing"].is_string() ? b["sharing"].get<std::string>()
                                                                                    : "shared";
      if (policy == "fatpipe")
        l.sharing = SharingPolicy::Fatpipe;
      else if (policy != "shared" || (b.contains("sharing") && !b["sharing"].is_string()))
        fail_at(path_, lines_.line(w + ".sharing"), w + ".sharing: expected \"shared\" or \"fatpipe\"");
      guarded(w, [&] { backbone = platform_.add_link(l); });
    }
    const json* loopback = c.contains("loopback") ? &c["loopback"] : nullptr;
    if (loopback)
      keys(*loopback, {"bandwidth", "latency"}, where + ".loopback");
    const json& kinds = field(c, "nodes", where);
    if (!kinds.is_array() || kinds.empty())
      fail_in(path_, where + ".nodes: expected a non-empty array of node kinds");
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const json& kind = kinds[k];
      std::string w = fmt::format("{}.nodes[{}]", where, k);
      keys(kind, with_machine_figures({"names", "prefix", "count", "first", "speed", "cores", "bandwidth", "latency"}),
           w);
      // hosts are named PREFIX + i for i = first..first+count-1, or listed by name
      std::vector<std::string> host_names;
      if (kind.contains("names")) {
        const json& names = kind["names"];
        if (!names.is_array() || names.empty())
          fail_in(path_, w + ".names: expected a non-empty array of host names");
        for (std::size_t i = 0; i < names.size(); ++i) {
          if (!names[i].is_string() || names[i].get<std::string>().empty())
            fail_in(path_, fmt::format("{}.names[{}]: expected a non-empty string", w, i));
          host_names.push_back(names[i].get<std::string>());
        }
      } else {
        std::string prefix = string(kind, "prefix", w);
        int n = count(kind, "count", w, std::nullopt);
        int first = 0;
        if (kind.contains("first")) {
          const json& v = kind["first"];
          if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > kMaxCount)
            fail_in(path_, fmt::format("{}.first: expected an integer from 0 to {}", w, kMaxCount));
          first = v.get<int>();
        }
        for (int i = first; i < first + n; ++i)
          host_names.push_back(prefix + std::to_string(i));
      }
      double sp = speed(kind, "speed", w);
      int cores = count(kind, "cores", w, 1);
      double node_bw = kind.contains("bandwidth") ? bandwidth(kind, "bandwidth", w) : bw;
      double node_lat = kind.contains("latency") ? duration(kind, "latency", w, 0.0) : lat;
      Host described = machine_figures(kind, w);
      for (const std::string& host_name : host_names) {
        int h = 0;
        guarded(w, [&] {
          Host host = described;
          host.name = host_name;
          host.speed_flops = sp;
          host.cores = cores;
          h = platform_.add_host(host);
          int up = platform_.add_link({host_name + "_UP", node_bw, node_lat, SharingPolicy::Shared});
          int down = platform_.add_link({host_name + "_DOWN", node_bw, node_lat, SharingPolicy::Shared});
          std::vector<int> up_links{up}, down_links;
          if (backbone >= 0) {
            up_links.push_back(backbone);
            down_links.push_back(backbone);
          }
          down_links.push_back(down);
          platform_.set_star_links(h, up_links, down_links);
          if (loopback) {
            std::string lw = where + ".loopback";
            int lb = platform_.add_link({host_name + "_loopback", bandwidth(*loopback, "bandwidth", lw),
                                         duration(*loopback, "latency", lw, 0.0), SharingPolicy::Fatpipe});
            platform_.set_loopback(h, lb);
          }
        });
        platform_.set_zone(h, zone);
      }
    }
  }
};

} // namespace

Platform parse_json_platform(const std::string& text, const std::string& path)
{
  return JsonLoader(text, path).load();
}

} // namespace perfcast

#include "lb/LoadDatabase.hpp"

#include "core/Error.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perfcast::lb {

namespace {

using nlohmann::json;

std::size_t line_of(std::string_view text, std::size_t byte)
{
  byte = std::min(byte, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(byte), '\n'));
}

class Reader {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  LbProblem read(const json& doc)
  {
    if (!doc.is_object())
      fail("", "expected a JSON object");
    check_keys(doc, "", {"format", "version", "pes", "objects"});
    if (!doc.contains("format") || doc["format"] != "perfcast-lbdb")
      fail("/format", "expected \"perfcast-lbdb\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"] != 1)
      fail("/version", "expected 1 (the only version perfcast reads)");
    LbProblem problem;
    const json& pes = array(doc, "pes", "");
    if (pes.empty())
      fail("/pes", "expected at least one PE");
    problem.pes.resize(pes.size());
    std::vector<std::string> pe_at(pes.size());
    for (std::size_t i = 0; i < pes.size(); ++i) {
      std::string at = fmt::format("/pes/{}", i);
      const json& p = pes[i];
      if (!p.is_object())
        fail(at, "expected an object");
      check_keys(p, at, {"id", "speed", "background_s", "available"});
      std::size_t id = dense_id(p, at, pes.size(), pe_at, "PE");
      PeState& pe = problem.pes[id];
      pe.speed = number(p, "speed", at, 1.0);
      if (pe.speed <= 0)
        fail(at + "/speed", "expected a finite number > 0");
      pe.background_s = number(p, "background_s", at, 0.0);
      pe.available = boolean(p, "available", at, true);
    }
    if (std::none_of(problem.pes.begin(), problem.pes.end(), [](const PeState& p) { return p.available; }))
      fail("/pes", "expected at least one available PE");
    const json& objects = array(doc, "objects", "");
    problem.objects.resize(objects.size());
    std::vector<std::string> object_at(objects.size());
    for (std::size_t i = 0; i < objects.size(); ++i) {
      std::string at = fmt::format("/objects/{}", i);
      const json& o = objects[i];
      if (!o.is_object())
        fail(at, "expected an object");
      check_keys(o, at, {"id", "pe", "load_s", "migratable", "bytes"});
      std::size_t id = dense_id(o, at, objects.size(), object_at, "object");
      ObjectState& obj = problem.objects[id];
      if (!o.contains("pe") || !o["pe"].is_number_integer())
        fail(at + "/pe", "expected the integer id of a PE");
      long long pe = o["pe"].get<long long>();
      if (pe < 0 || static_cast<std::size_t>(pe) >= pes.size())
        fail(at + "/pe", fmt::format("object {} is on PE {}, which does not exist (PE ids are 0..{})", id, pe,
                                     pes.size() - 1));
      obj.pe = static_cast<int>(pe);
      if (!o.contains("load_s"))
        fail(at + "/load_s", "missing; expected the object's load in seconds");
      obj.load_s = number(o, "load_s", at, 0.0);
      obj.migratable = boolean(o, "migratable", at, true);
      if (o.contains("bytes")) {
        if (!o["bytes"].is_number_unsigned())
          fail(at + "/bytes", "expected an integer number of bytes >= 0");
        obj.bytes = o["bytes"].get<std::uint64_t>();
      }
      if (!obj.migratable && !problem.pes[obj.pe].available)
        fail(at, fmt::format("object {} is non-migratable but on PE {}, which is unavailable", id, pe));
    }
    return problem;
  }

private:
  [[noreturn]] void fail(const std::string& at, const std::string& what) const
  {
    fail_in(file_, at.empty() ? what : fmt::format("{}: {}", at, what));
  }

  void check_keys(const json& o, const std::string& at, std::initializer_list<const char*> keys) const
  {
    for (const auto& item : o.items()) {
      const std::string& key = item.key(); // clang 14 cannot capture a structured binding in the lambda below
      bool known = std::any_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; });
      if (!known) {
        std::string list;
        for (const char* k : keys)
          list += (list.empty() ? "" : ", ") + std::string(k);
        fail(at + "/" + key, fmt::format("unknown field (expected one of: {})", list));
      }
    }
  }

  const json& array(const json& o, const char* key, const std::string& at) const
  {
    if (!o.contains(key) || !o[key].is_array())
      fail(fmt::format("{}/{}", at, key), "expected an array");
    return o[key];
  }

  double number(const json& o, const char* key, const std::string& at, double fallback) const
  {
    if (!o.contains(key))
      return fallback;
    const json& v = o[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(fmt::format("{}/{}", at, key), "expected a finite number >= 0");
    return v.get<double>();
  }

  bool boolean(const json& o, const char* key, const std::string& at, bool fallback) const
  {
    if (!o.contains(key))
      return fallback;
    if (!o[key].is_boolean())
      fail(fmt::format("{}/{}", at, key), "expected true or false");
    return o[key].get<bool>();
  }

  std::size_t dense_id(const json& o, const std::string& at, std::size_t count, std::vector<std::string>& seen,
                       const char* what) const
  {
    if (!o.contains("id") || !o["id"].is_number_integer())
      fail(at + "/id", fmt::format("expected an integer {} id", what));
    long long id = o["id"].get<long long>();
    if (id < 0 || static_cast<std::size_t>(id) >= count)
      fail(at + "/id", fmt::format("{} id {} out of range: the {} {}s must have ids 0..{}", what, id, count, what,
                                   count - 1));
    std::string& first = seen[static_cast<std::size_t>(id)];
    if (!first.empty())
      fail(at + "/id", fmt::format("duplicate {} id {} (first at {})", what, id, first));
    first = at;
    return static_cast<std::size_t>(id);
  }

  std::string file_;
};

} // namespace

LbProblem parse_load_database(std::string_view text, const std::string& file)
{
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    fail_at(file, line_of(text, e.byte), fmt::format("malformed JSON: {}", e.what()));
  } catch (const json::exception& e) {
    fail_in(file, fmt::format("malformed JSON: {}", e.what()));
  }
  return Reader(file).read(doc);
}

LbProblem read_load_database(const std::string& path)
{
  return parse_load_database(read_file(path, "load database"), path);
}

} // namespace perfcast::lb

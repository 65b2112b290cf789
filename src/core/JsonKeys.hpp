#pragma once
// Strict reading of perfcast's JSON inputs: every key of an object must be
// one the reader knows, and an unknown one is reported at its line, with a
// suggestion when it is close to a known key ("sped" -> "speed").
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast {

/// The line of every object key of a JSON text, by its path as the readers
/// name places in messages: "clusters[0].nodes[1].speed", "format".
class JsonLines {
public:
  /// Indexes a text that nlohmann::json has already parsed without error.
  explicit JsonLines(std::string_view text);

  /// The line of the key at `path`, or of its nearest enclosing key; 1 when none is known.
  std::size_t line(const std::string& path) const;

private:
  std::map<std::string, std::size_t> lines_;
};

/// The path of a key inside the object at `where` ("" for the document).
std::string json_key_path(const std::string& where, const std::string& key);

/// Throws Error at FILE:LINE when `object` has a key outside `known`:
/// "WHERE: unknown key 'sped' (did you mean 'speed'?); expected one of ...".
void check_json_keys(const nlohmann::json& object, const std::vector<std::string>& known, const std::string& where,
                     const std::string& file, const JsonLines& lines);

} // namespace perfcast

#include "core/JsonKeys.hpp"

#include "core/Error.hpp"
#include "core/NamedSpec.hpp"
#include "core/Text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast {

namespace {

struct Frame {
  bool array = false;
  std::string path;   // the container's own path
  std::size_t index = 0;
  std::string key;    // the key whose value comes next (objects)
};

std::string child_path(const Frame& f)
{
  return f.array ? fmt::format("{}[{}]", f.path, f.index) : json_key_path(f.path, f.key);
}

} // namespace

std::string json_key_path(const std::string& where, const std::string& key)
{
  return where.empty() ? key : where + "." + key;
}

JsonLines::JsonLines(std::string_view text)
{
  std::vector<Frame> stack;
  std::size_t line = 1;
  bool expect_key = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '{' || c == '[') {
      Frame f;
      f.array = c == '[';
      f.path = stack.empty() ? "" : child_path(stack.back());
      stack.push_back(std::move(f));
      expect_key = c == '{';
    } else if (c == '}' || c == ']') {
      if (!stack.empty())
        stack.pop_back();
      expect_key = false;
    } else if (c == ',') {
      if (!stack.empty() && stack.back().array)
        ++stack.back().index;
      expect_key = !stack.empty() && !stack.back().array;
    } else if (c == '"') {
      std::string s;
      const std::size_t start_line = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          s += text[i] == 'n' ? '\n' : text[i]; // keys are compared as written; escapes are rare in them
        } else {
          if (text[i] == '\n')
            ++line;
          s += text[i];
        }
      }
      if (expect_key && !stack.empty()) {
        stack.back().key = s;
        lines_.emplace(json_key_path(stack.back().path, s), start_line);
        expect_key = false;
      }
    }
  }
}

std::size_t JsonLines::line(const std::string& path) const
{
  for (std::string p = path; !p.empty();) {
    if (auto it = lines_.find(p); it != lines_.end())
      return it->second;
    const std::size_t cut = p.find_last_of(".[");
    if (cut == std::string::npos)
      break;
    p.resize(cut);
  }
  return 1;
}

void check_json_keys(const nlohmann::json& object, const std::vector<std::string>& known, const std::string& where,
                     const std::string& file, const JsonLines& lines)
{
  if (!object.is_object())
    return;
  for (const auto& item : object.items()) {
    if (std::find(known.begin(), known.end(), item.key()) != known.end())
      continue;
    const std::string path = json_key_path(where, item.key());
    fail_at(file, lines.line(path),
            fmt::format("{}unknown key '{}'{}; expected one of {}", where.empty() ? "" : where + ": ", item.key(),
                        did_you_mean(item.key(), known), join_names(known)));
  }
}

} // namespace perfcast

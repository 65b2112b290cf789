#pragma once
// Text placed inside SVG documents.
#include <string>
#include <string_view>

namespace perfcast {

/// `text` with the characters XML reserves (& < > ") written as entities.
inline std::string xml_escape(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

} // namespace perfcast

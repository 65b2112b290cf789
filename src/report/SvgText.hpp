#pragma once
// Text placed inside SVG documents.
#include <fmt/format.h>
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

/// A heatmap's colour scale, `height` tall at (`x`, `top`): `colour(share)` from 1 at the top to 0 at the
/// bottom in 40 bands, framed; the caller labels its ends.
template <class Colour>
std::string svg_colour_scale(double x, double top, double height, Colour colour)
{
  std::string svg;
  for (int k = 0; k < 40; ++k)
    svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.2f}\" width=\"16\" height=\"{:.2f}\" fill=\"{}\"/>\n", x,
                       top + height * k / 40.0, height / 40.0 + 0.3, colour(1.0 - k / 39.0));
  svg += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"16\" height=\"{:.0f}\" fill=\"none\" stroke=\"#333\"/>\n",
                     x, top, height);
  return svg;
}

} // namespace perfcast

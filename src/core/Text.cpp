#include "core/Text.hpp"

#include "core/Error.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace perfcast {

std::string_view trim(std::string_view text)
{
  constexpr std::string_view kBlanks = " \t\r";
  auto a = text.find_first_not_of(kBlanks);
  if (a == std::string_view::npos)
    return {};
  return text.substr(a, text.find_last_not_of(kBlanks) - a + 1);
}

std::string read_file(const std::string& path, std::string_view what)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail_in(path, "cannot open " + std::string(what));
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

} // namespace perfcast

namespace perfcast {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  // optimal string alignment: a swapped pair of letters is one edit, as typing makes it
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::string closest_name(std::string_view word, const std::vector<std::string>& candidates)
{
  std::string best;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const std::size_t longer = std::max(word.size(), c.size());
    const std::size_t limit = std::max<std::size_t>(1, longer / 4);
    const std::size_t d = edit_distance(word, c);
    if (d == 0 || d > limit || d >= longer)
      continue;
    if (best.empty() || d < best_distance) { // ties: the first candidate, so the answer is stable
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates)
{
  std::string best = closest_name(word, candidates);
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

} // namespace perfcast

#include "trace/ActionKeywords.hpp"

#include <cstring>
#include <utility>
#include <vector>

namespace perfcast {

namespace {

// Every (keyword, meaning) pair: each action's name, and "i" + name for collectives.
const std::vector<std::pair<std::string, Keyword>>& keywords()
{
  static const std::vector<std::pair<std::string, Keyword>> table = [] {
    std::vector<std::pair<std::string, Keyword>> t;
    for (std::size_t i = 0; i < kActionTypeCount; ++i) {
      auto type = static_cast<ActionType>(i);
      t.emplace_back(std::string(action_name(type)), Keyword{type, false});
      if (is_collective(type))
        t.emplace_back("i" + std::string(action_name(type)), Keyword{type, true});
    }
    t.emplace_back("waitAny", Keyword{ActionType::Waitany, false}); // SMPI 3.32's -trace-ti spells MPI_Waitany so
    return t;
  }();
  return table;
}

// An open-addressing table over the keywords: a hash of the length and three
// letters, then a comparison of the candidate; a couple of probes per line.
class KeywordTable {
public:
  KeywordTable()
  {
    for (const auto& entry : keywords()) {
      std::size_t i = slot(entry.first);
      while (slots_[i].keyword)
        i = (i + 1) & (kSlots - 1);
      slots_[i].name = entry.first;
      slots_[i].keyword = &entry.second;
    }
  }
  const Keyword* find(std::string_view word) const
  {
    if (word.empty())
      return nullptr;
    for (std::size_t i = slot(word);; i = (i + 1) & (kSlots - 1)) {
      const Slot& s = slots_[i];
      if (!s.keyword)
        return nullptr;
      if (s.name.size() == word.size() && std::memcmp(s.name.data(), word.data(), word.size()) == 0)
        return s.keyword;
    }
  }

private:
  static constexpr std::size_t kSlots = 512; // over four times the keywords: short probe runs
  struct Slot {
    std::string_view name;
    const Keyword* keyword = nullptr;
  };
  static std::size_t slot(std::string_view w)
  {
    std::size_t n = w.size();
    auto c = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(w[i])); };
    return (n * 131 + c(0) * 31 + c(n / 2) * 7 + c(n - 1)) & (kSlots - 1);
  }
  Slot slots_[kSlots];
};

} // namespace

const Keyword* find_keyword(std::string_view word)
{
  static const KeywordTable table;
  return table.find(word);
}

std::string expected_keywords()
{
  std::string s;
  for (std::size_t i = 0; i < kActionTypeCount; ++i) {
    if (!s.empty())
      s += ", ";
    s += action_name(static_cast<ActionType>(i));
  }
  return s + ", and i<collective> forms (ibcast, iallreduce, ...)";
}

} // namespace perfcast

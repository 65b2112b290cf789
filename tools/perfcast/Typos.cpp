#include "Typos.hpp"

#include "core/Text.hpp"

#include <fmt/format.h>

namespace perfcast::cli {
namespace {

std::string command_path(const CLI::App* app)
{
  std::string path;
  for (const CLI::App* a = app; a; a = a->get_parent())
    path = a->get_parent() ? " " + a->get_name() + path : "perfcast" + path;
  return path;
}

std::vector<std::string> option_names(const CLI::App* app)
{
  std::vector<std::string> names;
  for (const CLI::Option* o : app->get_options()) {
    for (const std::string& l : o->get_lnames())
      names.push_back("--" + l);
    for (const std::string& s : o->get_snames())
      names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App* app)
{
  std::vector<std::string> names;
  for (const CLI::App* s : app->get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(s->get_name());
  return names;
}

} // namespace

std::string explain_unknown_word(const CLI::App& app, int argc, const char* const* argv)
{
  const CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--")
      break; // what follows is the user's command
    if (word.size() > 1 && word[0] == '-' && !(word[1] >= '0' && word[1] <= '9') && word[1] != '.') {
      const std::string name = word.substr(0, word.find('='));
      if (current->get_option_no_throw(name) || name == "--help" || name == "-h")
        continue;
      const std::vector<std::string> known = option_names(current);
      return fmt::format("{}: unknown option '{}'{}; '{} --help' lists its options", command_path(current), name,
                         did_you_mean(name, known), command_path(current));
    }
    const auto subs = current->get_subcommands([&](const CLI::App* s) { return s->get_name() == word; });
    if (!subs.empty()) {
      current = subs.front();
      continue;
    }
    // a word where a subcommand is required is a mistyped one, not a value
    if (current->get_require_subcommand_min() > 0) {
      const std::vector<std::string> known = subcommand_names(current);
      return fmt::format("{}: unknown command '{}'{}; '{} --help' lists the commands", command_path(current), word,
                         did_you_mean(word, known), command_path(current));
    }
  }
  return "";
}

std::string explain_parse_error(const CLI::App& app, int argc, const char* const* argv, const std::string& message)
{
  const CLI::App* current = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--")
      break;
    const auto subs = current->get_subcommands([&](const CLI::App* s) { return s->get_name() == word; });
    if (!subs.empty())
      current = subs.front();
  }
  std::string text = message;
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z' && !(text.size() > 1 && text[1] >= 'A' && text[1] <= 'Z'))
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  bool has_commands = current->get_require_subcommand_min() > 0;
  return fmt::format("{}: {}; '{} --help' lists {}", command_path(current), text, command_path(current),
                     has_commands ? "the commands" : "its options");
}

} // namespace perfcast::cli

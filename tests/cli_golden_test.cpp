// Golden command-line cases: each file under tests/cli/ is a list of commands run in the source tree, each with
// the exact output and exit status it must give. A case file reads:
//
//   # what the case pins (comment lines and blank lines are ignored)
//   $ perfcast replay examples/traces/... -p examples/platforms/cluster16.xml
//   > a line the command prints on stdout
//   ! a line it prints on stderr
//   ? 2                     (its exit status; 0 when absent)
//
// A command is a shell line run with `sh -c` in the source directory, with the binary under test first on PATH;
// $OUT names a directory of the case's own, created for the case and removed after it, for the files its
// commands write (compare them with `diff`, `cat` or `head`), and is printed as `$OUT` wherever it appears. Output that differs fails the case with a
// unified diff of what was expected against what came. `PERFCAST_GOLDEN_UPDATE=1 perfcast_tests
// --gtest_filter='CliGolden*'` writes what came back into the case files instead; review that diff as a
// change of behaviour.
#include "TestUtil.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfcast {
namespace {

namespace fs = std::filesystem;

struct Step {
  std::string command;
  std::vector<std::string> out, err;
  int status = 0;
};

struct Case {
  std::vector<std::vector<std::string>> notes; // comments and blank lines before each step and after the last
  std::vector<Step> steps;
};

std::string cases_dir() { return test::source_dir() + "/tests/cli"; }

std::vector<std::string> case_names()
{
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(cases_dir(), ec))
    if (e.path().extension() == ".t")
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

Case parse_case(const std::string& path)
{
  Case c;
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> notes;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto body = [&](std::size_t n) { return line.size() > n ? line.substr(n + 1) : std::string(); };
    if (line.rfind("$ ", 0) == 0) {
      c.notes.push_back(std::move(notes));
      notes.clear();
      c.steps.push_back({line.substr(2), {}, {}, 0});
    } else if (line == ">" || line.rfind("> ", 0) == 0) {
      if (c.steps.empty())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": output before any `$ ` command");
      c.steps.back().out.push_back(body(1));
    } else if (line == "!" || line.rfind("! ", 0) == 0) {
      if (c.steps.empty())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": stderr before any `$ ` command");
      c.steps.back().err.push_back(body(1));
    } else if (line.rfind("? ", 0) == 0) {
      if (c.steps.empty())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": status before any `$ ` command");
      const std::string digits = line.substr(2);
      int status = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), status);
      if (ec != std::errc() || end != digits.data() + digits.size())
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": expected an exit status after `? `, got `" +
                                 digits + "`");
      c.steps.back().status = status;
    } else if (line.empty() || line[0] == '#') {
      notes.push_back(line);
    } else {
      throw std::runtime_error(path + ":" + std::to_string(lineno) +
                               ": expected `# `, `$ `, `> `, `! ` or `? ` at the start of the line");
    }
  }
  c.notes.push_back(std::move(notes));
  return c;
}

std::vector<std::string> lines_of(const std::string& text)
{
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines, char prefix)
{
  std::string s;
  for (const auto& l : lines)
    s += l.empty() ? std::string(1, prefix) + "\n" : std::string(1, prefix) + " " + l + "\n";
  return s;
}

std::string unified_diff(const std::string& expected, const std::string& got, const std::string& dir)
{
  std::ofstream(dir + "/expected") << expected;
  std::ofstream(dir + "/got") << got;
  return test::run_command("cd " + dir + " && diff -u expected got").output;
}

// The step's command as sh runs it: in the source directory, the binary under test first on PATH, $OUT set.
std::string shell_line(const std::string& command, const std::string& out_dir)
{
  std::string quoted;
  for (char ch : command)
    quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  std::string bin_dir = fs::path(test::perfcast_binary()).parent_path().string();
  return "cd " + test::source_dir() + " && PATH=" + bin_dir + ":$PATH OUT=" + out_dir + " sh -c '" + quoted + "'";
}

// Text with every mention of the case's directory written as $OUT, so that the output does not depend on it.
std::string with_out_named(std::string text, const std::string& out_dir)
{
  for (std::size_t at = text.find(out_dir); at != std::string::npos; at = text.find(out_dir, at + 4))
    text.replace(at, out_dir.size(), "$OUT");
  return text;
}

struct Ran {
  std::string out, err;
  int status = -1;
};

Ran run_step(const std::string& command, const std::string& out_dir, const std::string& scratch)
{
  auto r = test::run_command("(" + shell_line(command, out_dir) + " > " + scratch + "/stdout 2> " + scratch + "/stderr)");
  return {with_out_named(test::read_text(scratch + "/stdout"), out_dir),
          with_out_named(test::read_text(scratch + "/stderr"), out_dir), r.status};
}

class CliGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(CliGolden, GivesItsRecordedOutput)
{
  std::string path = cases_dir() + "/" + GetParam() + ".t";
  Case c = parse_case(path);
  ASSERT_FALSE(c.steps.empty()) << path << ": no `$ ` command";
  test::TempDir out, scratch;
  bool update = std::getenv("PERFCAST_GOLDEN_UPDATE") != nullptr;
  for (auto& step : c.steps) {
    Ran r = run_step(step.command, out.path(), scratch.path());
    if (update) {
      step.out = lines_of(r.out);
      step.err = lines_of(r.err);
      step.status = r.status;
      continue;
    }
    std::string expected = joined(step.out, '>') + joined(step.err, '!') + "? " + std::to_string(step.status) + "\n";
    std::string got = joined(lines_of(r.out), '>') + joined(lines_of(r.err), '!') + "? " + std::to_string(r.status) + "\n";
    if (expected != got) {
      ADD_FAILURE() << path << "\n$ " << step.command << "\n" << unified_diff(expected, got, scratch.path());
      return; // later steps may read what this one should have written
    }
  }
  if (update) {
    std::string text;
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      for (const auto& n : c.notes[i])
        text += n + "\n";
      const Step& s = c.steps[i];
      text += "$ " + s.command + "\n" + joined(s.out, '>') + joined(s.err, '!');
      if (s.status != 0)
        text += "? " + std::to_string(s.status) + "\n";
    }
    for (const auto& n : c.notes.back())
      text += n + "\n";
    std::ofstream(path + ".new") << text;
    fs::rename(path + ".new", path);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CliGolden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
                           return name;
                         });

} // namespace
} // namespace perfcast

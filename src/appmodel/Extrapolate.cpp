#include "appmodel/Extrapolate.hpp"

#include "appmodel/LoopFold.hpp"
#include "core/AtomicFile.hpp"
#include "core/Error.hpp"
#include "core/Interrupt.hpp"
#include "core/OutputFile.hpp"
#include "trace/ActionGrammar.hpp"
#include "trace/TraceWriter.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <regex>

namespace perfcast {

ExtrapolationPlan::ExtrapolationPlan(const AppModel& model, int procs, double deviation)
    : model_(model), procs_(procs), deviation_(deviation)
{
  int largest = *std::max_element(model.training_procs.begin(), model.training_procs.end());
  bool trained = std::find(model.training_procs.begin(), model.training_procs.end(), procs) !=
                 model.training_procs.end();
  if (procs < 1 || procs > kMaxRanks)
    throw Error(fmt::format("--procs {}: expected a process count from 1 to {}", procs, kMaxRanks));
  if (procs < largest && !trained)
    throw Error(fmt::format("--procs {} is below the model's largest training count ({}): the model extrapolates "
                            "beyond its training runs; at {} processes trace the program there",
                            procs, largest, procs));
  grid_ = model.grid.at(procs);
  if (grid_.procs() != procs)
    throw Error(fmt::format("the model's grid ({}) has no grid of {} processes", model.grid.describe(), procs));
  body_ = plan(model.body);
}

std::vector<ExtrapolationPlan::Node> ExtrapolationPlan::plan(const std::vector<ModelNode>& nodes)
{
  std::vector<Node> out;
  for (const ModelNode& m : nodes) {
    Node p;
    p.node = &m;
    double area = 1;
    if (m.has_partner && m.partner.kind == RankRef::Kind::Offset)
      area = offset_area(m.partner.offset, grid_);
    auto eval = [&](const Law& law, const char* what) {
      if (law.clamped(procs_, area)) {
        Action a;
        a.type = m.type;
        a.nonblocking = m.nonblocking;
        clamped_.push_back(fmt::format("{}: {} {}", m.origin, m.loop ? std::string("loop") : action_keyword(a), what));
      }
      double v = law.at(procs_, area) * std::max(0.0, 1 + deviation_ * law.error);
      return law.integer ? std::round(v) : v;
    };
    if (m.loop) {
      p.iterations = m.dimensions != 0 ? static_cast<std::uint64_t>(hypercube_dimensions(procs_))
                                       : static_cast<std::uint64_t>(eval(m.iterations, "iterations"));
      p.body = plan(m.body);
    } else {
      auto numbers = [&](const Law& value, const Law& bytes_law, const Law& recv, const Law& peer) {
        Node::Numbers x;
        auto bytes = [&](const Law& law, const char* what) {
          return std::min(eval(law, what), static_cast<double>(kMaxMessageBytes));
        };
        if (has_value(m.type))
          x.value = std::min(eval(value, "flops"), kMaxActionValue);
        if (has_bytes(m.type))
          x.bytes = bytes(bytes_law, "bytes");
        if (has_recv_bytes(m.type))
          x.recv_bytes = bytes(recv, "received bytes");
        if (has_peer_counts(m.type))
          x.peer_bytes = std::min(bytes(peer, "bytes per peer"),
                                  static_cast<double>(kMaxMessageBytes) / std::max(1, procs_));
        return x;
      };
      p.numbers = numbers(m.value, m.bytes, m.recv_bytes, m.peer_bytes);
      if (m.one_rank) {
        p.one_numbers = numbers(m.one_rank->value, m.one_rank->bytes, m.one_rank->recv_bytes, m.one_rank->peer_bytes);
        p.one_rank = resolve_rank(m.one_rank->rank, 0, procs_, grid_);
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

RankGenerator::RankGenerator(const ExtrapolationPlan& plan, int rank)
    : plan_(plan), rank_(rank), name_(fmt::format("extrapolated rank {} of {}", rank, plan.procs()))
{
  stack_.push_back({&plan.body(), 0, 1, 0, 1});
}

bool RankGenerator::next(Action& out)
{
  const int n = plan_.procs();
  const ProcessGrid& grid = plan_.grid();
  while (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.index == f.nodes->size()) {
      if (--f.remaining > 0) {
        f.index = 0;
        continue;
      }
      stack_.pop_back();
      continue;
    }
    std::size_t at = f.index++;
    const ExtrapolationPlan::Node& p = (*f.nodes)[at];
    const ModelNode& m = *p.node;
    // a slot guarded as its neighbour action is done where that action is
    const ModelNode& g = m.guard.as == Guard::Sibling::Next       ? *(*f.nodes)[at + 1].node
                         : m.guard.as == Guard::Sibling::Previous ? *(*f.nodes)[at - 1].node
                                                                  : m;
    const int k = f.dimension();
    if (!guard_admits(g.guard, g, rank_, n, grid, k))
      continue;
    if (m.loop) {
      if (p.iterations > 0 && !p.body.empty())
        stack_.push_back({&p.body, 0, p.iterations, m.dimensions, p.iterations});
      continue;
    }
    const ExtrapolationPlan::Node::Numbers& x = rank_ == p.one_rank ? p.one_numbers : p.numbers;
    if (m.type == ActionType::Compute && !(x.value >= 1))
      continue; // an empty slot
    Action a;
    a.type = m.type;
    a.nonblocking = m.nonblocking;
    a.rank = rank_;
    a.tag = m.tag;
    a.comm = m.comm;
    a.line = ++line_;
    if (m.has_partner) {
      a.partner = resolve_rank(m.partner, rank_, n, grid, k);
      if (a.partner == kOffGrid)
        continue; // its partner lies beyond an edge of the grid at this count
    }
    if (m.has_partner2) {
      a.partner2 = resolve_rank(m.partner2, rank_, n, grid, k);
      if (a.partner2 == kOffGrid)
        continue;
    }
    a.value = x.value;
    a.bytes = static_cast<std::uint64_t>(x.bytes);
    a.recv_bytes = static_cast<std::uint64_t>(x.recv_bytes);
    if (has_peer_counts(m.type)) {
      auto peer = static_cast<std::uint64_t>(x.peer_bytes);
      std::vector<std::uint64_t> counts(static_cast<std::size_t>(n), peer);
      switch (m.type) {
      case ActionType::Scatterv: a.send_counts = counts; break;
      case ActionType::Alltoallv:
        a.send_counts = counts;
        a.recv_counts = counts;
        break;
      default: a.recv_counts = counts; break;
      }
    }
    if (m.waits_all_pending)
      a.bytes = pending_;
    pending_ = pending_after(a, pending_);
    out = std::move(a);
    return true;
  }
  return false;
}

nlohmann::json ExtrapolationSummary::to_json() const
{
  return nlohmann::json{{"procs", procs},     {"grid", grid},   {"directory", directory}, {"index", index},
                        {"actions", actions}, {"notes", notes}, {"clamped", clamped}};
}

std::string ExtrapolationSummary::text() const
{
  std::string s = fmt::format("wrote the trace at {} processes (grid {}): {} actions, {}\n", procs, grid, actions,
                              index);
  return s;
}

std::vector<std::string> ExtrapolationSummary::warnings() const
{
  std::vector<std::string> out = notes;
  for (const std::string& c : clamped)
    out.push_back(c + " fell below zero at this count and is held at zero");
  return out;
}

ExtrapolationSummary write_extrapolated_trace(const ExtrapolationPlan& plan, const std::string& dir, bool force)
{
  static const std::regex ours(R"(index\.txt|rank-[0-9]+\.txt)");
  OutputDirectory out(dir, "trace", force, [](const std::filesystem::directory_entry& e) {
    return std::regex_match(e.path().filename().string(), ours);
  });
  ExtrapolationSummary summary;
  summary.procs = plan.procs();
  summary.grid = plan.grid().describe();
  summary.directory = dir;
  summary.index = dir + "/index.txt";
  summary.notes = plan.model().notes;
  summary.clamped = plan.clamped();
  std::string index;
  std::string text;
  for (int r = 0; r < plan.procs(); ++r) {
    throw_if_interrupted();
    RankGenerator gen(plan, r);
    text.clear();
    Action a;
    while (gen.next(a)) {
      text += format_action(a);
      text += '\n';
      ++summary.actions;
    }
    std::string name = fmt::format("rank-{}.txt", r);
    write_file_atomically(dir + "/" + name, text);
    index += name + "\n";
  }
  write_file_atomically(summary.index, index);
  // an earlier trace's ranks beyond this count would be read as part of it by nothing, but mislead a reader
  for (const std::filesystem::path& p : out.earlier_files()) {
    std::string name = p.filename().string();
    std::smatch m;
    static const std::regex rank_file(R"(rank-([0-9]+)\.txt)");
    if (std::regex_match(name, m, rank_file) && (m[1].length() > 8 || std::stoll(m[1].str()) >= plan.procs())) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
  }
  out.keep();
  return summary;
}

} // namespace perfcast

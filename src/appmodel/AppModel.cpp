#include "appmodel/AppModel.hpp"

#include "core/Error.hpp"
#include "core/Version.hpp"
#include "trace/ActionKeywords.hpp"

#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace perfcast {

namespace {

constexpr const char* kFormat = "perfcast-app-model";
constexpr int kVersion = 1;

std::string signed_offset(const std::vector<int>& o)
{
  std::string s = "(";
  for (std::size_t i = 0; i < o.size(); ++i)
    s += (i ? "," : "") + (o[i] > 0 ? fmt::format("+{}", o[i]) : std::to_string(o[i]));
  return s + ")";
}

nlohmann::json ref_to_json(const RankRef& r)
{
  switch (r.kind) {
  case RankRef::Kind::Self: return "self";
  case RankRef::Kind::AnySource: return "any";
  case RankRef::Kind::LastSource: return "last-source";
  case RankRef::Kind::Offset: return nlohmann::json{{"offset", r.offset}};
  case RankRef::Kind::Fixed: return nlohmann::json{{"rank", r.value}};
  case RankRef::Kind::FromLast: return nlohmann::json{{"from_last", r.value}};
  case RankRef::Kind::Flip: return "flip";
  }
  return "self";
}

RankRef ref_from_json(const nlohmann::json& j, const std::string& where)
{
  RankRef r;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s == "self")
      r.kind = RankRef::Kind::Self;
    else if (s == "any")
      r.kind = RankRef::Kind::AnySource;
    else if (s == "last-source")
      r.kind = RankRef::Kind::LastSource;
    else if (s == "flip")
      r.kind = RankRef::Kind::Flip;
    else
      throw Error(fmt::format("{}: rank reference '{}' (expected \"self\", \"any\", \"last-source\", \"flip\", "
                              "{{\"offset\": [...]}}, {{\"rank\": K}} or {{\"from_last\": K}})",
                              where, s));
    return r;
  }
  if (j.is_object() && j.size() == 1) {
    if (j.contains("offset")) {
      r.kind = RankRef::Kind::Offset;
      r.offset = j.at("offset").get<std::vector<int>>();
      return r;
    }
    if (j.contains("rank")) {
      r.kind = RankRef::Kind::Fixed;
      r.value = j.at("rank").get<int>();
      return r;
    }
    if (j.contains("from_last")) {
      r.kind = RankRef::Kind::FromLast;
      r.value = j.at("from_last").get<int>();
      return r;
    }
  }
  throw Error(fmt::format("{}: expected a rank reference (\"self\", {{\"offset\": [...]}}, {{\"rank\": K}}, "
                          "{{\"from_last\": K}}, \"any\" or \"last-source\")",
                          where));
}

const char* bits_name(Guard::Bits b)
{
  switch (b) {
  case Guard::Bits::LowZero: return "low-zero";
  case Guard::Bits::LowestIsK: return "lowest-is-k";
  case Guard::Bits::BitZero: return "bit-zero";
  case Guard::Bits::BitOne: return "bit-one";
  case Guard::Bits::Any: break;
  }
  return "any";
}

nlohmann::json guard_to_json(const Guard& g)
{
  nlohmann::json j = nlohmann::json::object();
  if (g.neighbours)
    j["neighbours"] = true;
  if (g.min_procs > 0)
    j["min_procs"] = g.min_procs;
  if (g.rank_rule != Guard::RankRule::Any)
    j[g.rank_rule == Guard::RankRule::Only ? "only" : "except"] = ref_to_json(g.rank);
  if (g.as != Guard::Sibling::None)
    j["as"] = g.as == Guard::Sibling::Next ? "next" : "previous";
  if (g.min_neighbours > 0) {
    j["min_neighbours"] = g.min_neighbours;
    j["of_offsets"] = g.offsets;
  }
  if (g.bits != Guard::Bits::Any)
    j["bits"] = bits_name(g.bits);
  return j;
}

Guard guard_from_json(const nlohmann::json& j, const std::string& where)
{
  Guard g;
  if (!j.is_object())
    throw Error(fmt::format("{}: a guard is an object", where));
  for (const auto& [key, value] : j.items()) {
    if (key == "neighbours")
      g.neighbours = value.get<bool>();
    else if (key == "min_procs")
      g.min_procs = value.get<int>();
    else if (key == "only" || key == "except") {
      g.rank_rule = key == "only" ? Guard::RankRule::Only : Guard::RankRule::Except;
      g.rank = ref_from_json(value, where);
    } else if (key == "min_neighbours") {
      g.min_neighbours = value.get<int>();
    } else if (key == "of_offsets") {
      g.offsets = value.get<std::vector<std::vector<int>>>();
    } else if (key == "bits") {
      std::string v = value.get<std::string>();
      bool known = false;
      for (Guard::Bits b : {Guard::Bits::LowZero, Guard::Bits::LowestIsK, Guard::Bits::BitZero, Guard::Bits::BitOne})
        if (v == bits_name(b)) {
          g.bits = b;
          known = true;
        }
      if (!known)
        throw Error(fmt::format("{}: guard \"bits\" is '{}' (expected low-zero, lowest-is-k, bit-zero or bit-one)",
                                where, v));
    } else if (key == "as") {
      std::string v = value.get<std::string>();
      if (v != "next" && v != "previous")
        throw Error(fmt::format("{}: guard \"as\" is '{}' (expected \"next\" or \"previous\")", where, v));
      g.as = v == "next" ? Guard::Sibling::Next : Guard::Sibling::Previous;
    } else
      throw Error(fmt::format("{}: unknown guard field '{}' (expected neighbours, min_procs, only, except, as, min_neighbours, of_offsets, bits)", where,
                              key));
  }
  return g;
}

nlohmann::json nodes_to_json(const std::vector<ModelNode>& nodes);

nlohmann::json node_to_json(const ModelNode& n)
{
  nlohmann::json j;
  if (!n.guard.always())
    j["guard"] = guard_to_json(n.guard);
  if (n.loop && n.dimensions != 0) {
    j["dimensions_loop"] = nlohmann::json{{"order", n.dimensions > 0 ? "ascending" : "descending"},
                                          {"body", nodes_to_json(n.body)}};
    return j;
  }
  if (n.loop) {
    j["loop"] = nlohmann::json{{"iterations", n.iterations}, {"body", nodes_to_json(n.body)}};
    return j;
  }
  Action a;
  a.type = n.type;
  a.nonblocking = n.nonblocking;
  j["action"] = action_keyword(a);
  if (n.tag != 0)
    j["tag"] = n.tag;
  if (n.comm != 0)
    j["comm"] = n.comm;
  if (n.has_partner)
    j["partner"] = ref_to_json(n.partner);
  if (n.has_partner2)
    j["partner2"] = ref_to_json(n.partner2);
  if (has_value(n.type))
    j["value"] = n.value;
  if (has_bytes(n.type))
    j["bytes"] = n.bytes;
  if (has_recv_bytes(n.type))
    j["recv_bytes"] = n.recv_bytes;
  if (has_peer_counts(n.type))
    j["peer_bytes"] = n.peer_bytes;
  if (n.waits_all_pending)
    j["waits_all_pending"] = true;
  if (n.one_rank) {
    nlohmann::json o{{"rank", ref_to_json(n.one_rank->rank)}};
    if (has_value(n.type))
      o["value"] = n.one_rank->value;
    if (has_bytes(n.type))
      o["bytes"] = n.one_rank->bytes;
    if (has_recv_bytes(n.type))
      o["recv_bytes"] = n.one_rank->recv_bytes;
    if (has_peer_counts(n.type))
      o["peer_bytes"] = n.one_rank->peer_bytes;
    j["one_rank"] = o;
  }
  if (!n.origin.empty())
    j["origin"] = n.origin;
  return j;
}

nlohmann::json nodes_to_json(const std::vector<ModelNode>& nodes)
{
  nlohmann::json a = nlohmann::json::array();
  for (const ModelNode& n : nodes)
    a.push_back(node_to_json(n));
  return a;
}

std::vector<ModelNode> nodes_from_json(const nlohmann::json& j, const std::string& where);

ModelNode node_from_json(const nlohmann::json& j, const std::string& where)
{
  if (!j.is_object())
    throw Error(fmt::format("{}: expected an action or a loop (an object)", where));
  ModelNode n;
  if (j.contains("guard"))
    n.guard = guard_from_json(j.at("guard"), where);
  if (j.contains("dimensions_loop")) {
    const auto& l = j.at("dimensions_loop");
    n.loop = true;
    std::string order = l.at("order").get<std::string>();
    if (order != "ascending" && order != "descending")
      throw Error(fmt::format("{}: dimensions_loop order '{}' (expected ascending or descending)", where, order));
    n.dimensions = order == "ascending" ? 1 : -1;
    n.body = nodes_from_json(l.at("body"), where);
    return n;
  }
  if (j.contains("loop")) {
    const auto& l = j.at("loop");
    n.loop = true;
    n.iterations = law_from_json(l.at("iterations"), where + " iterations");
    n.body = nodes_from_json(l.at("body"), where);
    return n;
  }
  if (!j.contains("action"))
    throw Error(fmt::format("{}: a node has \"action\" or \"loop\"", where));
  std::string word = j.at("action").get<std::string>();
  const Keyword* k = find_keyword(word);
  if (!k)
    throw Error(fmt::format("{}: unknown action '{}' (expected one of {})", where, word, expected_keywords()));
  n.type = k->type;
  n.nonblocking = k->nonblocking;
  std::string at = fmt::format("{} ('{}')", where, word);
  n.tag = j.value("tag", 0);
  n.comm = j.value("comm", 0);
  if (j.contains("partner")) {
    n.has_partner = true;
    n.partner = ref_from_json(j.at("partner"), at);
  }
  if (j.contains("partner2")) {
    n.has_partner2 = true;
    n.partner2 = ref_from_json(j.at("partner2"), at);
  }
  if (has_rank_partner(n.type) != n.has_partner || has_rank_partner2(n.type) != n.has_partner2)
    throw Error(fmt::format("{}: its partners do not fit the action (expected {}partner{})", at,
                            has_rank_partner(n.type) ? "" : "no ", has_rank_partner2(n.type) ? " and partner2" : ""));
  auto law = [&](const char* key, Law& out, bool needed) {
    if (j.contains(key))
      out = law_from_json(j.at(key), at + " " + key);
    else if (needed)
      throw Error(fmt::format("{}: missing \"{}\"", at, key));
  };
  law("value", n.value, has_value(n.type));
  law("bytes", n.bytes, has_bytes(n.type));
  law("recv_bytes", n.recv_bytes, has_recv_bytes(n.type));
  law("peer_bytes", n.peer_bytes, has_peer_counts(n.type));
  n.waits_all_pending = j.value("waits_all_pending", false);
  if (j.contains("one_rank")) {
    const auto& o = j.at("one_rank");
    RankLaws r;
    r.rank = ref_from_json(o.at("rank"), at + " one_rank");
    if (r.rank.kind != RankRef::Kind::Fixed && r.rank.kind != RankRef::Kind::FromLast)
      throw Error(fmt::format("{}: one_rank's rank is {{\"rank\": K}} or {{\"from_last\": K}}", at));
    auto one = [&](const char* key, Law& out, bool needed) {
      if (o.contains(key))
        out = law_from_json(o.at(key), at + " one_rank " + key);
      else if (needed)
        throw Error(fmt::format("{}: one_rank misses \"{}\"", at, key));
    };
    one("value", r.value, has_value(n.type));
    one("bytes", r.bytes, has_bytes(n.type));
    one("recv_bytes", r.recv_bytes, has_recv_bytes(n.type));
    one("peer_bytes", r.peer_bytes, has_peer_counts(n.type));
    n.one_rank = r;
  }
  n.origin = j.value("origin", std::string());
  return n;
}

std::vector<ModelNode> nodes_from_json(const nlohmann::json& j, const std::string& where)
{
  if (!j.is_array())
    throw Error(fmt::format("{}: a body is an array of actions and loops", where));
  std::vector<ModelNode> out;
  for (std::size_t i = 0; i < j.size(); ++i)
    out.push_back(node_from_json(j[i], fmt::format("{} node {}", where, i + 1)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    Guard::Sibling as = out[i].guard.as;
    bool ok = as == Guard::Sibling::None ||
              (!out[i].loop && out[i].type == ActionType::Compute &&
               (as == Guard::Sibling::Next ? i + 1 < out.size() && out[i + 1].guard.as == Guard::Sibling::None
                                           : i > 0 && out[i - 1].guard.as == Guard::Sibling::None));
    if (!ok)
      throw Error(fmt::format("{} node {}: a guard \"as\" a sibling belongs to a compute beside an action with a "
                              "guard of its own",
                              where, i + 1));
  }
  return out;
}

void describe_nodes(const std::vector<ModelNode>& nodes, int depth, std::string& out)
{
  std::string pad(static_cast<std::size_t>(2 * depth + 2), ' ');
  for (const ModelNode& n : nodes) {
    std::string guard = n.guard.describe();
    std::string suffix = guard.empty() ? "" : "   [" + guard + "]";
    if (n.loop && n.dimensions != 0) {
      out += fmt::format("{}loop over the hypercube's dimensions, k = {}{}\n", pad,
                         n.dimensions > 0 ? "0 .. ceil(log2 n) - 1" : "ceil(log2 n) - 1 .. 0", suffix);
      describe_nodes(n.body, depth + 1, out);
      continue;
    }
    if (n.loop) {
      out += fmt::format("{}loop x {}{}\n", pad, n.iterations.describe(), suffix);
      describe_nodes(n.body, depth + 1, out);
      continue;
    }
    if (n.type == ActionType::Compute && n.value.points.size() > 0 && n.value.curve.form == CurveForm::Constant &&
        n.value.curve.a == 0 && !n.one_rank)
      continue; // an empty slot
    Action a;
    a.type = n.type;
    a.nonblocking = n.nonblocking;
    std::string line = pad + action_keyword(a);
    if (n.has_partner)
      line += " " + n.partner.describe();
    if (n.has_partner2)
      line += " " + n.partner2.describe();
    if (n.tag != 0)
      line += fmt::format(" tag {}", n.tag);
    if (n.comm != 0)
      line += fmt::format(" comm {}", n.comm);
    bool no_work = n.value.curve.form == CurveForm::Constant && n.value.curve.a == 0;
    if (has_value(n.type) && (n.type == ActionType::Compute || !no_work))
      line += (n.type == ActionType::Compute ? " " : " flops ") + n.value.describe();
    if (n.one_rank && has_value(n.type))
      line += " (" + n.one_rank->rank.describe() + ": " + n.one_rank->value.describe() + ")";
    if (has_bytes(n.type) && !n.waits_all_pending)
      line += (n.type == ActionType::Waitall || n.type == ActionType::Testall ? " requests " : " bytes ") +
              n.bytes.describe();
    if (has_recv_bytes(n.type))
      line += " received " + n.recv_bytes.describe();
    if (has_peer_counts(n.type))
      line += " per peer " + n.peer_bytes.describe();
    out += line + suffix + "\n";
  }
}

} // namespace

std::string RankRef::describe() const
{
  switch (kind) {
  case Kind::Self: return "self";
  case Kind::Offset: return signed_offset(offset);
  case Kind::Fixed: return fmt::format("rank {}", value);
  case Kind::FromLast: return value == 0 ? "rank n-1" : fmt::format("rank n-{}", value + 1);
  case Kind::AnySource: return "any source";
  case Kind::LastSource: return "last source";
  case Kind::Flip: return "rank ^ 2^k";
  }
  return "";
}

std::string Guard::describe() const
{
  std::vector<std::string> parts;
  if (neighbours)
    parts.push_back("where its partners exist");
  if (rank_rule != RankRule::Any)
    parts.push_back((rank_rule == RankRule::Only ? "only on " : "not on ") + rank.describe());
  if (min_procs > 0)
    parts.push_back(fmt::format("from {} processes", min_procs));
  if (as != Sibling::None)
    parts.push_back(as == Sibling::Next ? "where the next action is done" : "where the action before is done");
  if (min_neighbours > 0)
    parts.push_back(fmt::format("on ranks with {} or more of its {} neighbours", min_neighbours, offsets.size()));
  switch (bits) {
  case Bits::LowZero: parts.push_back("ranks whose k + 1 lowest bits are 0"); break;
  case Bits::LowestIsK: parts.push_back("ranks whose lowest set bit is bit k"); break;
  case Bits::BitZero: parts.push_back("ranks whose bit k is 0"); break;
  case Bits::BitOne: parts.push_back("ranks whose bit k is 1"); break;
  case Bits::Any: break;
  }
  std::string s;
  for (const auto& p : parts)
    s += (s.empty() ? "" : ", ") + p;
  return s;
}

bool has_value(ActionType t)
{
  switch (t) {
  case ActionType::Compute:
  case ActionType::Sleep:
  case ActionType::Reduce:
  case ActionType::Allreduce:
  case ActionType::Scan:
  case ActionType::Exscan:
  case ActionType::ReduceScatter: return true;
  default: return false;
  }
}

bool has_bytes(ActionType t)
{
  if (is_point_to_point(t))
    return true;
  switch (t) {
  case ActionType::Bcast:
  case ActionType::Reduce:
  case ActionType::Allreduce:
  case ActionType::Scan:
  case ActionType::Exscan:
  case ActionType::Alltoall:
  case ActionType::Allgather:
  case ActionType::Gather:
  case ActionType::Scatter:
  case ActionType::Gatherv:
  case ActionType::Allgatherv:
  case ActionType::Migrate:
  case ActionType::Waitall:
  case ActionType::Testall:
  case ActionType::Waitany:
  case ActionType::Waitsome: return true;
  default: return false;
  }
}

bool has_recv_bytes(ActionType t)
{
  switch (t) {
  case ActionType::SendRecv:
  case ActionType::Alltoall:
  case ActionType::Allgather:
  case ActionType::Gather:
  case ActionType::Scatter:
  case ActionType::Scatterv: return true;
  default: return false;
  }
}

bool has_peer_counts(ActionType t)
{
  switch (t) {
  case ActionType::Gatherv:
  case ActionType::Allgatherv:
  case ActionType::Scatterv:
  case ActionType::Alltoallv:
  case ActionType::ReduceScatter: return true;
  default: return false;
  }
}

bool has_rank_partner(ActionType t)
{
  if (is_point_to_point(t))
    return true;
  switch (t) {
  case ActionType::Wait:
  case ActionType::Test:
  case ActionType::Cancel:
  case ActionType::Bcast:
  case ActionType::Reduce:
  case ActionType::Gather:
  case ActionType::Scatter:
  case ActionType::Gatherv:
  case ActionType::Scatterv: return true;
  default: return false;
  }
}

bool has_rank_partner2(ActionType t)
{
  switch (t) {
  case ActionType::Wait:
  case ActionType::Test:
  case ActionType::Cancel:
  case ActionType::SendRecv: return true;
  default: return false;
  }
}

int hypercube_dimensions(int procs)
{
  int d = 0;
  while (d < 31 && (1 << d) < procs)
    ++d;
  return d;
}

bool bits_admit(Guard::Bits bits, int rank, int k)
{
  if (k < 0 || k > 30)
    return bits == Guard::Bits::Any;
  unsigned r = static_cast<unsigned>(rank), low = (2u << k) - 1;
  switch (bits) {
  case Guard::Bits::Any: return true;
  case Guard::Bits::LowZero: return (r & low) == 0;
  case Guard::Bits::LowestIsK: return (r & low) == (1u << k);
  case Guard::Bits::BitZero: return ((r >> k) & 1u) == 0;
  case Guard::Bits::BitOne: return ((r >> k) & 1u) == 1;
  }
  return false;
}

int resolve_rank(const RankRef& ref, int rank, int procs, const ProcessGrid& grid, int dimension)
{
  switch (ref.kind) {
  case RankRef::Kind::Flip: {
    if (dimension < 0 || dimension > 30)
      return kOffGrid;
    int v = rank ^ (1 << dimension);
    return v < procs ? v : kOffGrid;
  }
  case RankRef::Kind::Self: return rank;
  case RankRef::Kind::AnySource: return kAnySource;
  case RankRef::Kind::LastSource: return kLastSource;
  case RankRef::Kind::Fixed: return ref.value < procs ? ref.value : kOffGrid;
  case RankRef::Kind::FromLast: return procs - 1 - ref.value >= 0 ? procs - 1 - ref.value : kOffGrid;
  case RankRef::Kind::Offset: break;
  }
  if (ref.offset.size() != grid.dims.size())
    return kOffGrid;
  int result = 0, stride = 1;
  int rest = rank;
  for (std::size_t i = 0; i < grid.dims.size(); ++i) {
    int side = grid.dims[i];
    int c = rest % side + ref.offset[i];
    rest /= side;
    bool wraps = i < grid.periodic.size() && grid.periodic[i];
    if (wraps)
      c = ((c % side) + side) % side;
    else if (c < 0 || c >= side)
      return kOffGrid;
    result += c * stride;
    stride *= side;
  }
  return result;
}

bool guard_admits(const Guard& g, const ModelNode& node, int rank, int procs, const ProcessGrid& grid, int dimension)
{
  if (g.min_procs > 0 && procs < g.min_procs)
    return false;
  if (g.bits != Guard::Bits::Any && !bits_admit(g.bits, rank, dimension))
    return false;
  if (g.min_neighbours > 0) {
    int k = 0;
    for (const auto& o : g.offsets)
      k += resolve_rank({RankRef::Kind::Offset, 0, o}, rank, procs, grid) != kOffGrid;
    if (k < g.min_neighbours)
      return false;
  }
  if (g.rank_rule != Guard::RankRule::Any) {
    bool is = resolve_rank(g.rank, 0, procs, grid) == rank;
    if (is != (g.rank_rule == Guard::RankRule::Only))
      return false;
  }
  if (g.neighbours) {
    if (node.has_partner && node.partner.kind == RankRef::Kind::Offset &&
        resolve_rank(node.partner, rank, procs, grid) == kOffGrid)
      return false;
    if (node.has_partner2 && node.partner2.kind == RankRef::Kind::Offset &&
        resolve_rank(node.partner2, rank, procs, grid) == kOffGrid)
      return false;
  }
  return true;
}

double offset_area(const std::vector<int>& offset, const ProcessGrid& grid)
{
  double a = 1;
  for (std::size_t i = 0; i < grid.dims.size() && i < offset.size(); ++i)
    if (offset[i] == 0)
      a /= grid.dims[i];
  return a;
}

nlohmann::json app_model_to_json(const AppModel& m)
{
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["generator"] = kPerfcastGenerator;
  nlohmann::json training = nlohmann::json::array();
  for (std::size_t i = 0; i < m.training_procs.size(); ++i)
    training.push_back({{"procs", m.training_procs[i]},
                        {"trace", i < m.training_traces.size() ? m.training_traces[i] : std::string()}});
  j["training"] = training;
  j["grid"] = m.grid;
  j["grid_given"] = m.grid_given;
  j["notes"] = m.notes;
  j["template"] = nodes_to_json(m.body);
  return j;
}

AppModel app_model_from_json(const nlohmann::json& j, const std::string& path)
{
  AppModel m;
  try {
    if (!j.is_object() || j.value("format", std::string()) != kFormat)
      throw Error(fmt::format("{}: not an application model (expected \"format\": \"{}\", as perfcast model build "
                              "writes)",
                              path, kFormat));
    if (j.value("version", 0) != kVersion)
      throw Error(fmt::format("{}: application model version {} (this perfcast reads version {})", path,
                              j.value("version", 0), kVersion));
    for (const auto& t : j.at("training")) {
      m.training_procs.push_back(t.at("procs").get<int>());
      m.training_traces.push_back(t.value("trace", std::string()));
    }
    m.grid = j.at("grid").get<GridRule>();
    m.grid_given = j.value("grid_given", false);
    m.notes = j.value("notes", std::vector<std::string>{});
    m.body = nodes_from_json(j.at("template"), path);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  if (m.training_procs.empty())
    throw Error(fmt::format("{}: the model names no training run", path));
  return m;
}

AppModel load_app_model(const std::string& path)
{
  std::ifstream in(path);
  if (!in)
    fail_in(path, "cannot open the application model");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    fail_in(path, fmt::format("not JSON: {}", e.what()));
  }
  return app_model_from_json(j, path);
}

std::string describe_app_model(const AppModel& m)
{
  std::string out;
  std::string counts;
  for (int n : m.training_procs)
    counts += (counts.empty() ? "" : ", ") + std::to_string(n);
  out += fmt::format("application model learned at {} processes\n", counts);
  out += fmt::format("process grid: {} ({})\n", m.grid.describe(), m.grid_given ? "given" : "detected from the partners");
  out += "every rank, at n processes (laws of n; A: the share of the cross-section a grid offset crosses):\n";
  describe_nodes(m.body, 0, out);
  for (const std::string& note : m.notes)
    out += "note: " + note + "\n";
  return out;
}

} // namespace perfcast

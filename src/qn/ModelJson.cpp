// Reading and writing queueing-model files (model_to_json, model_from_json).
#include "core/Error.hpp"
#include "core/Version.hpp"
#include "qn/QueueingModel.hpp"

#include <cmath>
#include <fmt/format.h>

namespace perfcast {

namespace {

nlohmann::json curve_json(const Curve& c) { return {{"form", curve_form_name(c.form)}, {"a", c.a}, {"b", c.b}}; }

Curve curve_from(const nlohmann::json& j, const std::string& where)
{
  Curve c;
  try {
    c.form = curve_form_from_name(j.at("form").get<std::string>());
  } catch (const Error& e) {
    fail_in(where, e.what());
  }
  c.a = j.at("a").get<double>();
  c.b = j.at("b").get<double>();
  return c;
}

// An older model file keeps a 2-D face exchange as "grid_exchange": its x faces (+-1, 0) with
// messages_x of bytes_x py^-exponent_x (the cut form, A = 1/py) and its y faces likewise, on MPI_Dims_create's
// 2-D grid with ranks r, r+1 along the shorter side when unit_stride_on_smaller
GridClasses grid_exchange_classes(const nlohmann::json& g)
{
  GridClasses t;
  t.rule.kind = "dims_create";
  t.rule.dimensions = 2;
  t.rule.transposed = g.at("unit_stride_on_smaller").get<bool>();
  for (int axis = 0; axis < 2; ++axis)
    for (int sign : {-1, 1}) {
      GridClass k;
      k.offset = axis == 0 ? std::vector<int>{sign, 0} : std::vector<int>{0, sign};
      const char* xy = axis == 0 ? "x" : "y";
      k.messages_per_pair = g.at(fmt::format("messages_{}", xy)).get<double>();
      k.bytes = g.at(fmt::format("bytes_{}", xy)).get<double>();
      k.exponent = g.at(fmt::format("exponent_{}", xy)).get<double>();
      t.classes.push_back(k);
    }
  return t;
}

} // namespace

nlohmann::json model_to_json(const QueueingModel& m, const AmdahlModel& a)
{
  nlohmann::json j = {{"format", "perfcast-model"},
          {"version", 1},
          {"model", "queueing-network"},
          {"paper", "Saad, El-Mahdy, El-Shishiny, RAPIDO 2019"},
          {"sends_per_process", curve_json(m.sends)},
          {"message_bytes", curve_json(m.message_bytes)},
          {"v_comp", m.v_comp},
          {"v_comm", m.v_comm},
          {"work_flops", m.work_flops},
          {"net_constant", m.net_constant},
          {"duplex_nic", m.duplex_nic},
          {"latency_delay", m.latency_delay},
          {"local_via_nic", m.local_via_nic},
          {"other_partners", m.other_partners},
          {"smpi_factors", m.smpi_factors},
          {"node_classes", m.node_classes},
          {"lockstep", m.lockstep},
          {"imbalance", m.imbalance},
          {"fit", {{"relative_residuals", m.residuals}, {"iterations", m.iterations}, {"message", m.fit_message},
                   {"curves_cross_validated", m.curves_cross_validated},
                   {"degrees_of_freedom", m.degrees_of_freedom},
                   {"relative_standard_errors", {{"work_flops", m.work_relative_se},
                                                 {"net_constant", m.net_constant_relative_se}}},
                   {"net_constant_identified", m.net_constant_identified},
                   {"cpu_scatter", m.cpu_scatter},
                   {"training_network_share", m.training_network_share},
                   {"net_constant_uncertainty", m.net_constant_uncertainty},
                   {"largest_training_procs", m.largest_training_procs},
                   {"work_growth_through_noise", m.work_growth_through_noise},
                   {"sends_through_noise", m.sends_through_noise},
                   {"warnings", m.warnings}}},
          {"reliability", {{"method", m.reliability.method}, {"queueing_error", m.reliability.queueing_error},
                           {"amdahl_error", m.reliability.amdahl_error}, {"trusted", m.reliability.trusted},
                           {"recommended_model", m.reliability.recommend_amdahl ? "amdahl" : "queueing-network"},
                           {"error_difference", m.reliability.error_difference},
                           {"error_difference_se", m.reliability.error_difference_se},
                           {"warning", m.reliability.warning},
                           {"next_count", {{"from", m.reliability.next_from}, {"to", m.reliability.next_to},
                                           {"queueing_error", m.reliability.next_queueing_error},
                                           {"amdahl_error", m.reliability.next_amdahl_error}}}}},
          {"generator", kPerfcastGenerator},
          {"provenance", m.provenance},
          {"amdahl", {{"serial_s", a.serial_s}, {"parallel_s", a.parallel_s}}}};
  // absent in files of older versions: m(n) from its own curve, uniform partners
  if (m.run_bytes)
    j["run_bytes"] = curve_json(*m.run_bytes);
  if (m.hot_receive)
    j["hot_receive_share"] = curve_json(*m.hot_receive);
  if (m.work_growth)
    j["work_growth"] = curve_json(*m.work_growth);
  if (m.hot_send)
    j["hot_send_share"] = curve_json(*m.hot_send);
  if (m.hot_send_messages)
    j["hot_send_message_share"] = curve_json(*m.hot_send_messages);
  if (m.grid)
    j["grid_classes"] = *m.grid;
  if (m.grid_wrapped)
    j["grid_classes_if_periodic"] = *m.grid_wrapped;
  if (m.halo)
    j["halo_exchange"] = *m.halo;
  if (m.collectives)
    j["collective_traffic"] = *m.collectives;
  if (m.self_traffic)
    j["self_traffic"] = *m.self_traffic;
  if (m.one_process_traffic)
    j["one_process_traffic"] = {{"messages", m.one_process_traffic->messages}, {"bytes", m.one_process_traffic->bytes}};
  if (!m.size_mix.empty()) {
    nlohmann::json mix = nlohmann::json::array();
    for (const SizeShare& c : m.size_mix)
      mix.push_back({{"relative_size", c.relative_size}, {"message_share", c.message_share}});
    j["size_mix"] = std::move(mix);
  }
  if (m.size_mix_of_rest)
    j["size_mix_of"] = "rest"; // the grid's classes and the collectives have their own sizes at n
  return j;
}

std::pair<QueueingModel, AmdahlModel> model_from_json(const std::string& text, const std::string& path)
{
  try {
    auto j = nlohmann::json::parse(text);
    if (j.value("format", "") != "perfcast-model" || j.value("model", "") != "queueing-network")
      fail_in(path, "expected a perfcast queueing-network model (\"format\": \"perfcast-model\")");
    QueueingModel m;
    m.sends = curve_from(j.at("sends_per_process"), path);
    m.message_bytes = curve_from(j.at("message_bytes"), path);
    if (j.contains("run_bytes"))
      m.run_bytes = curve_from(j.at("run_bytes"), path);
    if (j.contains("hot_receive_share"))
      m.hot_receive = curve_from(j.at("hot_receive_share"), path);
    if (j.contains("work_growth"))
      m.work_growth = curve_from(j.at("work_growth"), path);
    if (j.contains("hot_send_share"))
      m.hot_send = curve_from(j.at("hot_send_share"), path);
    if (j.contains("hot_send_message_share"))
      m.hot_send_messages = curve_from(j.at("hot_send_message_share"), path);
    if (j.contains("grid_classes"))
      m.grid = j.at("grid_classes").get<GridClasses>();
    else if (j.contains("grid_exchange"))
      m.grid = grid_exchange_classes(j.at("grid_exchange"));
    if (j.contains("grid_classes_if_periodic"))
      m.grid_wrapped = j.at("grid_classes_if_periodic").get<GridClasses>();
    if (j.contains("halo_exchange"))
      m.halo = j.at("halo_exchange").get<HaloExchange>();
    if (j.contains("collective_traffic")) {
      try {
        m.collectives = j.at("collective_traffic").get<CollectiveTraffic>();
      } catch (const Error& e) {
        fail_in(path, fmt::format("collective_traffic: {}", e.what()));
      }
    }
    if (j.contains("self_traffic")) {
      try {
        m.self_traffic = j.at("self_traffic").get<SelfTraffic>();
      } catch (const Error& e) {
        fail_in(path, fmt::format("self_traffic: {}", e.what()));
      }
    }
    if (j.contains("one_process_traffic")) {
      GridTraffic t;
      t.messages = t.self_messages = j.at("one_process_traffic").at("messages").get<double>();
      t.bytes = t.self_bytes = j.at("one_process_traffic").at("bytes").get<double>();
      if (!(t.messages >= 0) || !(t.bytes >= 0))
        fail_in(path, "one_process_traffic: expected messages and bytes at least 0");
      m.one_process_traffic = t;
    }
    if (j.contains("size_mix"))
      for (const auto& c : j.at("size_mix"))
        m.size_mix.push_back({c.at("relative_size").get<double>(), c.at("message_share").get<double>()});
    // older files keep the whole run's mix, grid or not
    m.size_mix_of_rest = j.value("size_mix_of", "run") == "rest";
    m.v_comp = j.at("v_comp").get<double>();
    m.v_comm = j.at("v_comm").get<double>();
    m.work_flops = j.at("work_flops").get<double>();
    m.net_constant = j.at("net_constant").get<double>();
    m.duplex_nic = j.value("duplex_nic", true);
    m.latency_delay = j.value("latency_delay", true);
    m.local_via_nic = j.value("local_via_nic", false);
    m.other_partners = j.value("other_partners", false);
    m.smpi_factors = j.value("smpi_factors", false);
    m.node_classes = j.value("node_classes", false); // files before it were fitted with one class
    m.lockstep = j.value("lockstep", false);         // absent in older files: a customer per process
    m.imbalance = j.value("imbalance", 1.0);
    if (!(m.imbalance >= 1) || !std::isfinite(m.imbalance))
      fail_in(path, "expected imbalance to be finite and at least 1");
    if (!(m.work_flops > 0) || !(m.net_constant > 0) || !std::isfinite(m.work_flops) || !std::isfinite(m.net_constant))
      fail_in(path, "expected positive finite work_flops and net_constant");
    if (j.contains("fit")) {
      const auto& fit = j.at("fit");
      m.degrees_of_freedom = fit.value("degrees_of_freedom", 0);
      if (fit.contains("relative_standard_errors")) {
        m.work_relative_se = fit.at("relative_standard_errors").value("work_flops", 0.0);
        m.net_constant_relative_se = fit.at("relative_standard_errors").value("net_constant", 0.0);
      }
      // absent in older files: Net_Constant fitted, its band its standard error alone
      m.net_constant_identified = fit.value("net_constant_identified", true);
      m.cpu_scatter = fit.value("cpu_scatter", -1.0);
      m.training_network_share = fit.value("training_network_share", -1.0);
      m.net_constant_uncertainty = fit.value("net_constant_uncertainty", -1.0);
      m.largest_training_procs = fit.value("largest_training_procs", 0);
      m.work_growth_through_noise = fit.value("work_growth_through_noise", false);
      m.sends_through_noise = fit.value("sends_through_noise", false);
      if (fit.contains("warnings"))
        m.warnings = fit.at("warnings").get<std::vector<std::string>>();
    }
    if (j.contains("reliability")) {
      const auto& rel = j.at("reliability");
      m.reliability.method = rel.value("method", "");
      m.reliability.queueing_error = rel.value("queueing_error", -1.0);
      m.reliability.amdahl_error = rel.value("amdahl_error", -1.0);
      m.reliability.trusted = rel.value("trusted", false);
      // files before the recommendation was kept: the better held-out error of an untrusted model
      m.reliability.recommend_amdahl =
          rel.contains("recommended_model")
              ? rel.at("recommended_model").get<std::string>() == "amdahl"
              : !m.reliability.trusted && m.reliability.amdahl_error >= 0 &&
                    m.reliability.amdahl_error < m.reliability.queueing_error;
      m.reliability.error_difference = rel.value("error_difference", 0.0);
      m.reliability.error_difference_se = rel.value("error_difference_se", -1.0);
      m.reliability.warning = rel.value("warning", "");
      if (rel.contains("next_count")) {
        const auto& next = rel.at("next_count");
        m.reliability.next_from = next.value("from", 0);
        m.reliability.next_to = next.value("to", 0);
        m.reliability.next_queueing_error = next.value("queueing_error", -1.0);
        m.reliability.next_amdahl_error = next.value("amdahl_error", -1.0);
      }
    }
    if (j.contains("provenance"))
      m.provenance = j.at("provenance");
    AmdahlModel a;
    a.serial_s = j.at("amdahl").at("serial_s").get<double>();
    a.parallel_s = j.at("amdahl").at("parallel_s").get<double>();
    return {m, a};
  } catch (const nlohmann::json::exception& e) {
    fail_in(path, fmt::format("not a valid model file: {}", e.what()));
  }
}

} // namespace perfcast

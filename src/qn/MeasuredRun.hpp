#pragma once
// A measured (or simulated) run of an application, as the queueing model and
// its baseline are fitted on: process count, placement, run time and the
// communication quantities the model needs.
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace perfcast {

/// Messages of one size class: sizes between min_bytes and max_bytes.
struct SizeClass {
  double min_bytes = 0, max_bytes = 0, messages = 0, bytes = 0;
};

/// Messages a rank sent to one partner (point-to-point calls of the code itself).
struct PartnerTraffic {
  int to = 0;
  double messages = 0, bytes = 0;
  /// the same by size class (as replays list them); empty when the run file does not give them
  std::vector<SizeClass> sizes;
};

/// Calls of one collective type on communicators of every rank, as `perfcast replay --json` lists them.
struct CollectiveRecord {
  std::string type;                ///< "allreduce" (a trace keyword; non-blocking calls under the blocking name)
  std::vector<double> calls;       ///< per rank
  std::vector<double> root_calls;  ///< per rank, the rooted calls it was the root of
  double payload_bytes = 0;        ///< over all ranks and calls: collective_payload_bytes summed
};

struct MeasuredRun {
  int procs = 0;
  std::map<std::string, int> placement; ///< host -> processes on it
  double time_s = 0;                    ///< wall time of the run
  double mpi_s = 0;                     ///< mean time per process inside MPI (waiting and transfers)
  double wait_s = -1;                   ///< the part of mpi_s spent waiting for a partner; -1 when unknown
  double sends_per_process = 0;         ///< s(n)
  double message_bytes = 0;             ///< m(n), mean bytes per message
  /// share of all bytes received that the busiest receiving rank got; -1 when unknown
  double hot_receive_share = -1;
  /// that rank's share of all bytes sent, and of all messages sent; -1 when unknown
  double hot_send_share = -1, hot_send_message_share = -1;
  /// each rank's bytes received, in rank order (replays list them); empty when unknown
  std::vector<double> rank_bytes_received;
  /// each rank's host and compute seconds, in rank order (replays list them); empty when unknown
  std::vector<std::pair<std::string, double>> rank_compute_s;
  /// network model that produced the run ("smpi": SimGrid's size-dependent factors); empty when measured
  std::string network;
  /// per rank, the partners of its point-to-point sends; empty when the run file does not list them
  std::vector<std::vector<PartnerTraffic>> partners;
  /// every message sent (collectives' schedules included) by size; empty when unknown
  std::vector<SizeClass> message_sizes;
  /// every collective type the run called (as replays list them); see collectives_listed
  std::vector<CollectiveRecord> collectives;
  bool collectives_listed = false; ///< the run file lists its collective calls (an empty list: none called)
  std::string source;                   ///< file (and line) it came from
};

/// Reads runs from a file: CSV with the header
///   procs,time_s,mpi_s,sends_per_process,message_bytes,placement
/// (placement as host:count;host:count), perfcast's runs JSON
///   {"format": "perfcast-runs", "version": 1, "runs": [{...same fields...}]}
/// or the output of `perfcast replay --json`; a directory written by
/// `perfcast trace` stands for its profile.json. Errors name file, line or field.
std::vector<MeasuredRun> load_runs(const std::string& path);

/// The run a `perfcast replay --json` document describes; errors name `source` and the field.
MeasuredRun run_from_replay_json(const nlohmann::json& doc, const std::string& source);

/// Renames placement hosts (a traced machine's name to a platform host's);
/// processes of hosts renamed to one name add up.
void rename_hosts(std::vector<MeasuredRun>& runs, const std::map<std::string, std::string>& renames);

/// Parses --host-map values: OLD=NEW, several per value separated by commas.
std::map<std::string, std::string> parse_host_map(const std::vector<std::string>& specs);

} // namespace perfcast

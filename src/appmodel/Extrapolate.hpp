#pragma once
// The application model instantiated at a process count: each rank's actions
// generated one after another from the template (loops unrolled as they are
// read, laws evaluated once per count), so a trace of any count streams in
// memory bounded by the template, and a whole trace directory is written rank
// by rank (DIR/index.txt and DIR/rank-R.txt, in SimGrid's syntax).
#include "appmodel/AppModel.hpp"
#include "trace/ActionStream.hpp"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace perfcast {

/// The model's numbers at one count: every node's laws evaluated there.
class ExtrapolationPlan {
public:
  /// Throws Error for a count the model cannot be taken to (below its largest training count and none of them).
  /// With `deviation` d, every law is taken at its value times (1 + d e), e its forward-validation error: -1 and +1
  /// are the ends of the band the laws' uncertainty spans.
  ExtrapolationPlan(const AppModel& model, int procs, double deviation = 0);
  int procs() const { return procs_; }
  const ProcessGrid& grid() const { return grid_; }
  const AppModel& model() const { return model_; }
  /// Laws that went below zero at this count and were held at zero ("isend (+1,0) bytes"), for a warning.
  const std::vector<std::string>& clamped() const { return clamped_; }

  struct Node {
    const ModelNode* node = nullptr;
    std::uint64_t iterations = 0;
    struct Numbers {
      double value = 0, bytes = 0, recv_bytes = 0, peer_bytes = 0;
    };
    Numbers numbers;     ///< every rank's
    Numbers one_numbers; ///< the node's one_rank's, when it has one
    int one_rank = -1;   ///< that rank at this count
    std::vector<Node> body;
  };
  const std::vector<Node>& body() const { return body_; }

private:
  std::vector<Node> plan(const std::vector<ModelNode>& nodes);
  const AppModel& model_;
  int procs_;
  double deviation_;
  ProcessGrid grid_;
  std::vector<Node> body_;
  std::vector<std::string> clamped_;
};

/// Yields one rank's actions at the plan's count, in order (and so can feed the replay without a file).
class RankGenerator : public ActionStream {
public:
  RankGenerator(const ExtrapolationPlan& plan, int rank);
  /// The next action; false at the rank's end.
  bool next(Action& out) override;
  /// "extrapolated rank R of N".
  const std::string& path() const override { return name_; }

private:
  struct Frame {
    const std::vector<ExtrapolationPlan::Node>* nodes;
    std::size_t index;
    std::uint64_t remaining;
    int dimensions = 0;        ///< a loop over the hypercube's dimensions: +1 ascending, -1 descending
    std::uint64_t total = 0;   ///< its iterations
    /// the dimension k of this iteration; -1 outside a hypercube loop
    int dimension() const
    {
      if (dimensions == 0)
        return -1;
      return static_cast<int>(dimensions > 0 ? total - remaining : remaining - 1);
    }
  };
  const ExtrapolationPlan& plan_;
  int rank_;
  std::vector<Frame> stack_;
  std::uint64_t pending_ = 0; // requests posted and not waited for (a waitall's count)
  std::uint32_t line_ = 0;
  std::string name_;
};

/// What `perfcast extrapolate` wrote.
struct ExtrapolationSummary {
  int procs = 0;
  std::string grid;      ///< "8x8"
  std::string directory;
  std::string index;     ///< DIR/index.txt
  std::uint64_t actions = 0;
  std::vector<std::string> notes;   ///< the model's
  std::vector<std::string> clamped; ///< laws held at zero at this count
  nlohmann::json to_json() const;
  /// One line of what was written.
  std::string text() const;
  /// A warning per note and clamped law, for stderr; without a "warning: " prefix.
  std::vector<std::string> warnings() const;
};

/// Writes the trace at the plan's count into `dir` (created; its parent must exist): index.txt and one file per
/// rank, each written whole under a temporary name; files of an earlier trace there that this one does not have
/// are removed. A directory made here is removed again if writing fails.
ExtrapolationSummary write_extrapolated_trace(const ExtrapolationPlan& plan, const std::string& dir, bool force);

} // namespace perfcast

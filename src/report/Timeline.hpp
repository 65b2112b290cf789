#pragma once
// A replay timeline binned on the fly, in memory that does not grow with the
// trace: each row keeps a fixed number of time bins holding the seconds spent
// in each activity. When simulated time passes the covered range, the bin
// width doubles and neighbouring bins merge in pairs. Bin widths are powers of
// two seconds, so fine and coarse bin edges coincide exactly. Ranks share rows
// when there are more ranks than rows.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace perfcast {

/// What a rank is doing during a stretch of its time.
enum class SpanKind : std::uint8_t { Compute, Communicate, Wait, Sleep };

/// Number of SpanKind values.
inline constexpr std::size_t kSpanKinds = 4;

/// Seconds spent in each activity, indexed by SpanKind.
using KindSeconds = std::array<double, kSpanKinds>;

/// Sizing of a Timeline.
struct TimelineOptions {
  std::size_t max_rows = 256;         ///< more ranks than this share rows
  std::size_t max_cells = 1u << 15;   ///< bound on rows times bins (each cell holds four doubles: 1 MiB)
  std::size_t max_bins = 1024;        ///< bins per row when rows are few
  std::size_t min_bins = 128;         ///< bins per row when rows are many
  double first_bin_width_s = 0x1p-30; ///< starting bin width (about 1 ns), a power of two
};

/// Per-row, per-bin seconds of each activity over a replay.
class Timeline {
public:
  /// An empty timeline that records nothing.
  Timeline() = default;
  /// A timeline for `ranks` ranks.
  explicit Timeline(std::size_t ranks, const TimelineOptions& options = {});

  /// Adds the interval [start_s, end_s) of `rank` spent in `kind`; empty or reversed intervals are ignored.
  void add(std::size_t rank, SpanKind kind, double start_s, double end_s);

  /// True when the timeline was built for at least one rank.
  bool enabled() const { return ranks_ > 0; }
  /// Number of ranks.
  std::size_t ranks() const { return ranks_; }
  /// Number of rows.
  std::size_t rows() const { return rows_; }
  /// Number of bins per row.
  std::size_t bins() const { return bins_; }
  /// Current bin width in seconds.
  double bin_width_s() const { return width_s_; }
  /// Row that holds `rank`.
  std::size_t row_of(std::size_t rank) const { return rank * rows_ / ranks_; }
  /// First rank of `row`.
  std::size_t first_rank(std::size_t row) const { return (row * ranks_ + rows_ - 1) / rows_; }
  /// Number of ranks that share `row`.
  std::size_t ranks_in_row(std::size_t row) const { return first_rank(row + 1) - first_rank(row); }
  /// Seconds of each activity in bin `bin` of `row` (summed over the row's ranks).
  const KindSeconds& cell(std::size_t row, std::size_t bin) const { return cells_[row * bins_ + bin]; }
  /// Seconds of each activity over the whole of `row`.
  KindSeconds row_total(std::size_t row) const;

private:
  void widen_to(double end_s);

  std::size_t ranks_ = 0, rows_ = 0, bins_ = 0;
  double width_s_ = 0, inverse_width_ = 0;
  std::vector<KindSeconds> cells_; // row-major: rows_ x bins_
};

} // namespace perfcast

#include "report/Timeline.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace perfcast {

Timeline::Timeline(std::size_t ranks, const TimelineOptions& options)
    : ranks_(ranks), rows_(std::min(ranks, std::max<std::size_t>(options.max_rows, 1))),
      width_s_(options.first_bin_width_s), inverse_width_(1.0 / options.first_bin_width_s)
{
  [[maybe_unused]] int exponent = 0;
  assert(options.first_bin_width_s > 0 && std::frexp(options.first_bin_width_s, &exponent) == 0.5);
  if (rows_ == 0)
    return;
  // an even bin count keeps pair merging exact
  bins_ = std::clamp(options.max_cells / rows_, options.min_bins, options.max_bins) & ~std::size_t{1};
  bins_ = std::max<std::size_t>(bins_, 2);
  cells_.assign(rows_ * bins_, KindSeconds{});
}

void Timeline::add(std::size_t rank, SpanKind kind, double start_s, double end_s)
{
  if (!(end_s > start_s) || !std::isfinite(end_s) || start_s < 0 || rank >= ranks_)
    return;
  if (end_s > width_s_ * static_cast<double>(bins_))
    widen_to(end_s);
  KindSeconds* row = &cells_[row_of(rank) * bins_];
  auto k = static_cast<std::size_t>(kind);
  // width_s_ is a power of two, so b * width_s_ is an exact bin edge
  auto b = static_cast<std::size_t>(start_s * inverse_width_);
  b = std::min(b, bins_ - 1);
  double lo = start_s;
  for (;; ++b) {
    double edge = static_cast<double>(b + 1) * width_s_;
    if (end_s <= edge || b + 1 == bins_) {
      row[b][k] += end_s - lo;
      return;
    }
    row[b][k] += edge - lo;
    lo = edge;
  }
}

void Timeline::widen_to(double end_s)
{
  while (end_s > width_s_ * static_cast<double>(bins_)) {
    std::size_t half = bins_ / 2;
    for (std::size_t r = 0; r < rows_; ++r) {
      KindSeconds* row = &cells_[r * bins_];
      for (std::size_t b = 0; b < half; ++b)
        for (std::size_t k = 0; k < kSpanKinds; ++k)
          row[b][k] = row[2 * b][k] + row[2 * b + 1][k];
      std::fill(row + half, row + bins_, KindSeconds{});
    }
    width_s_ *= 2;
    inverse_width_ *= 0.5;
  }
}

KindSeconds Timeline::row_total(std::size_t row) const
{
  KindSeconds sum{};
  for (std::size_t b = 0; b < bins_; ++b)
    for (std::size_t k = 0; k < kSpanKinds; ++k)
      sum[k] += cell(row, b)[k];
  return sum;
}

} // namespace perfcast

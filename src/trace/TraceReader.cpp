#include "trace/TraceReader.hpp"

#include "core/Error.hpp"
#include "trace/FilePool.hpp"
#include "trace/SharedTraceScanner.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace perfcast {

namespace {

// The read buffers of all ranks together stay within 32 MiB once there are
// more than 512 ranks; each holds between 512 bytes and 64 KiB.
constexpr std::size_t kReadBudget = std::size_t{32} << 20;
constexpr std::size_t kMinBuffer = 512;
constexpr std::size_t kMaxBuffer = std::size_t{64} << 10;

std::size_t buffer_size_for(int ranks)
{
  return std::clamp(kReadBudget / static_cast<std::size_t>(std::max(ranks, 1)), kMinBuffer, kMaxBuffer);
}

} // namespace

TraceSource::TraceSource(const TraceIndex& index)
    : world_(index.ranks()), buffer_size_(buffer_size_for(world_)), compute_scale_(index.compute_scale)
{
  if (index.shared_file) {
    shared_ = std::make_unique<SharedTraceScanner>(index.rank_files.at(0), world_, index.rank_ends);
    return;
  }
  files_ = std::make_unique<FilePool>();
  for (const std::string& path : index.rank_files)
    files_->add(path);
}

TraceSource::~TraceSource() = default;

std::unique_ptr<RankReader> TraceSource::open_rank(int rank) { return std::make_unique<RankReader>(*this, rank); }

std::size_t TraceSource::open_files() const { return files_ ? files_->open_count() : 1; }

RankReader::RankReader(std::string path, int rank, int world_size)
    : own_files_(std::make_unique<FilePool>(1)), files_(own_files_.get()), lines_(kMaxBuffer), rank_(rank),
      world_size_(world_size)
{
  file_id_ = files_->add(std::move(path));
}

RankReader::RankReader(TraceSource& source, int rank)
    : files_(source.files_.get()), file_id_(static_cast<std::size_t>(rank)), shared_(source.shared_.get()),
      lines_(source.buffer_size_), rank_(rank), world_size_(source.world_)
{
  if (static_cast<std::size_t>(rank) < source.compute_scale_.size())
    compute_scale_ = source.compute_scale_[static_cast<std::size_t>(rank)];
}

RankReader::~RankReader() = default;

const std::string& RankReader::path() const { return shared_ ? shared_->path() : files_->path(file_id_); }

void RankReader::fail(const std::string& what) const { fail_at(path(), line_, what); }

bool RankReader::next_line(std::string_view& line)
{
  if (done_)
    return false;
  if (shared_) {
    std::uint64_t number = 0;
    done_ = !shared_->next_line(rank_, line, number);
    line_ = done_ ? line_ : static_cast<std::size_t>(number);
    return !done_;
  }
  auto reader = [this](std::uint64_t at, char* data, std::size_t size) { return files_->read_at(file_id_, at, data, size); };
  if (!lines_.next(line, reader)) {
    done_ = true; // the rank is finished: free its buffer and its descriptor
    lines_.release();
    files_->close(file_id_);
    return false;
  }
  ++line_;
  return true;
}

bool RankReader::next(Action& out)
{
  std::string_view line;
  while (next_line(line)) {
    if (!parse_trace_line(line, world_size_, default_datatype_, out, error_))
      continue;
    if (!error_.empty())
      fail(error_);
    if (out.rank != rank_)
      fail(fmt::format("rank mismatch: line is for rank {} but this file holds rank {}", out.rank, rank_));
    out.line = static_cast<std::uint32_t>(line_);
    if (out.type == ActionType::Compute)
      out.value *= compute_scale_;
    return true;
  }
  return false;
}

} // namespace perfcast

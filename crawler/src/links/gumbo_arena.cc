// GumboArena: bump allocation in growing blocks; see gumbo_arena.h for why.
#include "links/gumbo_arena.h"

#include <algorithm>
#include <cstdint>

namespace crawler::links_internal {
namespace {

// malloc's guarantee, which Gumbo relies on for its structs.
constexpr size_t kAlignment = alignof(std::max_align_t);
constexpr size_t kMinBlock = size_t{64} << 10;
constexpr size_t kMaxBlock = size_t{16} << 20;

size_t RoundUp(size_t size) { return (size + kAlignment - 1) & ~(kAlignment - 1); }

}  // namespace

GumboArena::GumboArena(size_t first_block)
    : next_block_size_(std::clamp(RoundUp(first_block), kMinBlock, kMaxBlock)) {}

void GumboArena::AddBlock(size_t size) {
  blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
  reserved_ += size;
  next_ = blocks_.back().get();
  end_ = next_ + size;
}

void* GumboArena::AllocateAligned(size_t size) {
  size = RoundUp(std::max<size_t>(size, 1));
  if (static_cast<size_t>(end_ - next_) < size) {
    // A request bigger than a quarter block gets a block of its own, so one
    // big buffer does not waste the rest of the current block.
    if (size > next_block_size_ / 4) {
      blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
      reserved_ += size;
      return blocks_.back().get();  // next_ keeps bumping in the current block
    }
    AddBlock(next_block_size_);
    next_block_size_ = std::min(next_block_size_ * 2, kMaxBlock);
  }
  last_ = next_;
  next_ += size;
  return last_;
}

void* GumboArena::Allocate(void* arena, size_t size) {
  return static_cast<GumboArena*>(arena)->AllocateAligned(size);
}

void GumboArena::Deallocate(void* arena, void* pointer) {
  // Only the most recent allocation can be given back: Gumbo frees its
  // temporary token buffers right after use, often before allocating again.
  auto* self = static_cast<GumboArena*>(arena);
  if (pointer != nullptr && pointer == self->last_) {
    self->next_ = self->last_;
    self->last_ = nullptr;
  }
}

const GumboOutput* GumboArena::Parse(std::string_view utf8) {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &GumboArena::Allocate;
  options.deallocator = &GumboArena::Deallocate;
  options.userdata = this;
  // Errors are of no use to a link extractor; with max_errors = 0 Gumbo
  // stops before allocating a record for each (see the links bench).
  options.max_errors = 0;
  options.stop_on_first_error = false;
  return gumbo_parse_with_options(&options, utf8.data(), utf8.size());
}

}  // namespace crawler::links_internal

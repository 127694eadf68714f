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

// The strictest alignment an object of `size` bytes can need: sizeof is a
// multiple of alignof, so no type needs more than the largest power of two
// dividing its size (capped at malloc's). Gumbo makes about one allocation
// per 4 bytes of HTML, most of them strings of 1 to 15 bytes; padding each to
// 16 cost ~2.5 bytes of arena per byte of HTML (measured on a 3.9 MB page).
size_t AlignmentFor(size_t size) { return std::min(kAlignment, size & (~size + 1)); }

size_t PaddingAt(const std::byte* at, size_t alignment) {
  return (alignment - reinterpret_cast<uintptr_t>(at) % alignment) % alignment;
}

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
  size = std::max<size_t>(size, 1);
  const size_t alignment = AlignmentFor(size);
  if (static_cast<size_t>(end_ - next_) < PaddingAt(next_, alignment) + size) {
    // A request bigger than a quarter block gets a block of its own, so one
    // big buffer does not waste the rest of the current block.
    if (size > next_block_size_ / 4) {
      blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(size));
      reserved_ += size;
      used_ += size;
      return blocks_.back().get();  // next_ keeps bumping in the current block
    }
    AddBlock(next_block_size_);
    next_block_size_ = std::min(next_block_size_ * 2, kMaxBlock);
  }
  last_ = next_ + PaddingAt(next_, alignment);
  used_ += static_cast<size_t>(last_ - next_) + size;
  next_ = last_ + size;
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
    self->used_ -= static_cast<size_t>(self->next_ - self->last_);
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

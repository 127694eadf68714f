// GumboArena: the memory of one Gumbo parse, handed out by bumping a pointer
// and released all at once.
//
// Why: Gumbo mallocs every node, attribute, string and vector, and
// gumbo_destroy_output frees them one by one by recursing down the tree,
// which overflows the stack on pages nested ~100 000 deep (measured: a
// segfault at 1 MiB of stack with 100 000 nested <span>). With the arena the
// output is never destroyed: dropping the arena frees everything, with no
// recursion and no per-node free. Gumbo's own frees become no-ops except for
// the latest allocation, which is given back.
//
// Threading: one arena per parse, used by one thread.
#ifndef CRAWLER_SRC_LINKS_GUMBO_ARENA_H_
#define CRAWLER_SRC_LINKS_GUMBO_ARENA_H_

#include <gumbo.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace crawler::links_internal {

class GumboArena {
 public:
  // first_block: bytes of the first block; later blocks double, up to 16 MiB.
  explicit GumboArena(size_t first_block);
  GumboArena(const GumboArena&) = delete;
  GumboArena& operator=(const GumboArena&) = delete;

  // Parses `utf8` with Gumbo's tree in this arena. The output (and every
  // string in it) lives as long as the arena; never pass it to
  // gumbo_destroy_output.
  const GumboOutput* Parse(std::string_view utf8);

  // Bytes obtained from the system so far (blocks), for tests and benchmarks.
  size_t reserved_bytes() const { return reserved_; }
  // Bytes handed out so far, padding included: the part of the blocks that
  // was written to, so what a parse adds to resident memory.
  size_t used_bytes() const { return used_; }

 private:
  static void* Allocate(void* arena, size_t size);
  static void Deallocate(void* arena, void* pointer);
  void* AllocateAligned(size_t size);
  void AddBlock(size_t size);

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* next_ = nullptr;
  std::byte* end_ = nullptr;
  std::byte* last_ = nullptr;  // start of the latest allocation in the current block
  size_t next_block_size_;
  size_t reserved_ = 0;
  size_t used_ = 0;
};

}  // namespace crawler::links_internal

#endif  // CRAWLER_SRC_LINKS_GUMBO_ARENA_H_

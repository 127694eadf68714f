// The bytes of a checkpoint's files: MANIFEST (magic line, JSON, CRC line),
// frontier.json, counters.json and seeds.txt. Decoders return DataLoss
// naming the file for anything they cannot read.
#ifndef CRAWLER_STATE_CHECKPOINT_CODEC_H_
#define CRAWLER_STATE_CHECKPOINT_CODEC_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "crawler/crawl_state.h"
#include "crawler/frontier.h"
#include "crawler/output.h"

namespace crawler::state_internal {

inline constexpr std::string_view kManifestName = "MANIFEST";
inline constexpr std::string_view kOptionsName = "options.toml";
inline constexpr std::string_view kSeedsName = "seeds.txt";
inline constexpr std::string_view kFrontierName = "frontier.json";
inline constexpr std::string_view kCountersName = "counters.json";
inline constexpr std::string_view kCookiesName = "cookies.txt";       // version 3 on
inline constexpr std::string_view kTrapsName = kCrawlStateTrapsFile;  // version 4 on

struct FileCheck {
  uint64_t bytes = 0;
  uint32_t crc32 = 0;
};

struct Manifest {
  int version = 0;
  int64_t sequence = 0;
  int64_t log_bytes = 0;
  std::map<std::string, FileCheck> files;  // by name, in the checkpoint's folder
};

// A checkpoint already written: its folder, what its manifest lists and,
// when this process wrote it, the seed list its seeds.txt encodes (null
// otherwise).
struct PreviousCheckpoint {
  std::filesystem::path folder;
  Manifest manifest;
  SeedList seeds;
};

// "crawl-state <version>\n<json>\ncrc32 <8 hex digits of the bytes before>\n"
std::string EncodeManifest(const Manifest& manifest);
absl::StatusOr<Manifest> DecodeManifest(std::string_view bytes, const std::string& path);

std::string EncodeFrontier(const FrontierSnapshot& snapshot);
absl::StatusOr<FrontierSnapshot> DecodeFrontier(std::string_view bytes, const std::string& path);

std::string EncodeCounters(const CrawlSummary& counters);
absl::StatusOr<CrawlSummary> DecodeCounters(std::string_view bytes, const std::string& path);

std::string EncodeSeeds(const std::vector<std::string>& seeds);
std::vector<std::string> DecodeSeeds(std::string_view bytes);

}  // namespace crawler::state_internal

#endif  // CRAWLER_STATE_CHECKPOINT_CODEC_H_

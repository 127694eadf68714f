#include "headline.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/types/span.h"
#include "memory_probe.h"
#include "url_generator.h"

namespace sieve_bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr size_t kHeadlineChunk = 4096;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Mib(uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// Bytes of the checkpoint directory's files: with one link (written by this
// Save or an earlier one) and with more (spill files the checkpoint shares
// with the live queue, linked, not copied). `before`: names present before
// this Save; of those only the manifest, rewritten each time, counts again.
struct CheckpointBytes {
  uint64_t written = 0;
  uint64_t linked = 0;
  uint64_t files = 0;
};

std::set<std::string> FileNames(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

CheckpointBytes NewCheckpointBytes(const fs::path& dir, const std::set<std::string>& before) {
  CheckpointBytes bytes;
  const std::string manifest = sieve::Sieve::CheckpointPath(dir).filename().string();
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    struct stat st;
    if (::stat(entry.path().c_str(), &st) != 0) continue;
    ++bytes.files;
    if (before.count(name) > 0 && name != manifest) continue;
    (st.st_nlink > 1 ? bytes.linked : bytes.written) += static_cast<uint64_t>(st.st_size);
  }
  return bytes;
}

class Headline {
 public:
  Headline(std::unique_ptr<sieve::Sieve> sieve, const HeadlineOptions& options)
      : sieve_(std::move(sieve)), options_(options) {}

  bool Run() {
    std::printf(
        "\nheadline: %lu distinct URLs over %d priority lanes (i mod lanes), checkpoint every "
        "%lu URLs into %s\n\n"
        "| phase | at URL | took s | ns/URL | queued | RSS MiB | peak RSS MiB | queue RAM MiB | "
        "disk GiB | disk B/queued URL | spill files | save s | wrote MiB | linked MiB | "
        "checkpoint files |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        static_cast<unsigned long>(options_.urls), options_.lanes,
        static_cast<unsigned long>(options_.checkpoint_every), options_.checkpoint_dir.c_str());
    std::fflush(stdout);
    if (!PushAll() || !PopAll()) return false;
    PrintSummary();
    return true;
  }

 private:
  bool PushAll() {
    UrlGenerator generator;
    std::vector<std::string> urls(kHeadlineChunk);
    std::vector<std::string_view> views;
    std::vector<int32_t> priorities(kHeadlineChunk);
    Clock::duration stage{};
    uint64_t stage_start = 0;
    for (uint64_t start = 0; start < options_.urls; start += kHeadlineChunk) {
      const size_t size =
          static_cast<size_t>(std::min<uint64_t>(kHeadlineChunk, options_.urls - start));
      views.clear();
      for (size_t i = 0; i < size; ++i) {
        generator.Generate(start + i, urls[i]);
        views.push_back(urls[i]);
        priorities[i] = static_cast<int32_t>((start + i) % static_cast<uint64_t>(options_.lanes));
      }
      const Clock::time_point t0 = Clock::now();
      sieve_->PushBatch(views, {}, absl::MakeConstSpan(priorities.data(), size), {});
      stage += Clock::now() - t0;
      const uint64_t done = start + size;
      if (Crossed(done - size, done) || done == options_.urls) {
        push_seconds_ += std::chrono::duration<double>(stage).count();
        if (!Report("push", done, done - stage_start, stage)) return false;
        stage = {};
        stage_start = done;
      }
    }
    return true;
  }

  bool PopAll() {
    Clock::duration stage{};
    uint64_t popped = 0;
    uint64_t stage_start = 0;
    while (true) {
      const Clock::time_point t0 = Clock::now();
      std::optional<sieve::SieveEntry> entry = sieve_->TryPopEntry();
      if (entry) sieve_->MarkDone(entry->url);
      stage += Clock::now() - t0;
      if (!entry) break;
      ++popped;
      if (Due(popped)) {
        pop_seconds_ += std::chrono::duration<double>(stage).count();
        if (!Report("pop", popped, popped - stage_start, stage)) return false;
        stage = {};
        stage_start = popped;
      }
    }
    pop_seconds_ += std::chrono::duration<double>(stage).count();
    popped_ = popped;
    return Report("pop", popped, popped - stage_start, stage);
  }

  bool Due(uint64_t count) const { return Crossed(count - 1, count); }

  // True if a multiple of checkpoint_every lies in (from, to].
  bool Crossed(uint64_t from, uint64_t to) const {
    const uint64_t every = options_.checkpoint_every;
    return every > 0 && to / every > from / every;
  }

  // One row: the stage's cost, the state now, and a checkpoint taken now.
  bool Report(const char* phase, uint64_t at, uint64_t stage_urls, Clock::duration stage) {
    const sieve::SieveStats stats = sieve_->Stats();
    const uint64_t rss = static_cast<uint64_t>(std::max<int64_t>(ResidentBytes(), 0));
    const uint64_t peak = static_cast<uint64_t>(std::max<int64_t>(PeakResidentBytes(), 0));
    peak_disk_ = std::max(peak_disk_, stats.queue_disk_bytes);
    peak_queued_ = std::max(peak_queued_, stats.queued);
    peak_queue_memory_ = std::max(peak_queue_memory_, stats.queue_memory_bytes);
    double save_s = 0;
    CheckpointBytes bytes;
    if (options_.checkpoint_every > 0) {
      const std::set<std::string> before = FileNames(options_.checkpoint_dir);
      const Clock::time_point t0 = Clock::now();
      if (absl::Status status = sieve_->Save(options_.checkpoint_dir); !status.ok()) {
        std::fprintf(stderr, "headline: Save(%s) at %s %lu: %s\n", options_.checkpoint_dir.c_str(),
                     phase, static_cast<unsigned long>(at), status.ToString().c_str());
        return false;
      }
      save_s = SecondsSince(t0);
      bytes = NewCheckpointBytes(options_.checkpoint_dir, before);
      save_seconds_.push_back(save_s);
      max_save_written_ = std::max(max_save_written_, bytes.written);
    }
    const double stage_ns = std::chrono::duration<double, std::nano>(stage).count() /
                            static_cast<double>(std::max<uint64_t>(stage_urls, 1));
    std::printf(
        "| %s | %lu | %.1f | %.1f | %lu | %.0f | %.0f | %.1f | %.2f | %.2f | %lu | %.2f | %.1f | "
        "%.1f | %lu |\n",
        phase, static_cast<unsigned long>(at), std::chrono::duration<double>(stage).count(),
        stage_ns, static_cast<unsigned long>(stats.queued), Mib(rss), Mib(peak),
        Mib(stats.queue_memory_bytes), static_cast<double>(stats.queue_disk_bytes) / (1 << 30),
        stats.queued > 0
            ? static_cast<double>(stats.queue_disk_bytes) / static_cast<double>(stats.queued)
            : 0.0,
        static_cast<unsigned long>(stats.spilled_segments), save_s, Mib(bytes.written),
        Mib(bytes.linked), static_cast<unsigned long>(bytes.files));
    std::fflush(stdout);
    return true;
  }

  void PrintSummary() const {
    const sieve::SieveStats stats = sieve_->Stats();
    std::vector<double> saves = save_seconds_;
    std::sort(saves.begin(), saves.end());
    const double n = static_cast<double>(options_.urls);
    std::printf(
        "\nsummary: accepted %lu of %lu (wrongly dropped %.5f), popped %lu, lost %lu, refused "
        "%lu\n"
        "  push %.1f ns/URL (%.2f M URLs/s), pop+done %.1f ns/URL (%.2f M URLs/s)\n"
        "  peak RSS %.0f MiB (filter %.0f MiB), peak queue RAM %.1f MiB, peak disk %.2f GiB = "
        "%.2f B per queued URL at the peak (%lu queued)\n",
        static_cast<unsigned long>(stats.accepted), static_cast<unsigned long>(options_.urls),
        (n - static_cast<double>(stats.accepted)) / n, static_cast<unsigned long>(popped_),
        static_cast<unsigned long>(stats.lost), static_cast<unsigned long>(stats.refused),
        push_seconds_ * 1e9 / n, n / push_seconds_ / 1e6,
        pop_seconds_ * 1e9 / static_cast<double>(std::max<uint64_t>(popped_, 1)),
        static_cast<double>(popped_) / pop_seconds_ / 1e6,
        Mib(static_cast<uint64_t>(std::max<int64_t>(PeakResidentBytes(), 0))),
        Mib(stats.filter_bytes), Mib(peak_queue_memory_),
        static_cast<double>(peak_disk_) / (1 << 30),
        static_cast<double>(peak_disk_) / static_cast<double>(std::max<uint64_t>(peak_queued_, 1)),
        static_cast<unsigned long>(peak_queued_));
    if (!saves.empty()) {
      std::printf(
          "  %zu checkpoints: save min %.2f s, median %.2f s, max %.2f s; most written by one "
          "save %.1f MiB\n",
          saves.size(), saves.front(), saves[saves.size() / 2], saves.back(),
          Mib(max_save_written_));
    }
  }

  std::unique_ptr<sieve::Sieve> sieve_;
  const HeadlineOptions options_;
  double push_seconds_ = 0;
  double pop_seconds_ = 0;
  uint64_t popped_ = 0;
  uint64_t peak_disk_ = 0;
  uint64_t peak_queued_ = 0;
  uint64_t peak_queue_memory_ = 0;
  uint64_t max_save_written_ = 0;
  std::vector<double> save_seconds_;
};

}  // namespace

bool RunHeadline(const sieve::SieveOptions& sieve_options, const HeadlineOptions& options) {
  absl::StatusOr<std::unique_ptr<sieve::Sieve>> sieve = sieve::Sieve::Create(sieve_options);
  if (!sieve.ok()) {
    std::fprintf(stderr, "headline: %s\n", sieve.status().ToString().c_str());
    return false;
  }
  std::error_code error;
  fs::remove_all(options.checkpoint_dir, error);
  const bool ok = Headline(*std::move(sieve), options).Run();
  fs::remove_all(options.checkpoint_dir, error);
  return ok;
}

}  // namespace sieve_bench

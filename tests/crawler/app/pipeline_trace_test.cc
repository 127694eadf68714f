// PipelineTrace: the file starts with its header, every line has the
// header's columns, the sample's values land in their columns, the
// cumulative counters never go back, and an unwritable path is an error
// naming it.
#include "../../../crawler/src/app/pipeline_trace.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

std::vector<std::string> LinesOf(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(PipelineTrace, WritesTheHeaderThenOneLinePerSampleWithTheSampleValues) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "pipeline_trace_test.tsv").string();
  std::atomic<uint64_t> calls{0};
  {
    absl::StatusOr<std::unique_ptr<PipelineTrace>> trace =
        PipelineTrace::Start(path, absl::Milliseconds(1), [&calls] {
          PipelineSample s;
          s.scheduled = 32;
          s.fetch_queued = 3;
          s.fetch_running = 29;
          s.parse_jobs = 7;
          s.parse_bytes = 35000;
          s.frontier_buffered = 4096;
          s.sieve_queued = 12;
          s.waiting = 'S';
          s.sleeps_total = calls.fetch_add(1) + 1;
          return s;
        });
    ASSERT_TRUE(trace.ok()) << trace.status();
    // At least a few samples (bounded: the trace's own thread takes them).
    for (int i = 0; i < 10000 && calls.load() < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  const std::vector<std::string> lines = LinesOf(path);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0] + "\n", kPipelineTraceHeader);
  const size_t columns = std::vector<std::string>(absl::StrSplit(lines[0], '\t')).size();
  EXPECT_EQ(columns, 14u);
  // Every sample taken is a line: the destructor's last one included.
  EXPECT_EQ(lines.size() - 1, calls.load());
  uint64_t last_sleeps = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> f = absl::StrSplit(lines[i], '\t');
    ASSERT_EQ(f.size(), columns) << lines[i];
    EXPECT_EQ(f[2], "32");
    EXPECT_EQ(f[3], "3");
    EXPECT_EQ(f[4], "29");
    EXPECT_EQ(f[5], "7");
    EXPECT_EQ(f[6], "35000");
    EXPECT_EQ(f[7], "4096");
    EXPECT_EQ(f[8], "12");
    EXPECT_EQ(f[9], "S");
    const uint64_t sleeps = std::stoull(f[10]);
    EXPECT_GT(sleeps, last_sleeps);
    last_sleeps = sleeps;
  }
  std::filesystem::remove(path);
}

TEST(PipelineTrace, AnUnwritablePathIsAnErrorNamingIt) {
  const std::string path = "/nonexistent-dir-for-pipeline-trace/trace.tsv";
  absl::StatusOr<std::unique_ptr<PipelineTrace>> trace =
      PipelineTrace::Start(path, absl::Milliseconds(10), [] { return PipelineSample{}; });
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.status().message().find(path), std::string::npos) << trace.status();
  EXPECT_NE(trace.status().message().find("--debug-pipeline"), std::string::npos);
}

}  // namespace
}  // namespace crawler

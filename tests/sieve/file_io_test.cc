// Checksummed atomic files: round trip, and every kind of damage (truncation,
// a flipped bit, a failed write) gives a clear error and leaves the previous
// file whole.
#include "../../sieve/src/file_io.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "sieve/test_urls.h"

namespace sieve::internal {
namespace {

using sieve_test::CountFiles;
using sieve_test::ScratchDir;

absl::Status WriteNumbers(const std::filesystem::path& path, uint64_t first, int count) {
  return WriteFileAtomically(path, [&](std::ostream& out) {
    for (int i = 0; i < count; ++i) WriteU64(out, first + i);
    return absl::OkStatus();
  });
}

absl::Status ReadNumbers(const std::filesystem::path& path, std::vector<uint64_t>& numbers) {
  numbers.clear();
  return ReadChecksummedFile(path, [&](BodyReader& in) {
    while (in.Remaining() > 0) {
      uint64_t v = 0;
      if (absl::Status s = in.ReadU64(v); !s.ok()) return s;
      numbers.push_back(v);
    }
    return absl::OkStatus();
  });
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(FileIoTest, RoundTripsAndLeavesNoTemporaryFile) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 7, 1000).ok());
  std::vector<uint64_t> numbers;
  ASSERT_TRUE(ReadNumbers(path, numbers).ok());
  ASSERT_EQ(numbers.size(), 1000u);
  EXPECT_EQ(numbers.front(), 7u);
  EXPECT_EQ(numbers.back(), 1006u);
  EXPECT_EQ(CountFiles(dir.path()), 1u);
}

TEST(FileIoTest, EveryTruncationIsDataLoss) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 0, 100).ok());
  const std::string whole = ReadAll(path);
  std::vector<uint64_t> numbers;
  for (size_t cut = 0; cut < whole.size(); cut += 13) {
    WriteAll(path, whole.substr(0, cut));
    EXPECT_EQ(ReadNumbers(path, numbers).code(), absl::StatusCode::kDataLoss) << "cut " << cut;
  }
}

TEST(FileIoTest, AFlippedBitIsDataLoss) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 0, 100).ok());
  std::string bytes = ReadAll(path);
  bytes[bytes.size() / 2] ^= 0x10;
  WriteAll(path, bytes);
  std::vector<uint64_t> numbers;
  absl::Status status = ReadNumbers(path, numbers);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("checksum"), absl::string_view::npos) << status;
}

TEST(FileIoTest, AFailedWriteKeepsThePreviousFileWhole) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 1, 10).ok());
  absl::Status failed = WriteFileAtomically(path, [](std::ostream& out) {
    WriteU64(out, 99);
    return absl::InternalError("disk full, say");
  });
  EXPECT_FALSE(failed.ok());
  std::vector<uint64_t> numbers;
  ASSERT_TRUE(ReadNumbers(path, numbers).ok());
  EXPECT_EQ(numbers.size(), 10u);
  EXPECT_EQ(CountFiles(dir.path()), 1u);  // the temporary file is gone
}

TEST(FileIoTest, ParserMustConsumeTheWholeBody) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 1, 10).ok());
  absl::Status status = ReadChecksummedFile(path, [](BodyReader& in) {
    uint64_t v = 0;
    return in.ReadU64(v);
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
}

TEST(FileIoTest, ReadBytesRefusesLengthsBeyondTheBody) {
  ScratchDir dir;
  const auto path = dir.path() / "numbers";
  ASSERT_TRUE(WriteNumbers(path, 1, 2).ok());
  absl::Status status = ReadChecksummedFile(path, [](BodyReader& in) {
    std::string bytes;
    return in.ReadBytes(uint64_t{1} << 40, bytes);
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
}

TEST(FileIoTest, MissingFileIsAnError) {
  ScratchDir dir;
  std::vector<uint64_t> numbers;
  EXPECT_FALSE(ReadNumbers(dir.path() / "absent", numbers).ok());
}

}  // namespace
}  // namespace sieve::internal

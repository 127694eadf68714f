#include "url/percent_encode.h"

#include <array>

namespace crawler::url_internal {
namespace {

// One bit per set for each byte, computed at compile time from the
// Standard's definitions so that a lookup is a single load.
constexpr uint8_t Bit(EncodeSet set) { return static_cast<uint8_t>(1u << static_cast<int>(set)); }

constexpr std::array<uint8_t, 256> BuildTable() {
  std::array<uint8_t, 256> table{};
  auto add = [&table](std::string_view chars, uint8_t bits) {
    for (char c : chars) table[static_cast<unsigned char>(c)] |= bits;
  };
  const uint8_t all = Bit(EncodeSet::kC0Control) | Bit(EncodeSet::kFragment) |
                      Bit(EncodeSet::kQuery) | Bit(EncodeSet::kSpecialQuery) |
                      Bit(EncodeSet::kPath) | Bit(EncodeSet::kUserinfo);
  for (int c = 0; c < 256; ++c) {
    if (c < 0x20 || c > 0x7E) table[c] = all;
  }
  const uint8_t fragment = Bit(EncodeSet::kFragment);
  const uint8_t query = Bit(EncodeSet::kQuery) | Bit(EncodeSet::kSpecialQuery) |
                        Bit(EncodeSet::kPath) | Bit(EncodeSet::kUserinfo);
  const uint8_t path = Bit(EncodeSet::kPath) | Bit(EncodeSet::kUserinfo);
  const uint8_t userinfo = Bit(EncodeSet::kUserinfo);
  add(" \"<>`", fragment);
  add(" \"#<>", query);
  add("'", Bit(EncodeSet::kSpecialQuery));
  add("?^`{}", path);
  add("/:;=@[\\]|", userinfo);
  return table;
}

constexpr std::array<uint8_t, 256> kEncodeTable = BuildTable();

}  // namespace

bool InEncodeSet(unsigned char c, EncodeSet set) { return (kEncodeTable[c] & Bit(set)) != 0; }

void AppendEncoded(std::string_view in, EncodeSet set, std::string& out) {
  const uint8_t bit = Bit(set);
  size_t run_start = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (kEncodeTable[c] & bit) {
      out.append(in.data() + run_start, i - run_start);
      AppendPercentEscape(c, out);
      run_start = i + 1;
    }
  }
  out.append(in.data() + run_start, in.size() - run_start);
}

void PercentDecode(std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%' && i + 2 < in.size() && IsHexDigit(in[i + 1]) && IsHexDigit(in[i + 2])) {
      out.push_back(static_cast<char>(HexValue(in[i + 1]) * 16 + HexValue(in[i + 2])));
      i += 2;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
}

}  // namespace crawler::url_internal

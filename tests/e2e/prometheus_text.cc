#include "e2e/prometheus_text.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"

namespace e2e {
namespace {

bool NameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
         (!first && c >= '0' && c <= '9');
}

// Reads a metric or label name at `pos`; empty when there is none.
std::string ReadName(const std::string& line, size_t* pos) {
  size_t start = *pos;
  while (*pos < line.size() && NameChar(line[*pos], *pos == start)) ++*pos;
  return line.substr(start, *pos - start);
}

bool ParseValue(const std::string& text, double* value) {
  if (text == "+Inf") {
    *value = INFINITY;
    return true;
  }
  if (text == "-Inf") {
    *value = -INFINITY;
    return true;
  }
  if (text == "NaN") {
    *value = NAN;
    return true;
  }
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*value);
}

// The labels after '{' up to and including '}': appends them to `key`.
absl::Status ReadLabels(const std::string& line, size_t* pos, std::string* key, std::string* le) {
  ++*pos;  // '{'
  while (*pos < line.size() && line[*pos] != '}') {
    const std::string label = ReadName(line, pos);
    if (label.empty() || *pos + 1 >= line.size() || line[*pos] != '=' || line[*pos + 1] != '"') {
      return absl::InvalidArgumentError("bad label");
    }
    *pos += 2;
    std::string value;
    while (*pos < line.size() && line[*pos] != '"') {
      if (line[*pos] == '\\') {
        if (++*pos == line.size()) return absl::InvalidArgumentError("bad escape");
        const char e = line[*pos];
        if (e != '\\' && e != '"' && e != 'n') return absl::InvalidArgumentError("bad escape");
        value += e == 'n' ? '\n' : e;
      } else {
        value += line[*pos];
      }
      ++*pos;
    }
    if (*pos == line.size()) return absl::InvalidArgumentError("unterminated label value");
    ++*pos;  // closing quote
    if (label == "le") *le = value;
    absl::StrAppend(key, key->back() == '{' ? "" : ",", label, "=\"", value, "\"");
    if (*pos < line.size() && line[*pos] == ',') ++*pos;
  }
  if (*pos == line.size()) return absl::InvalidArgumentError("unterminated labels");
  ++*pos;
  *key += "}";
  return absl::OkStatus();
}

// The family a sample belongs to, given the declared types.
std::string FamilyOf(const std::string& name, const std::map<std::string, std::string>& types) {
  if (types.count(name)) return name;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      const std::string base = name.substr(0, name.size() - s.size());
      auto it = types.find(base);
      if (it != types.end() && it->second == "histogram") return base;
    }
  }
  return "";
}

struct HistogramCheck {
  double last_bucket = -1;
  double inf_bucket = -1;
};

absl::Status ParseComment(const std::string& line, Exposition& out, std::set<std::string>& helped,
                          const std::string& prefix) {
  std::istringstream words(line);
  std::string hash, keyword, name, rest;
  words >> hash >> keyword >> name;
  std::getline(words, rest);
  if (keyword != "HELP" && keyword != "TYPE") return absl::InvalidArgumentError("stray comment");
  if (name.rfind(prefix, 0) != 0) return absl::InvalidArgumentError("name without the prefix");
  if (keyword == "HELP") {
    if (rest.size() < 2) return absl::InvalidArgumentError("empty HELP");
    if (!helped.insert(name).second) return absl::InvalidArgumentError("HELP twice");
    return absl::OkStatus();
  }
  const std::string type = rest.empty() ? "" : rest.substr(1);
  if (type != "counter" && type != "gauge" && type != "histogram") {
    return absl::InvalidArgumentError("unknown TYPE '" + type + "'");
  }
  if (!helped.count(name)) return absl::InvalidArgumentError("TYPE without HELP");
  if (!out.types.emplace(name, type).second) return absl::InvalidArgumentError("TYPE twice");
  return absl::OkStatus();
}

}  // namespace

double Exposition::Get(const std::string& key) const {
  auto it = samples.find(key);
  return it == samples.end() ? -1 : it->second;
}

absl::StatusOr<Exposition> ParseExposition(const std::string& text, const std::string& prefix) {
  if (text.empty() || text.back() != '\n') {
    return absl::InvalidArgumentError("the text does not end with a newline");
  }
  Exposition out;
  std::set<std::string> helped;
  std::map<std::string, HistogramCheck> histograms;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    auto fail = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat("line ", number, ": ", why, ": ", line));
    };
    if (line.empty()) return fail("empty line");
    if (line[0] == '#') {
      absl::Status comment = ParseComment(line, out, helped, prefix);
      if (!comment.ok()) return fail(comment.message());
      continue;
    }
    size_t pos = 0;
    const std::string name = ReadName(line, &pos);
    if (name.empty()) return fail("no metric name");
    const std::string family = FamilyOf(name, out.types);
    if (family.empty()) return fail("sample before its # TYPE");
    std::string key = name;
    std::string le;
    if (pos < line.size() && line[pos] == '{') {
      key += "{";
      absl::Status labels = ReadLabels(line, &pos, &key, &le);
      if (!labels.ok()) return fail(labels.message());
    }
    if (pos >= line.size() || line[pos] != ' ') return fail("no space before the value");
    double value = 0;
    if (!ParseValue(line.substr(pos + 1), &value)) return fail("bad value (or a timestamp)");
    if (!out.samples.emplace(key, value).second) return fail("sample twice");
    if (out.types[family] == "histogram") {
      HistogramCheck& h = histograms[family];
      if (name == family + "_bucket") {
        if (le.empty()) return fail("bucket without le");
        if (value < h.last_bucket) return fail("buckets not cumulative");
        h.last_bucket = value;
        if (le == "+Inf") h.inf_bucket = value;
      } else if (name == family + "_count" && value != h.inf_bucket) {
        return fail("_count differs from the +Inf bucket");
      }
    } else if (name != family) {
      return fail("sample name is not its family's");
    }
  }
  return out;
}

}  // namespace e2e

// A strict reader of the Prometheus text exposition format (0.0.4), for the
// tests of `crawl --metrics`: what a scraper would reject, it rejects with
// the line number, rather than tolerating it as Prometheus sometimes does.
#ifndef TESTS_E2E_PROMETHEUS_TEXT_H_
#define TESTS_E2E_PROMETHEUS_TEXT_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace e2e {

struct Exposition {
  // "# TYPE" of each family: counter, gauge, histogram.
  std::map<std::string, std::string> types;
  // Samples by `name{label="value",...}` exactly as written (labels in their
  // order of the text), and by name alone for unlabeled ones.
  std::map<std::string, double> samples;

  // The sample's value; -1 when absent (every metric here is >= 0).
  double Get(const std::string& key) const;
};

// Checks every line: "# HELP name text" then "# TYPE name type" before the
// family's first sample; sample lines `name{label="value",...} value` with
// a valid name, escaped label values, a float value (+Inf, NaN allowed), no
// timestamp; each sample's family typed (a histogram's _bucket/_sum/_count,
// buckets cumulative, the +Inf bucket equal to _count); no family typed
// twice; every name with `prefix`; the text ending with a newline.
absl::StatusOr<Exposition> ParseExposition(const std::string& text, const std::string& prefix);

}  // namespace e2e

#endif  // TESTS_E2E_PROMETHEUS_TEXT_H_

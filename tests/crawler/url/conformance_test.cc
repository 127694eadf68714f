// Runs the WHATWG URL test cases of web-platform-tests
// (CRAWL_SHARED_DIR/conformance/urltestdata.json, see its README) through
// Url::Parse.
//
// Denominator ("the crawler's cases"): every case whose expected href is
// http(s), every case whose base is http(s) (whatever the outcome: a link
// "mailto:x" on an http page is such a case), and every failure case whose
// input starts with an http(s) scheme. Requirement: at least 99%
// pass.
// All other cases (file:, data:, opaque paths, ...) are run too and counted
// separately; they must not crash.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "crawler/url.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace crawler {
namespace {

const std::string kDataPath = std::string(CRAWL_SHARED_DIR) + "/conformance/urltestdata.json";

bool IsHttpHref(const std::string& s) {
  const std::string lower = absl::AsciiStrToLower(s);
  return absl::StartsWith(lower, "http:") || absl::StartsWith(lower, "https:");
}

// The input's scheme, if it has one, is http(s) (tabs and leading spaces
// aside, which the parser strips).
bool InputLooksHttp(std::string input) {
  absl::StripLeadingAsciiWhitespace(&input);
  std::string compact;
  for (char c : input) {
    if (c != '\t' && c != '\n' && c != '\r') compact.push_back(c);
  }
  return IsHttpHref(compact);
}

struct Outcome {
  bool passed;
  std::string got;
};

Outcome RunCase(const nlohmann::json& test) {
  const std::string input = test["input"].get<std::string>();
  const bool expect_failure = test.value("failure", false);
  absl::StatusOr<Url> base;
  const Url* base_ptr = nullptr;
  if (!test["base"].is_null()) {
    base = Url::Parse(test["base"].get<std::string>());
    if (!base.ok()) return {expect_failure, "base failed: " + std::string(base.status().message())};
    base_ptr = &*base;
  }
  const absl::StatusOr<Url> url = Url::Parse(input, base_ptr);
  if (expect_failure) {
    return {!url.ok(), url.ok() ? url->href() : "failure"};
  }
  if (!url.ok()) return {false, "failure: " + std::string(url.status().message())};
  const std::string& want = test["href"].get_ref<const std::string&>();
  bool passed = url->href() == want;
  // The accessors must agree with the getters of the URL API.
  if (passed && test.contains("hostname")) {
    passed =
        url->host() == test["hostname"].get<std::string>() &&
        std::string(url->path()) == test["pathname"].get<std::string>() &&
        (url->has_query() && !url->query().empty() ? "?" + std::string(url->query()) : "") ==
            test["search"].get<std::string>() &&
        (url->has_fragment() && !url->fragment().empty() ? "#" + std::string(url->fragment())
                                                         : "") == test["hash"].get<std::string>() &&
        (url->port() == -1 ? "" : std::to_string(url->port())) == test["port"].get<std::string>() &&
        std::string(url->scheme()) + ":" == test["protocol"].get<std::string>();
  }
  return {passed, url->href()};
}

TEST(UrlConformanceTest, WptUrlTestDataHttpCasesPass) {
  std::ifstream file(kDataPath);
  if (!file) {
    GTEST_SKIP() << "conformance data not found at " << kDataPath << "; the test did not run";
  }
  std::stringstream text;
  text << file.rdbuf();
  const nlohmann::json cases = nlohmann::json::parse(text.str());
  int http_total = 0, http_passed = 0, other_total = 0, other_passed = 0;
  for (const nlohmann::json& test : cases) {
    if (!test.is_object()) continue;
    const bool expect_failure = test.value("failure", false);
    const bool base_http = !test["base"].is_null() && IsHttpHref(test["base"].get<std::string>());
    const bool in_denominator =
        base_http || (expect_failure ? InputLooksHttp(test["input"].get<std::string>())
                                     : IsHttpHref(test["href"].get<std::string>()));
    const Outcome outcome = RunCase(test);
    if (in_denominator) {
      ++http_total;
      http_passed += outcome.passed;
    } else {
      ++other_total;
      other_passed += outcome.passed;
    }
    if (!outcome.passed) {
      std::cout << (in_denominator ? "FAIL(http) " : "FAIL(other) ")
                << nlohmann::json(test["input"]).dump() << " base " << test["base"].dump()
                << " want " << (expect_failure ? "failure" : test["href"].dump()) << " got "
                << nlohmann::json(outcome.got).dump() << "\n";
    }
  }
  std::cout << "url conformance: " << http_passed << "/" << http_total << " passed\n";
  std::cout << "url conformance (other schemes): " << other_passed << "/" << other_total
            << " passed\n";
  EXPECT_GT(http_total, 300);
  EXPECT_GE(http_passed * 100, http_total * 99);
}

}  // namespace
}  // namespace crawler

// Every case of /work/shared/conformance/robots_cases.json (RFC 9309), the
// four `optional` ones included: they must all give the expected answer.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "crawler/robots.h"
#include "crawler/url.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace crawler {
namespace {

const std::string kCasesPath = std::string(CRAWL_SHARED_DIR) + "/conformance/robots_cases.json";

TEST(RobotsConformance, EveryCaseOfRobotsCasesJson) {
  std::ifstream file(kCasesPath, std::ios::binary);
  if (!file) {
    GTEST_SKIP() << "robots conformance: NOT RUN, " << kCasesPath << " is missing";
  }
  std::stringstream text;
  text << file.rdbuf();
  const nlohmann::json cases = nlohmann::json::parse(text.str());
  ASSERT_TRUE(cases.is_array());
  ASSERT_GT(cases.size(), 0u);

  int passed = 0;
  std::vector<std::string> failures;
  for (const nlohmann::json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    absl::StatusOr<Url> url = Url::Parse(c.at("url").get<std::string>());
    if (!url.ok()) {
      failures.push_back(name + ": URL does not parse: " + std::string(url.status().message()));
      continue;
    }
    const RobotsRules rules = RobotsRules::Parse(c.at("robots_txt").get<std::string>(),
                                                 c.at("user_agent").get<std::string>());
    const bool expected = c.at("allowed").get<bool>();
    if (rules.IsAllowed(*url) == expected) {
      ++passed;
    } else {
      failures.push_back(name + " (RFC 9309 " + c.at("rfc9309").get<std::string>() +
                         "): expected " + (expected ? "allowed" : "disallowed"));
    }
  }
  std::cout << "robots conformance: " << passed << "/" << cases.size() << " passed\n";
  for (const std::string& failure : failures) std::cout << "  FAILED " << failure << "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " cases failed";
  EXPECT_EQ(static_cast<size_t>(passed), cases.size());
}

}  // namespace
}  // namespace crawler

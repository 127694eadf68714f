#include "testsite/web_graph.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "seeded_random.h"

namespace testsite {
namespace {

// Random streams per (host, page); see SeededRandom.
constexpr uint64_t kWebLinkStream = 1;
constexpr uint64_t kGraphStreamsPerHost = 4;
// Hosts whose in-link weight is their exact size (a table of cumulative sizes).
constexpr uint64_t kHeadHosts = 4096;
// Draws of an off-host link that may land on the page's own host before the
// next host is taken instead (only a web of very few hosts gets there).
constexpr int kOffHostDraws = 64;

// Uniform in [0, 1) from 53 random bits.
double UnitInterval(SeededRandom& random) {
  return static_cast<double>(random.Next() >> 11) * 0x1.0p-53;
}

}  // namespace

WebGraph::WebGraph(const WebOptions& options) : options_(options) {
  const uint64_t head = std::min(options_.hosts, kHeadHosts);
  head_.reserve(head);
  double cumulative = 0;
  for (uint64_t host = 0; host < options_.hosts; ++host) {
    const uint64_t pages = HostPages(host);
    total_pages_ += pages;
    if (host < head) head_.push_back(cumulative += static_cast<double>(pages));
  }
  if (options_.hosts > head) {
    tail_mass_ =
        CurveIntegral(static_cast<double>(head) + 0.5, static_cast<double>(options_.hosts) + 0.5);
  }
}

uint64_t WebGraph::HostPages(uint64_t host) const {
  const double curve = static_cast<double>(options_.largest_host_pages) /
                       std::pow(static_cast<double>(host + 1), options_.zipf_exponent);
  return std::max<uint64_t>({options_.min_host_pages, static_cast<uint64_t>(curve), 1});
}

double WebGraph::CurveIntegral(double from, double to) const {
  const double s = options_.zipf_exponent;
  const auto largest = static_cast<double>(options_.largest_host_pages);
  if (s == 1) return largest * std::log(to / from);
  return largest * (std::pow(to, 1 - s) - std::pow(from, 1 - s)) / (1 - s);
}

double WebGraph::InverseCurveIntegral(double from, double mass) const {
  const double s = options_.zipf_exponent;
  const auto largest = static_cast<double>(options_.largest_host_pages);
  if (s == 1) return from * std::exp(mass / largest);
  return std::pow(std::pow(from, 1 - s) + mass * (1 - s) / largest, 1 / (1 - s));
}

uint64_t WebGraph::HostForUniform(double u) const {
  const double target = u * (head_.back() + tail_mass_);
  if (target < head_.back()) {
    return static_cast<uint64_t>(std::upper_bound(head_.begin(), head_.end(), target) -
                                 head_.begin());
  }
  // Host i covers [i + 0.5, i + 1.5) of the curve's argument x = i + 1.
  const double x =
      InverseCurveIntegral(static_cast<double>(head_.size()) + 0.5, target - head_.back());
  const auto rank = static_cast<uint64_t>(std::max(1.0, std::floor(x + 0.5)));
  return std::clamp<uint64_t>(rank - 1, head_.size(), options_.hosts - 1);
}

std::vector<WebLink> WebGraph::Links(uint64_t host, uint64_t page) const {
  const auto total = static_cast<uint64_t>(options_.links_per_page);
  const auto on_host = std::min<uint64_t>(
      total,
      static_cast<uint64_t>(std::llround(static_cast<double>(total) * options_.on_host_share)));
  const uint64_t size = HostPages(host);
  const uint64_t fanout = std::max<uint64_t>(1, on_host / 2);
  SeededRandom random(options_.seed, page, host * kGraphStreamsPerHost + kWebLinkStream);
  std::vector<WebLink> links;
  links.reserve(total);
  for (uint64_t k = 0; k < fanout && links.size() < on_host; ++k) {
    const uint64_t child = page * fanout + 1 + k;
    if (child >= size) break;
    links.push_back({host, child});
  }
  while (links.size() < on_host) links.push_back({host, random.Below(size)});
  while (links.size() < total) {
    uint64_t other = HostForUniform(UnitInterval(random));
    for (int draw = 1; other == host && draw < kOffHostDraws; ++draw) {
      other = HostForUniform(UnitInterval(random));
    }
    if (other == host) other = (host + 1) % options_.hosts;
    links.push_back({other, random.Below(HostPages(other))});
  }
  // Fisher-Yates with our own generator, so the order is the same everywhere.
  for (size_t i = links.size(); i > 1; --i) std::swap(links[i - 1], links[random.Below(i)]);
  return links;
}

std::string WebGraph::HostAddress(uint64_t host) {
  in_addr address{};
  address.s_addr = htonl(kFirstWebAddress + static_cast<uint32_t>(host));
  char text[INET_ADDRSTRLEN];
  ::inet_ntop(AF_INET, &address, text, sizeof(text));
  return text;
}

std::optional<uint64_t> WebGraph::HostOfAddress(std::string_view address) const {
  address = address.substr(0, address.find(':'));
  if (address.size() >= INET_ADDRSTRLEN) return std::nullopt;
  const std::string text(address);
  in_addr parsed{};
  if (::inet_pton(AF_INET, text.c_str(), &parsed) != 1) return std::nullopt;
  const uint32_t value = ntohl(parsed.s_addr);
  if (value < kFirstWebAddress || value - kFirstWebAddress >= options_.hosts) return std::nullopt;
  return value - kFirstWebAddress;
}

}  // namespace testsite

// AddressBook: the --resolve map, IP literals, and a cache of getaddrinfo's
// answers filled by a few lookup threads.
#include "fetch/address_book.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace crawler {
namespace {

// "[v6]" for an IPv6 address, the address itself otherwise.
std::string Bracketed(const std::string& address) {
  if (address.find(':') == std::string::npos || address.front() == '[') return address;
  return absl::StrCat("[", address, "]");
}

// The address of an IP literal host ("127.0.0.1", "[::1]"), or "".
std::string LiteralAddress(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  if (inet_pton(AF_INET, host.c_str(), buffer) == 1) return host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    const std::string inner = host.substr(1, host.size() - 2);
    if (inet_pton(AF_INET6, inner.c_str(), buffer) == 1) return host;
  }
  return "";
}

// Host (lower case) and port of "scheme://host[:port]"; false when it has no host.
bool SplitAuthority(const std::string& authority, std::string* host, int* port) {
  const size_t scheme_end = authority.find("://");
  if (scheme_end == std::string::npos) return false;
  const std::string scheme = absl::AsciiStrToLower(authority.substr(0, scheme_end));
  std::string rest = authority.substr(scheme_end + 3);
  *port = scheme == "https" ? 443 : 80;
  const size_t bracket = rest.rfind(']');
  const size_t colon = rest.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    if (!absl::SimpleAtoi(rest.substr(colon + 1), port)) return false;
    rest.resize(colon);
  }
  *host = absl::AsciiStrToLower(rest);
  return !host->empty();
}

std::string GetAddrInfo(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return "";
  std::string address;
  char text[INET6_ADDRSTRLEN] = {};
  if (found->ai_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(found->ai_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) address = text;
  } else if (found->ai_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(found->ai_addr);
    if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text)) != nullptr) {
      address = Bracketed(text);
    }
  }
  freeaddrinfo(found);
  return address;
}

}  // namespace

absl::StatusOr<ResolveEntry> ParseResolveEntry(const std::string& entry) {
  const auto bad = [&entry](const char* why) {
    return absl::InvalidArgumentError(
        absl::StrCat("--resolve '", entry, "': ", why, " (expected HOST:PORT:ADDRESS)"));
  };
  const size_t first = entry.find(':');
  if (first == std::string::npos || first == 0) return bad("no HOST");
  const size_t second = entry.find(':', first + 1);
  if (second == std::string::npos) return bad("no ADDRESS");
  ResolveEntry parsed;
  parsed.host = absl::AsciiStrToLower(entry.substr(0, first));
  if (!absl::SimpleAtoi(entry.substr(first + 1, second - first - 1), &parsed.port) ||
      parsed.port < 1 || parsed.port > 65535) {
    return bad("the port is not a number in [1, 65535]");
  }
  if (second + 1 >= entry.size()) return bad("no ADDRESS");
  std::string address = entry.substr(second + 1);
  address.resize(std::min(address.size(), address.find(',')));
  if (address.empty()) return bad("no ADDRESS");
  parsed.address = Bracketed(address);
  if (LiteralAddress(parsed.address).empty()) return bad("ADDRESS is not an IP address");
  return parsed;
}

absl::StatusOr<std::unique_ptr<AddressBook>> AddressBook::Create(AddressBookOptions options) {
  if (options.max_entries < 1 || options.threads < 1) {
    return absl::InvalidArgumentError("AddressBook: max_entries and threads must be >= 1");
  }
  absl::flat_hash_map<std::string, std::string> fixed;
  for (const std::string& entry : options.resolve) {
    absl::StatusOr<ResolveEntry> parsed = ParseResolveEntry(entry);
    if (!parsed.ok()) return parsed.status();
    fixed.try_emplace(absl::StrCat(parsed->host, ":", parsed->port), parsed->address);
  }
  std::unique_ptr<AddressBook> book(new AddressBook(std::move(options)));
  book->fixed_ = std::move(fixed);
  for (int i = 0; i < book->options_.threads; ++i)
    book->threads_.emplace_back([b = book.get()] { b->Run(); });
  return book;
}

AddressBook::AddressBook(AddressBookOptions options) : options_(std::move(options)) {}

AddressBook::~AddressBook() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

std::optional<std::string> AddressBook::AddressOf(const std::string& authority) {
  std::string host;
  int port = 0;
  if (!SplitAuthority(authority, &host, &port)) return std::string();
  const std::string suffix = absl::StrCat(":", port);
  if (auto it = fixed_.find(host + suffix); it != fixed_.end()) return it->second + suffix;
  if (const std::string literal = LiteralAddress(host); !literal.empty()) return literal + suffix;
  const absl::Time now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = names_.find(host);
  if (it == names_.end()) {
    MakeRoomLocked(now);
    it = names_.try_emplace(host).first;
  }
  Entry& entry = it->second;
  if (!entry.looking_up && (!entry.answered || entry.expires <= now)) {
    entry.looking_up = true;  // an expired answer is still given meanwhile
    to_look_up_.push_back(host);
    wake_.notify_one();
  }
  if (!entry.answered) return std::nullopt;
  if (entry.address.empty()) return std::string();
  return entry.address + suffix;
}

void AddressBook::MakeRoomLocked(absl::Time now) {
  if (names_.size() < options_.max_entries) return;
  absl::erase_if(names_, [now](const auto& name) {
    return !name.second.looking_up && name.second.expires <= now;
  });
  if (names_.size() < options_.max_entries) return;
  // Entries being looked up stay (their threads write them back); at most
  // `threads` plus the queued ones, each asked for by a queued authority.
  absl::erase_if(names_, [](const auto& name) { return !name.second.looking_up; });
}

void AddressBook::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !to_look_up_.empty(); });
    if (stopping_) return;
    const std::string host = std::move(to_look_up_.front());
    to_look_up_.pop_front();
    lock.unlock();
    const std::string address = options_.lookup ? options_.lookup(host) : GetAddrInfo(host);
    const absl::Time now = Now();
    lock.lock();
    Entry& entry = names_[host];
    entry.looking_up = false;
    entry.answered = true;
    entry.address = address;
    entry.expires = now + (address.empty() ? options_.failure_lifetime : options_.lifetime);
  }
}

size_t AddressBook::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return names_.size();
}

}  // namespace crawler

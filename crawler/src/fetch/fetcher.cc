// Fetcher: validates options, owns the shared curl state and the workers, and
// hands each submission to a worker (worker_choice.h: by host, for reuse).
#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "crawler/fetch.h"
#include "fetch/address_book.h"
#include "fetch/curl_global.h"
#include "fetch/curl_share.h"
#include "fetch/fetch_counters.h"
#include "fetch/fetch_worker.h"
#include "fetch/worker_choice.h"

namespace crawler {
namespace {

using fetch_internal::ChooseWorker;
using fetch_internal::CurlShare;
using fetch_internal::FetchCounters;
using fetch_internal::FetchWorker;
using fetch_internal::TransferContext;
using fetch_internal::WorkerLoad;

absl::Status ValidateOptions(const FetchOptions& o) {
  if (o.threads < 1) return absl::InvalidArgumentError("fetch: threads must be >= 1");
  if (o.max_transfers < o.threads) {
    return absl::InvalidArgumentError("fetch: max_transfers must be >= threads");
  }
  if (!(o.connect_timeout_s > 0) || !(o.total_timeout_s > 0)) {
    return absl::InvalidArgumentError("fetch: connect and total timeouts must be > 0");
  }
  if (o.low_speed_bytes < 0 || !(o.low_speed_time_s > 0)) {
    return absl::InvalidArgumentError(
        "fetch: low_speed_bytes must be >= 0 and low_speed_time_s > 0");
  }
  if (o.max_body == 0) return absl::InvalidArgumentError("fetch: max_body must be > 0");
  if (o.cookies && !o.load_cookies.empty()) {
    std::FILE* f = std::fopen(o.load_cookies.c_str(), "r");
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("fetch: cannot read the cookie file ", o.load_cookies));
    }
    std::fclose(f);
  }
  for (const auto& [file, flag] :
       {std::pair{&o.ca_file, "--ca-certificate"}, std::pair{&o.client_cert, "--certificate"},
        std::pair{&o.client_key, "--private-key"}}) {
    if (file->empty()) continue;
    std::FILE* f = std::fopen(file->c_str(), "r");
    if (f == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " ", *file, ": cannot read it: ", std::strerror(errno)));
    }
    std::fclose(f);
  }
  if (!o.client_key.empty() && o.client_cert.empty()) {
    return absl::InvalidArgumentError("--private-key needs --certificate (the key's certificate)");
  }
  for (const std::string& entry : o.resolve) {
    // A typo is a usage error naming it, not an entry curl silently skips.
    if (absl::StatusOr<ResolveEntry> valid = ParseResolveEntry(entry); !valid.ok()) {
      return valid.status();
    }
  }
  return absl::OkStatus();
}

}  // namespace

class Fetcher::Impl {
 public:
  Impl(const FetchOptions& options, Callback on_done)
      : options_(options), callback_(std::move(on_done)) {}

  absl::Status Start() {
    absl::StatusOr<std::unique_ptr<CurlShare>> share = CurlShare::Create(options_.cookies);
    if (!share.ok()) return share.status();
    share_ = *std::move(share);
    if (options_.cookies && !options_.load_cookies.empty()) {
      if (!JarCommand(CURLOPT_COOKIEFILE, options_.load_cookies, "RELOAD")) {
        return absl::InternalError("fetch: curl could not load the cookie file");
      }
    }
    if (options_.cookies && !options_.restored_cookies.empty() && !RestoreCookies()) {
      return absl::InternalError("fetch: curl could not take the checkpoint's cookies");
    }
    for (const std::string& entry : options_.resolve) {
      curl_slist* longer = curl_slist_append(resolve_.get(), entry.c_str());
      if (longer == nullptr) return absl::ResourceExhaustedError("fetch: --resolve: no memory");
      resolve_.release();
      resolve_.reset(longer);
    }
    context_ = {.options = &options_,
                .share = share_->handle(),
                .connections_opened = &counters_.connections_opened,
                .connections_closed = &counters_.connections_closed,
                .proxy_in_environment = fetch_internal::ProxyInEnvironment(),
                .resolve = resolve_.get()};
    for (int i = 0; i < options_.threads; ++i) {
      // Spread max_transfers evenly; the first workers take the remainder.
      const int slots = options_.max_transfers / options_.threads +
                        (i < options_.max_transfers % options_.threads ? 1 : 0);
      auto worker = FetchWorker::Create(context_, &callback_, &counters_, slots);
      if (!worker.ok()) return worker.status();
      workers_.push_back(*std::move(worker));
    }
    return absl::OkStatus();
  }

  bool Submit(FetchRequest request) {
    if (!accepting_.load(std::memory_order_acquire)) return false;
    // Counted before the hand-over: the callback may run before Enqueue returns.
    counters_.in_flight.fetch_add(1, std::memory_order_relaxed);
    if (!WorkerFor(request.url).Enqueue(std::move(request))) {
      counters_.in_flight.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    counters_.submitted.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  size_t InFlight() const { return counters_.in_flight.load(std::memory_order_acquire); }
  FetchStats Stats() const { return counters_.Snapshot(); }

  void Shutdown(std::chrono::milliseconds grace) {
    std::lock_guard lock(shutdown_mu_);
    accepting_.store(false, std::memory_order_release);
    const auto deadline = FetchWorker::Clock::now() + grace;
    for (auto& worker : workers_) worker->Stop(deadline);
    for (auto& worker : workers_) worker->Join();
    if (options_.cookies && !options_.save_cookies.empty() && !cookies_saved_) {
      cookies_saved_ = true;
      JarCommand(CURLOPT_COOKIEJAR, options_.save_cookies, "FLUSH");
    }
  }

 private:
  // Loads (RELOAD, with CURLOPT_COOKIEFILE) or writes (FLUSH, with
  // CURLOPT_COOKIEJAR) the shared jar through a handle of its own.
  bool JarCommand(CURLoption file_option, const std::string& path, const char* command) {
    CURL* easy = curl_easy_init();
    if (easy == nullptr) return false;
    bool ok = curl_easy_setopt(easy, CURLOPT_SHARE, share_->handle()) == CURLE_OK &&
              curl_easy_setopt(easy, file_option, path.c_str()) == CURLE_OK &&
              curl_easy_setopt(easy, CURLOPT_COOKIELIST, command) == CURLE_OK;
    curl_easy_setopt(easy, CURLOPT_COOKIEJAR, nullptr);  // cleanup must not write again
    curl_easy_cleanup(easy);
    return ok;
  }

  // Each line of restored_cookies into the jar (CURLOPT_COOKIELIST takes
  // Netscape lines as they are).
  bool RestoreCookies() {
    CURL* easy = curl_easy_init();
    if (easy == nullptr) return false;
    bool ok = curl_easy_setopt(easy, CURLOPT_SHARE, share_->handle()) == CURLE_OK;
    for (std::string_view text = options_.restored_cookies; ok && !text.empty();) {
      const size_t end = std::min(text.find('\n'), text.size());
      const std::string line(text.substr(0, end));
      text.remove_prefix(std::min(end + 1, text.size()));
      if (line.empty()) continue;
      ok = curl_easy_setopt(easy, CURLOPT_COOKIELIST, line.c_str()) == CURLE_OK;
    }
    curl_easy_cleanup(easy);
    return ok;
  }

 public:
  std::string CookieJar() const {
    if (!options_.cookies || share_ == nullptr) return "";
    CURL* easy = curl_easy_init();
    if (easy == nullptr) return "";
    std::string jar;
    struct curl_slist* cookies = nullptr;
    if (curl_easy_setopt(easy, CURLOPT_SHARE, share_->handle()) == CURLE_OK &&
        curl_easy_getinfo(easy, CURLINFO_COOKIELIST, &cookies) == CURLE_OK) {
      for (const curl_slist* line = cookies; line != nullptr; line = line->next) {
        absl::StrAppend(&jar, line->data, "\n");
      }
    }
    curl_slist_free_all(cookies);
    curl_easy_cleanup(easy);
    return jar;
  }

 private:
  FetchWorker& WorkerFor(std::string_view url) {
    std::vector<WorkerLoad> loads;
    loads.reserve(workers_.size());
    for (const auto& worker : workers_) loads.push_back({worker->Load(), worker->slots()});
    return *workers_[ChooseWorker(url, loads)];
  }

  // Declaration order is destruction order reversed: workers go first, then
  // the share handle their easy handles used.
  const FetchOptions options_;
  const Callback callback_;
  FetchCounters counters_;
  std::unique_ptr<CurlShare> share_;
  // FetchOptions::resolve for CURLOPT_RESOLVE; outlives the workers' handles.
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> resolve_{nullptr,
                                                                       &curl_slist_free_all};
  TransferContext context_;
  std::vector<std::unique_ptr<FetchWorker>> workers_;
  std::atomic<bool> accepting_{true};
  bool cookies_saved_ = false;  // guarded by shutdown_mu_
  std::mutex shutdown_mu_;
};

absl::StatusOr<std::unique_ptr<Fetcher>> Fetcher::Create(const FetchOptions& options,
                                                         Callback on_done) {
  if (absl::Status valid = ValidateOptions(options); !valid.ok()) return valid;
  if (!on_done) return absl::InvalidArgumentError("fetch: a callback is required");
  if (absl::Status init = fetch_internal::EnsureCurlGlobalInit(); !init.ok()) return init;
  auto impl = std::make_unique<Impl>(options, std::move(on_done));
  if (absl::Status started = impl->Start(); !started.ok()) return started;
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(impl)));
}

Fetcher::Fetcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Fetcher::~Fetcher() { impl_->Shutdown(std::chrono::milliseconds(0)); }
bool Fetcher::Submit(FetchRequest request) { return impl_->Submit(std::move(request)); }
size_t Fetcher::InFlight() const { return impl_->InFlight(); }
FetchStats Fetcher::Stats() const { return impl_->Stats(); }
std::string Fetcher::CookieJar() const { return impl_->CookieJar(); }
void Fetcher::Shutdown(std::chrono::milliseconds grace) { impl_->Shutdown(grace); }

}  // namespace crawler

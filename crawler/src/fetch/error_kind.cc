#include "fetch/error_kind.h"

#include "crawler/fetch.h"

namespace crawler::fetch_internal {
namespace {

bool IsTlsError(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string ErrorKind(CURLcode code, const AbortCause& cause, std::string_view detail) {
  switch (code) {
    case CURLE_OK:
      return "";
    case CURLE_WRITE_ERROR:
      if (cause.body_too_large) return std::string(kFetchBodyTooLarge);
      if (cause.headers_too_large) return std::string(kFetchHeadersTooLarge);
      if (cause.type_rejected) return std::string(kFetchTypeRejected);
      break;
    case CURLE_COULDNT_CONNECT:
      return std::string(cause.private_address ? kFetchPrivateAddress : kFetchConnect);
    case CURLE_OPERATION_TIMEDOUT:
      return std::string(kFetchTimeout);
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return std::string(kFetchDns);
    // The peer went away: RST, or FIN before the promised Content-Length
    // (PARTIAL_FILE), or before any response at all (GOT_NOTHING).
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return std::string(kFetchReset);
    // Only http(s) URLs reach curl (Transfer::Prepare refuses the rest), so
    // curl's "unsupported protocol" is about the answer: "HTTP/1.7", a
    // garbage status line (not a "scheme" error of the URL).
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_WEIRD_SERVER_REPLY:
      return std::string(kFetchBadResponse);
    // curl's own cap on one header line (100 KiB in curl 7.x) reports itself
    // as out of memory; ours on the block is above.
    case CURLE_OUT_OF_MEMORY:
      return std::string(kFetchHeadersTooLarge);
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return std::string(kFetchHttp2);
    default:
      if (IsTlsError(code)) return std::string(kFetchTls);
      break;
  }
  std::string kind = "other: ";
  kind += detail.empty() ? std::string_view(curl_easy_strerror(code)) : detail;
  return kind;
}

}  // namespace crawler::fetch_internal

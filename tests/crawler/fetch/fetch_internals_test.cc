// The fetch room's two tables, tested directly because a loopback test
// cannot reach them: which addresses block_private refuses (only 127.0.0.1
// is reachable here), and how curl's codes map to error kinds (a DNS failure
// would need traffic off loopback). The headers are the room's private ones.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>

#include "../../../crawler/src/fetch/address_policy.h"
#include "../../../crawler/src/fetch/error_kind.h"
#include "../../../crawler/src/fetch/redact_credentials.h"
#include "crawler/fetch.h"

namespace crawler::fetch_internal {
namespace {

bool NonPublic(const std::string& text) {
  sockaddr_storage storage{};
  if (text.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    EXPECT_EQ(inet_pton(AF_INET, text.c_str(), &v4->sin_addr), 1) << text;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &v6->sin6_addr), 1) << text;
  }
  return IsNonPublicAddress(reinterpret_cast<const sockaddr*>(&storage));
}

TEST(AddressPolicyTest, SpecialPurposeRangesAreNotPublic) {
  // RFC 6890 / IANA special-purpose registries, first and last of each range.
  for (const char* address : {"0.0.0.0",
                              "0.255.255.255",
                              "10.0.0.0",
                              "10.255.255.255",
                              "100.64.0.0",
                              "100.127.255.255",
                              "127.0.0.1",
                              "127.255.255.254",
                              "169.254.169.254",
                              "172.16.0.0",
                              "172.31.255.255",
                              "192.0.0.8",
                              "192.168.0.1",
                              "192.168.255.255",
                              "198.18.0.0",
                              "198.19.255.255",
                              "224.0.0.1",
                              "239.255.255.255",
                              "240.0.0.1",
                              "255.255.255.255",
                              "::",
                              "::1",
                              "fc00::1",
                              "fdff:ffff::1",
                              "fe80::1",
                              "febf::1",
                              "fec0::1",
                              "ff02::1",
                              "::ffff:10.0.0.1",
                              "::ffff:127.0.0.1",
                              "64:ff9b::a9fe:a9fe",
                              "2002:c0a8:0101::1"}) {
    EXPECT_TRUE(NonPublic(address)) << address;
  }
}

TEST(AddressPolicyTest, PublicUnicastIsAllowed) {
  for (const char* address :
       {"1.1.1.1",         "8.8.8.8",        "9.255.255.255",    "11.0.0.0",
        "100.63.255.255",  "100.128.0.0",    "126.255.255.255",  "128.0.0.0",
        "169.253.255.255", "172.15.255.255", "172.32.0.0",       "192.167.255.255",
        "192.169.0.0",     "198.20.0.0",     "223.255.255.255",  "2001:4860::8888",
        "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"}) {
    EXPECT_FALSE(NonPublic(address)) << address;
  }
}

TEST(ErrorKindTest, CurlCodesMapToTheContractsKinds) {
  const AbortCause none;
  EXPECT_EQ(ErrorKind(CURLE_OK, none, ""), "");
  EXPECT_EQ(ErrorKind(CURLE_OPERATION_TIMEDOUT, none, ""), kFetchTimeout);
  EXPECT_EQ(ErrorKind(CURLE_COULDNT_CONNECT, none, ""), kFetchConnect);
  EXPECT_EQ(ErrorKind(CURLE_COULDNT_RESOLVE_HOST, none, ""), kFetchDns);
  EXPECT_EQ(ErrorKind(CURLE_RECV_ERROR, none, ""), kFetchReset);
  EXPECT_EQ(ErrorKind(CURLE_SEND_ERROR, none, ""), kFetchReset);
  EXPECT_EQ(ErrorKind(CURLE_GOT_NOTHING, none, ""), kFetchReset);
  EXPECT_EQ(ErrorKind(CURLE_PARTIAL_FILE, none, ""), kFetchReset);
  EXPECT_EQ(ErrorKind(CURLE_PEER_FAILED_VERIFICATION, none, ""), kFetchTls);
  EXPECT_EQ(ErrorKind(CURLE_SSL_CONNECT_ERROR, none, ""), kFetchTls);
  EXPECT_EQ(ErrorKind(CURLE_UNSUPPORTED_PROTOCOL, none, ""), kFetchBadResponse);
  EXPECT_EQ(ErrorKind(CURLE_WEIRD_SERVER_REPLY, none, ""), kFetchBadResponse);
  EXPECT_EQ(ErrorKind(CURLE_OUT_OF_MEMORY, none, ""), kFetchHeadersTooLarge);
  EXPECT_EQ(ErrorKind(CURLE_HTTP2, none, ""), kFetchHttp2);
  EXPECT_EQ(ErrorKind(CURLE_HTTP2_STREAM, none, ""), kFetchHttp2);
}

TEST(ErrorKindTest, OurOwnAbortsAreNamedByTheirCause) {
  EXPECT_EQ(ErrorKind(CURLE_WRITE_ERROR, {.body_too_large = true}, ""), kFetchBodyTooLarge);
  EXPECT_EQ(ErrorKind(CURLE_WRITE_ERROR, {.headers_too_large = true}, ""), kFetchHeadersTooLarge);
  EXPECT_EQ(ErrorKind(CURLE_COULDNT_CONNECT, {.private_address = true}, ""), kFetchPrivateAddress);
}

TEST(ErrorKindTest, AnythingElseCarriesCurlsMessage) {
  EXPECT_EQ(ErrorKind(CURLE_WRITE_ERROR, {}, ""),
            std::string("other: ") + curl_easy_strerror(CURLE_WRITE_ERROR));
  EXPECT_EQ(ErrorKind(CURLE_BAD_CONTENT_ENCODING, {}, "Error while processing content unencoding"),
            "other: Error while processing content unencoding");
}

// The request block kept for WARC request records loses its
// credentials; the scheme word and every other line stay.
TEST(RedactCredentials, AuthorizationValuesOnly) {
  std::string block =
      "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic Y3Jhd2xlcjpwdw==\r\n"
      "proxy-authorization: Digest username=\"u\", response=\"9f\"\r\n"
      "X-Authorization-Note: kept\r\nAuthorization:tokenonly\r\n\r\n";
  RedactCredentials(block);
  EXPECT_EQ(block,
            "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic [redacted]\r\n"
            "proxy-authorization: Digest [redacted]\r\n"
            "X-Authorization-Note: kept\r\nAuthorization:[redacted]\r\n\r\n");
}

}  // namespace
}  // namespace crawler::fetch_internal

// Hosts: IDNA (UTS #46 nontransitional through ICU), IPv4 and IPv6, as the
// WHATWG URL Standard's host parser defines them.
#include <string>

#include "crawler/url.h"
#include "gtest/gtest.h"

namespace crawler {
namespace {

// The serialized host of `input`, or "FAIL".
std::string HostOf(std::string_view input) {
  const absl::StatusOr<Url> url = Url::Parse(input);
  return url.ok() ? std::string(url->host()) : "FAIL";
}

TEST(HostTest, WhatwgIdnaToPunycode) {
  EXPECT_EQ(HostOf("http://B\xC3\xBC"
                   "cher.de/"),
            "xn--bcher-kva.de");                                          // Bücher
  EXPECT_EQ(HostOf("http://\xC3\xA9xample.com/"), "xn--xample-9ua.com");  // éxample
  EXPECT_EQ(HostOf("http://\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E.jp/"), "xn--wgv71a119e.jp");
  // Nontransitional: ß stays ß (transitional processing would give "fass").
  EXPECT_EQ(HostOf("http://fa\xC3\x9F.de/"), "xn--fa-hia.de");
  // Full-width letters and the ideographic full stop map to ASCII.
  EXPECT_EQ(HostOf("http://\xEF\xBD\x85\xEF\xBD\x98.com\xE3\x80\x82/"), "ex.com.");
  // Percent-decoding happens before IDNA.
  EXPECT_EQ(HostOf("http://%65xample.com/"), "example.com");
  EXPECT_EQ(HostOf("http://b%C3%BCcher.de/"), "xn--bcher-kva.de");
  EXPECT_EQ(HostOf("http://EXAMPLE.com/"), "example.com");
}

TEST(HostTest, WhatwgInvalidDomainsFail) {
  EXPECT_EQ(HostOf("http://ex ample.com/"), "FAIL");  // forbidden code point
  EXPECT_EQ(HostOf("http://exa%mple.com/"), "FAIL");  // '%' left after decoding
  EXPECT_EQ(HostOf("http://a%00b.com/"), "FAIL");     // decoded NUL
  EXPECT_EQ(HostOf("http://a\xE2\x80\x8D"
                   "b.com/"),
            "FAIL");                                    // ZWJ fails CheckJoiners
  EXPECT_EQ(HostOf("http://\xFF\xFE.com/"), "FAIL");    // not UTF-8
  EXPECT_EQ(HostOf("http://xn--a.\xCE\xB2/"), "FAIL");  // invalid Punycode, non-ASCII name
}

TEST(HostTest, WhatwgAsciiDomainsPassIdnaUntouched) {
  // whatwg/url#914: an ASCII domain is only lower-cased, even with a bogus
  // "xn--" label; hyphen positions and label lengths are not checked.
  EXPECT_EQ(HostOf("http://XN--/"), "xn--");
  EXPECT_EQ(HostOf("http://r2---sn-abc.example.com/"), "r2---sn-abc.example.com");
  EXPECT_EQ(HostOf("http://-a-.com/"), "-a-.com");
  EXPECT_EQ(HostOf("http://" + std::string(100, 'a') + ".com/"), std::string(100, 'a') + ".com");
}

TEST(HostTest, WhatwgNonSpecialHostsAreOpaque) {
  EXPECT_EQ(HostOf("foo://Ex%41mple/"), "Ex%41mple");
  EXPECT_EQ(HostOf("foo://\xC3\xA4/"), "%C3%A4");
  EXPECT_EQ(HostOf("foo://a<b/"), "FAIL");
}

TEST(HostTest, WhatwgIpv4Forms) {
  EXPECT_EQ(HostOf("http://192.168.0.1/"), "192.168.0.1");
  EXPECT_EQ(HostOf("http://0x7f.1/"), "127.0.0.1");
  EXPECT_EQ(HostOf("http://192.168.257/"), "192.168.1.1");
  EXPECT_EQ(HostOf("http://3232235777/"), "192.168.1.1");
  EXPECT_EQ(HostOf("http://0300.0250.0.01/"), "192.168.0.1");
  EXPECT_EQ(HostOf("http://4294967295/"), "255.255.255.255");
  EXPECT_EQ(HostOf("http://1.2.3.4./"), "1.2.3.4");
  EXPECT_EQ(HostOf("http://0x/"), "0.0.0.0");
  EXPECT_EQ(HostOf("foo://0x7f.1/"), "0x7f.1");  // opaque host: no IPv4 parsing
}

TEST(HostTest, WhatwgDomainsEndingInANumberMustBeIpv4) {
  EXPECT_EQ(HostOf("http://1.2.3.256/"), "FAIL");
  EXPECT_EQ(HostOf("http://256.0.0.1/"), "FAIL");
  EXPECT_EQ(HostOf("http://1.2.3.4.5/"), "FAIL");
  EXPECT_EQ(HostOf("http://4294967296/"), "FAIL");
  EXPECT_EQ(HostOf("http://foo.09/"), "FAIL");
  EXPECT_EQ(HostOf("http://example.0x/"), "FAIL");
  EXPECT_EQ(HostOf("http://" + std::string(40, '9') + "/"), "FAIL");
  EXPECT_EQ(HostOf("http://1.2.3.09a/"), "1.2.3.09a");  // last label not a number
}

TEST(HostTest, WhatwgIpv6Serialization) {
  EXPECT_EQ(HostOf("http://[0:0:0:0:0:0:0:1]/"), "[::1]");
  EXPECT_EQ(HostOf("http://[2001:DB8::1]/"), "[2001:db8::1]");
  EXPECT_EQ(HostOf("http://[1:0:0:2:0:0:3:0]/"), "[1::2:0:0:3:0]");  // first longest run
  EXPECT_EQ(HostOf("http://[1:0:2:0:0:0:3:4]/"), "[1:0:2::3:4]");
  EXPECT_EQ(HostOf("http://[1:2:3:4:5:6:7:0]/"), "[1:2:3:4:5:6:7:0]");  // one zero: no "::"
  EXPECT_EQ(HostOf("http://[::]/"), "[::]");
  EXPECT_EQ(HostOf("http://[::ffff:192.168.0.1]/"), "[::ffff:c0a8:1]");
  const absl::StatusOr<Url> url = Url::Parse("http://[::1]:8080/x");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host(), "[::1]");
  EXPECT_EQ(url->port(), 8080);
  EXPECT_EQ(url->Authority(), "http://[::1]:8080");
}

TEST(HostTest, WhatwgInvalidIpv6Fails) {
  for (const char* input :
       {"http://[::1/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[1::2::3]/", "http://[::1.2.3]/",
        "http://[g::1]/", "http://[1:2:3:4:5:6:7]/", "http://[::1.2.3.4.5]/",
        "http://[::01.2.3.4]/", "http://[:1]/", "http://[1:]/", "http://[::256.0.0.1]/"}) {
    EXPECT_EQ(HostOf(input), "FAIL") << input;
  }
}

}  // namespace
}  // namespace crawler

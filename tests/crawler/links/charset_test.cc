// Charset sniffing and conversion (crawler/charset.h). Cases named "Spec..."
// follow the HTML standard's encoding sniffing (13.2.3.2) and the Encoding
// Standard's labels; the others are our documented choices.
#include "crawler/charset.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace crawler {
namespace {

TEST(ContentTypeCharsetTest, FindsTheParameterInAnyCaseAndQuoting) {
  EXPECT_EQ(ContentTypeCharset("text/html; charset=utf-8"), "utf-8");
  EXPECT_EQ(ContentTypeCharset("text/html;CHARSET=\"Shift_JIS\""), "Shift_JIS");
  EXPECT_EQ(ContentTypeCharset("text/html; q=1 ; charset = 'koi8-r' ; x=y"), "koi8-r");
  EXPECT_EQ(ContentTypeCharset("text/html"), "");
  EXPECT_EQ(ContentTypeCharset(""), "");
  EXPECT_EQ(ContentTypeCharset("text/html; charsetx=1"), "");
}

TEST(PrescanMetaCharsetTest, SpecMetaCharsetAttribute) {
  EXPECT_EQ(PrescanMetaCharset("<!doctype html><html><head><meta charset=\"windows-1251\">"),
            "windows-1251");
  EXPECT_EQ(PrescanMetaCharset("<META CHARSET=koi8-r>"), "koi8-r");
  EXPECT_EQ(PrescanMetaCharset("<meta/charset='gbk'/>"), "gbk");
}

TEST(PrescanMetaCharsetTest, SpecHttpEquivContentTypeNeedsThePragma) {
  EXPECT_EQ(PrescanMetaCharset(
                "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-2\">"),
            "ISO-8859-2");
  // Order of the attributes does not matter.
  EXPECT_EQ(PrescanMetaCharset("<meta content='text/html;charset=euc-jp' http-equiv=content-type>"),
            "euc-jp");
  // content=...charset without http-equiv=content-type declares nothing.
  EXPECT_EQ(PrescanMetaCharset("<meta name=x content=\"text/html; charset=euc-jp\">"), "");
}

TEST(PrescanMetaCharsetTest, SpecSkipsCommentsAndOtherTagsAttributes) {
  EXPECT_EQ(PrescanMetaCharset("<!-- <meta charset=big5> --><meta charset=utf-8>"), "utf-8");
  EXPECT_EQ(PrescanMetaCharset("<div title='<meta charset=big5>'><meta charset=koi8-r>"), "koi8-r");
}

TEST(PrescanMetaCharsetTest, SpecLooksOnlyAtTheFirst1024Bytes) {
  const std::string late = std::string(1100, ' ') + "<meta charset=koi8-r>";
  EXPECT_EQ(PrescanMetaCharset(late), "");
  const std::string early = std::string(1000, ' ') + "<meta charset=koi8-r>";
  EXPECT_EQ(PrescanMetaCharset(early), "koi8-r");
}

TEST(SniffHtmlCharsetTest, SpecByteOrderMarkWinsOverEverything) {
  const SniffedCharset sniffed =
      SniffHtmlCharset("\xEF\xBB\xBF<meta charset=koi8-r>", "text/html; charset=big5");
  EXPECT_EQ(sniffed.name, "UTF-8");
  EXPECT_EQ(sniffed.bom, "\xEF\xBB\xBF");
  EXPECT_EQ(SniffHtmlCharset(std::string("\xFF\xFE<\0", 4), "").name, "UTF-16LE");
  EXPECT_EQ(SniffHtmlCharset(std::string("\xFE\xFF\0<", 4), "").name, "UTF-16BE");
}

TEST(SniffHtmlCharsetTest, SpecTransportBeatsMeta) {
  EXPECT_EQ(SniffHtmlCharset("<meta charset=koi8-r>", "text/html; charset=utf-8").name, "UTF-8");
}

TEST(SniffHtmlCharsetTest, SpecLatin1AndAsciiLabelsMeanWindows1252) {
  EXPECT_EQ(SniffHtmlCharset("", "text/html; charset=ISO-8859-1").name, "windows-1252");
  EXPECT_EQ(SniffHtmlCharset("<meta charset=us-ascii>", "").name, "windows-1252");
}

TEST(SniffHtmlCharsetTest, SpecMetaClaimingUtf16MeansUtf8) {
  EXPECT_EQ(SniffHtmlCharset("<meta charset=utf-16le>", "").name, "UTF-8");
}

TEST(SniffHtmlCharsetTest, UnknownLabelsAreIgnored) {
  EXPECT_EQ(SniffHtmlCharset("<meta charset=koi8-r>", "text/html; charset=no-such").name, "KOI8-R");
  EXPECT_EQ(SniffHtmlCharset("caf\xC3\xA9 <meta charset=bogus-9>", "text/html; charset=\"\"").name,
            "UTF-8");
}

TEST(SniffHtmlCharsetTest, OurFallbackIsUtf8WhenValidElseWindows1252) {
  EXPECT_EQ(SniffHtmlCharset("plain ascii", "").name, "UTF-8");
  EXPECT_EQ(SniffHtmlCharset("caf\xC3\xA9", "").name, "UTF-8");
  EXPECT_EQ(SniffHtmlCharset("caf\xE9", "").name, "windows-1252");
  // Overlong and surrogate encodings are not valid UTF-8.
  EXPECT_EQ(SniffHtmlCharset("\xC0\xAF", "").name, "windows-1252");
  EXPECT_EQ(SniffHtmlCharset("\xED\xA0\x80", "").name, "windows-1252");
  EXPECT_EQ(SniffHtmlCharset("\xF0\x9F\x98\x80 ok", "").name, "UTF-8");
  EXPECT_EQ(SniffHtmlCharset("truncated \xF0\x9F\x98", "").name, "windows-1252");
}

TEST(DecodeHtmlTest, Utf8IsParsedInPlaceWithoutACopy) {
  const std::string body = "<p>caf\xC3\xA9</p>";
  const Utf8Html html = DecodeHtml(body, "text/html; charset=utf-8");
  EXPECT_EQ(html.utf8.data(), body.data());
  EXPECT_EQ(html.utf8.size(), body.size());
  EXPECT_TRUE(html.storage.empty());
}

TEST(DecodeHtmlTest, Utf8BomIsDroppedWithoutACopy) {
  const std::string body = "\xEF\xBB\xBF<p>x</p>";
  const Utf8Html html = DecodeHtml(body, "");
  EXPECT_EQ(html.utf8, "<p>x</p>");
  EXPECT_EQ(html.utf8.data(), body.data() + 3);
}

TEST(DecodeHtmlTest, AsciiInAnAsciiCompatibleCharsetIsNotCopied) {
  const std::string body = "<a href=/x>x</a>";
  const Utf8Html html = DecodeHtml(body, "text/html; charset=iso-8859-2");
  EXPECT_EQ(html.utf8.data(), body.data());
}

TEST(DecodeHtmlTest, Windows1252BytesBecomeUtf8) {
  // 0xE9 is e-acute in windows-1252 and 0x80 the euro sign (not a C1 control,
  // which is why latin1 labels mean windows-1252).
  const Utf8Html html = DecodeHtml("caf\xE9 \x80", "text/html; charset=iso-8859-1");
  EXPECT_EQ(html.charset, "windows-1252");
  EXPECT_EQ(html.utf8, "caf\xC3\xA9 \xE2\x82\xAC");
}

TEST(DecodeHtmlTest, MetaDeclaredShiftJisIsConverted) {
  // "日本" in Shift_JIS is 93 FA 96 7B.
  const Utf8Html html = DecodeHtml("<meta charset=shift_jis>\x93\xFA\x96\x7B", "");
  EXPECT_EQ(html.utf8, "<meta charset=shift_jis>\xE6\x97\xA5\xE6\x9C\xAC");
}

TEST(DecodeHtmlTest, Utf16WithBomIsConverted) {
  const std::string body("\xFF\xFE<\0p\0>\0\xE9\0", 10);
  const Utf8Html html = DecodeHtml(body, "");
  EXPECT_EQ(html.charset, "UTF-16LE");
  EXPECT_EQ(html.utf8, "<p>\xC3\xA9");
}

TEST(DecodeHtmlTest, UnknownDeclaredCharsetFallsBackWithoutFailing) {
  const Utf8Html html = DecodeHtml("caf\xE9", "text/html; charset=x-nonsense");
  EXPECT_EQ(html.charset, "windows-1252");
  EXPECT_EQ(html.utf8, "caf\xC3\xA9");
}

TEST(DecodeHtmlTest, EbcdicIsNotMistakenForAscii) {
  // In IBM037 (EBCDIC) 0xC1 is 'A'; ASCII-only bytes still need conversion.
  const Utf8Html html = DecodeHtml("\xC1\xC2", "text/html; charset=ibm037");
  EXPECT_EQ(html.utf8, "AB");
}

TEST(DecodeHtmlTest, MovingKeepsTheViewValid) {
  Utf8Html html = DecodeHtml("x\xE9", "text/html; charset=windows-1252");
  ASSERT_FALSE(html.storage.empty());
  Utf8Html moved = std::move(html);
  EXPECT_EQ(moved.utf8, "x\xC3\xA9");
  EXPECT_EQ(moved.utf8.data(), moved.storage.data());
  const std::string body = "in place";
  Utf8Html view = DecodeHtml(body, "");
  Utf8Html moved_view = std::move(view);
  EXPECT_EQ(moved_view.utf8.data(), body.data());
}

}  // namespace
}  // namespace crawler

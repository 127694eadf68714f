// The Content-Type values the test site answers with.
#ifndef TESTSITE_SRC_CONTENT_TYPES_H_
#define TESTSITE_SRC_CONTENT_TYPES_H_

namespace testsite {

inline constexpr char kHtml[] = "text/html; charset=utf-8";

}  // namespace testsite

#endif  // TESTSITE_SRC_CONTENT_TYPES_H_

#include "url/idna.h"

#include <unicode/uidna.h>

namespace crawler::url_internal {
namespace {

// ICU's UTS46 object is immutable once opened and documented as safe to
// share between threads; it is created once and never freed.
const UIDNA* Uts46() {
  static const UIDNA* const idna = [] {
    UErrorCode status = U_ZERO_ERROR;
    UIDNA* opened = uidna_openUTS46(
        UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ | UIDNA_NONTRANSITIONAL_TO_ASCII, &status);
    return U_SUCCESS(status) ? opened : nullptr;
  }();
  return idna;
}

// Errors that UTS #46 reports only because of options the URL Standard turns
// off: CheckHyphens (hyphen positions) and VerifyDnsLength (label and name
// lengths, empty labels).
constexpr uint32_t kIgnoredErrors = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG |
                                    UIDNA_ERROR_DOMAIN_NAME_TOO_LONG | UIDNA_ERROR_LEADING_HYPHEN |
                                    UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;

}  // namespace

bool DomainToAscii(std::string_view domain, std::string& out) {
  const UIDNA* idna = Uts46();
  if (idna == nullptr || domain.size() > INT32_MAX / 4) return false;
  const size_t start = out.size();
  // Punycode rarely needs more than twice the UTF-8 length; retry if so.
  int32_t capacity = static_cast<int32_t>(domain.size() * 2 + 64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    out.resize(start + capacity);
    UErrorCode status = U_ZERO_ERROR;
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    const int32_t length =
        uidna_nameToASCII_UTF8(idna, domain.data(), static_cast<int32_t>(domain.size()),
                               out.data() + start, capacity, &info, &status);
    if (status == U_BUFFER_OVERFLOW_ERROR && attempt == 0) {
      capacity = length;
      continue;
    }
    if (U_FAILURE(status) || (info.errors & ~kIgnoredErrors) != 0 || length <= 0) break;
    out.resize(start + length);
    return true;
  }
  out.resize(start);
  return false;
}

}  // namespace crawler::url_internal

// CLDR plural rules through the ICU Foundation links in (swift-foundation-icu, ICU 76),
// not a second ICU from the system: the toolchain's `_FoundationICU` library exports ICU's C
// functions with a `swift_` prefix and ships no headers, so the few this file calls are
// declared here, as ICU's unicode/upluralrules.h and unicode/uenum.h define them. A
// toolchain that renamed them fails the link, never silently. The static clupd carries
// them from lib_FoundationICU.a (their data, plurals.res, is in CICUData's subset); a
// development build calls lib_FoundationICU.so.
#include "clup_plurals.h"

#include <stdint.h>
#include <string.h>

typedef struct UPluralRules UPluralRules;
typedef struct UEnumeration UEnumeration;
typedef int UErrorCode;     // an enum in ICU: 0 is U_ZERO_ERROR, above 0 a failure
typedef uint16_t UChar;     // char16_t
#define U_FAILURE(status) ((status) > 0)
#define U_SUCCESS(status) ((status) <= 0)

UPluralRules *swift_uplrules_open(const char *locale, UErrorCode *status);
int32_t swift_uplrules_select(const UPluralRules *rules, double number, UChar *keyword, int32_t capacity,
                              UErrorCode *status);
UEnumeration *swift_uplrules_getKeywords(const UPluralRules *rules, UErrorCode *status);
void swift_uplrules_close(UPluralRules *rules);
const char *swift_uenum_next(UEnumeration *enumeration, int32_t *length, UErrorCode *status);
void swift_uenum_close(UEnumeration *enumeration);

int clup_plural_category(const char *locale, double number, char *category, int capacity) {
    if (!locale || !category || capacity <= 0) return -1;
    UErrorCode status = 0;
    UPluralRules *rules = swift_uplrules_open(locale, &status);
    if (U_FAILURE(status) || !rules) return -1;
    UChar keyword[32];
    int32_t length = swift_uplrules_select(rules, number, keyword, 32, &status);
    swift_uplrules_close(rules);
    if (U_FAILURE(status) || length <= 0 || length >= capacity || length >= 32) return -1;
    // The keywords are ASCII ("zero", "one", "two", "few", "many", "other").
    for (int32_t i = 0; i < length; i++) {
        if (keyword[i] > 0x7F) return -1;
        category[i] = (char)keyword[i];
    }
    category[length] = '\0';
    return length;
}

int clup_plural_categories(const char *locale, char *out, int capacity) {
    if (!locale || !out || capacity <= 0) return -1;
    UErrorCode status = 0;
    UPluralRules *rules = swift_uplrules_open(locale, &status);
    if (U_FAILURE(status) || !rules) return -1;
    UEnumeration *keywords = swift_uplrules_getKeywords(rules, &status);
    int written = 0;
    if (U_SUCCESS(status) && keywords) {
        const char *keyword;
        int32_t length;
        while ((keyword = swift_uenum_next(keywords, &length, &status)) != NULL && U_SUCCESS(status)) {
            if (length < 0 || written + (written > 0) + length >= capacity) { written = -1; break; }
            if (written > 0) out[written++] = ' ';
            memcpy(out + written, keyword, (size_t)length);
            written += length;
        }
        swift_uenum_close(keywords);
    } else {
        written = -1;
    }
    swift_uplrules_close(rules);
    if (written >= 0) out[written] = '\0';
    return U_FAILURE(status) ? -1 : written;
}

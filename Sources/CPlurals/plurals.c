// CLDR plural rules through the system's ICU (libicu72 in Debian 12). ICU renames every
// function with its version (uplrules_select_72) by macros, which Swift cannot call
// through: these two functions are compiled against ICU's headers and call it for Swift.
#include "clup_plurals.h"

#include <string.h>
#include <unicode/upluralrules.h>
#include <unicode/uenum.h>

int clup_plural_category(const char *locale, double number, char *category, int capacity) {
    if (!locale || !category || capacity <= 0) return -1;
    UErrorCode status = U_ZERO_ERROR;
    UPluralRules *rules = uplrules_open(locale, &status);
    if (U_FAILURE(status) || !rules) return -1;
    UChar keyword[32];
    int32_t length = uplrules_select(rules, number, keyword, 32, &status);
    uplrules_close(rules);
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
    UErrorCode status = U_ZERO_ERROR;
    UPluralRules *rules = uplrules_open(locale, &status);
    if (U_FAILURE(status) || !rules) return -1;
    UEnumeration *keywords = uplrules_getKeywords(rules, &status);
    int written = 0;
    if (U_SUCCESS(status) && keywords) {
        const char *keyword;
        int32_t length;
        while ((keyword = uenum_next(keywords, &length, &status)) != NULL && U_SUCCESS(status)) {
            if (written + (written > 0) + length >= capacity) { written = -1; break; }
            if (written > 0) out[written++] = ' ';
            memcpy(out + written, keyword, (size_t)length);
            written += length;
        }
        uenum_close(keywords);
    } else {
        written = -1;
    }
    uplrules_close(rules);
    if (written >= 0) out[written] = '\0';
    return U_FAILURE(status) ? -1 : written;
}

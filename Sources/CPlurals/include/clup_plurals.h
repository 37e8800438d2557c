#ifndef CLUP_PLURALS_H
#define CLUP_PLURALS_H

/// The CLDR plural category ("one", "few", "many", "other"…) of `number` in `locale`
/// ("fr"), written NUL-terminated into `category`. Returns its length, or -1 when ICU
/// cannot tell (an unknown locale falls back to ICU's root rules: "other").
int clup_plural_category(const char *locale, double number, char *category, int capacity);

/// The categories `locale` uses, separated by single spaces, NUL-terminated, in ICU's
/// order. Returns the length written, or -1.
int clup_plural_categories(const char *locale, char *out, int capacity);

#endif

// libFuzzer's entry for programs that have their own main (SwiftPM gives every executable
// one): runs the fuzzer on `callback` with the command line's options and corpora.
#include <stddef.h>
#include <stdint.h>

typedef int (*clup_fuzz_callback)(const uint8_t *data, size_t size);

int LLVMFuzzerRunDriver(int *argc, char ***argv, clup_fuzz_callback callback);

/// LLVMFuzzerRunDriver with argc and argv by value, as Swift's CommandLine has them.
int clup_fuzz_main(int argc, char **argv, clup_fuzz_callback callback);

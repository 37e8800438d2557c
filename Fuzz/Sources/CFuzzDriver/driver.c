#include "CFuzzDriver.h"

int clup_fuzz_main(int argc, char **argv, clup_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}

// Written by scripts/icu-subset (scripts/lib/icu_subset.py): do not edit.
// ICU's data for clupd and clupctl, in place of the toolchain's whole set: the symbol the
// toolchain's udata.cpp.o refers to, defined here, so that the linker never takes
// icu_packaged_data.cpp.o out of lib_FoundationICU.a. Hidden: nothing outside the program
// sees it. icudt-subset.dat: 5675008 bytes,
// SHA-256 f6860d106469d8d026c680cd60ccf6a90f3ed300b47a5f96d87ef13d8d895237
// (named here so that a new data file is a new source file to the build).
    .section .rodata.clup_icu_data, "a", @progbits
    .balign 16
    .globl icudt76_dat
    .hidden icudt76_dat
    .type icudt76_dat, @object
icudt76_dat:
    .incbin "icudt-subset.dat"
    .size icudt76_dat, . - icudt76_dat
    .section .note.GNU-stack, "", @progbits

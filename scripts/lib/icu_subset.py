#!/usr/bin/env python3
"""Writes the ICU data clupd and clupctl link in place of the toolchain's whole set.

Foundation on Linux compiles ICU's whole data set (34 MB: every locale, converter,
dictionary and transliterator) into every program, as the symbol `icudtNN_dat` of the
member `icu_packaged_data.cpp.o` of the toolchain's `lib_FoundationICU.a`. The C target
`CICUData` defines that symbol itself, from the subset this script writes: the linker then
never takes the member out of the archive (one definition, ours; see docs/notes).

The subset keeps what a totem can ask for: every item that is not a locale's (time zones
and metazones, plural and calendar data, likely subtags, Unicode properties and names,
normalisation, break rules, converter aliases), and the locale items of root and of the
five languages the totem speaks, in every tree. It drops the other locales, the character
converters, the break iterators' dictionaries (Chinese, Japanese, Thai…), number
spell-out and transliteration.

The data file is ICU's "common data" (CmnD): a header, a table of contents (a count, then
for each item a name offset and a data offset, both from the table's start; the names
sorted by byte value, as ICU searches them), the names, then the items, each on a 16-byte
boundary. Items are self-contained, and are copied byte for byte.

Usage: icu_subset.py [--check | --binary PROGRAM]
  Writes Sources/CICUData/icudata.S and Sources/CICUData/icudt-subset.dat from the
  toolchain's archive; with --check, writes nothing and fails if they differ from what it
  would write (a toolchain with other ICU data: run scripts/icu-subset, commit the result).
  With --binary, checks that PROGRAM (a static build, not yet stripped) holds this subset
  as its one ICU data set.

Only a build with the Swift runtime linked in statically (`--static-swift-stdlib`: the
package's, the bench's) takes it: a development build links Foundation's shared libraries,
whose ICU library keeps its own whole set and does not look at the program's.
"""
import argparse
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

LANGUAGES = ("it", "en", "fr", "de", "es")  # CLupKiosk's TextCatalog.languages
LOCALE = re.compile(r"^[a-z]{2,3}(_[A-Za-z0-9]+)*$")
DROPPED_TREES = ("translit", "rbnf")
DROPPED_KINDS = ("cnv", "dict")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.path.join(ROOT, "Sources", "CICUData")


def fail(message):
    sys.exit(f"icu-subset: {message}")


def toolchain_archive():
    out = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True).stdout
    match = re.search(r'"runtimeResourcePath"\s*:\s*"([^"]+)"', out)
    if not match:
        fail("swiftc -print-target-info names no runtimeResourcePath")
    path = os.path.join(os.path.dirname(match.group(1)), "swift_static", "linux", "lib_FoundationICU.a")
    if not os.path.exists(path):
        fail(f"{path} is missing: this toolchain links no ICU of its own")
    return path


def defined_symbols(path):
    """(name, size) of the defined data symbols of an object file."""
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    return [(f[3], int(f[1], 16)) for f in (line.split() for line in out.splitlines()) if len(f) == 4]


def toolchain_data(archive, work):
    member = "icu_packaged_data.cpp.o"
    obj = os.path.join(work, member)
    with open(obj, "wb") as f:
        subprocess.run(["ar", "p", archive, member], stdout=f, check=True)
    symbols = [(n, s) for n, s in defined_symbols(obj) if re.fullmatch(r"icudt\d+_dat", n)]
    if len(symbols) != 1 or len(defined_symbols(obj)) != 1:
        fail(f"{archive}({member}) is not one icudtNN_dat symbol alone: {defined_symbols(obj)}")
    name, size = symbols[0]
    udata = os.path.join(work, "udata.cpp.o")
    with open(udata, "wb") as f:
        subprocess.run(["ar", "p", archive, "udata.cpp.o"], stdout=f, check=True)
    undefined = subprocess.run(["nm", "--undefined-only", udata], capture_output=True, text=True, check=True).stdout.split()
    if name not in undefined:
        fail(f"udata.cpp.o no longer refers to {name}: ICU finds its data some other way")
    raw = os.path.join(work, "rodata")
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.rodata", obj, raw], check=True)
    with open(raw, "rb") as f:
        data = f.read()
    if len(data) != size:
        fail(f"{member}'s .rodata is {len(data)} bytes, {name} {size}: not the symbol alone")
    return name, data


def items(data):
    header = struct.unpack_from("<H", data, 0)[0]
    if data[2:4] != b"\xda\x27" or data[12:16] != b"CmnD":
        fail("the toolchain's ICU data is not ICU common data (CmnD)")
    count = struct.unpack_from("<I", data, header)[0]
    entries = []
    for i in range(count):
        name_offset, data_offset = struct.unpack_from("<II", data, header + 4 + 8 * i)
        end = data.index(b"\0", header + name_offset)
        entries.append((data[header + name_offset:end], data_offset))
    offsets = [offset for _, offset in entries]
    if offsets != sorted(offsets):
        fail("the toolchain's items are not stored in the order of their names: each one's length cannot be told")
    result = []
    for i, (name, offset) in enumerate(entries):
        end = entries[i + 1][1] if i + 1 < count else len(data) - header
        result.append((name, data[header + offset:header + end]))
    return data[:header], result


def kept(name):
    parts = name.decode().split("/")[1:]
    tree = parts[0] if len(parts) > 1 else ""
    stem, _, kind = parts[-1].rpartition(".")
    if tree in DROPPED_TREES or kind in DROPPED_KINDS:
        return False
    if kind == "res" and stem not in ("root", "pool", "res_index") and LOCALE.match(stem):
        return any(stem == language or stem.startswith(language + "_") for language in LANGUAGES)
    return True


def common_data(header, chosen):
    """The common data file holding `chosen` ((name, bytes) in byte order of the names)."""
    names = b"".join(name + b"\0" for name, _ in chosen)
    name_offsets, offset = [], 4 + 8 * len(chosen)
    for name, _ in chosen:
        name_offsets.append(offset)
        offset += len(name) + 1
    offset += -(len(header) + offset) % 16
    table, body = [struct.pack("<I", len(chosen))], []
    for name_offset, (_, item) in zip(name_offsets, chosen):
        table.append(struct.pack("<II", name_offset, offset))
        body.append(item + b"\0" * (-len(item) % 16))
        offset += len(body[-1])
    contents = b"".join(table) + names
    contents += b"\0" * (-(len(header) + len(contents)) % 16)
    return header + contents + b"".join(body)


def assembly(symbol, subset):
    size, digest = len(subset), hashlib.sha256(subset).hexdigest()
    return f"""// Written by scripts/icu-subset (scripts/lib/icu_subset.py): do not edit.
// ICU's data for clupd and clupctl, in place of the toolchain's whole set: the symbol the
// toolchain's udata.cpp.o refers to, defined here, so that the linker never takes
// icu_packaged_data.cpp.o out of lib_FoundationICU.a. Hidden: nothing outside the program
// sees it. icudt-subset.dat: {size} bytes,
// SHA-256 {digest}
// (named here so that a new data file is a new source file to the build).
    .section .rodata.clup_icu_data, "a", @progbits
    .balign 16
    .globl {symbol}
    .hidden {symbol}
    .type {symbol}, @object
{symbol}:
    .incbin "icudt-subset.dat"
    .size {symbol}, . - {symbol}
    .section .note.GNU-stack, "", @progbits
"""


def check_binary(program):
    out = subprocess.run(["nm", "-S", program], capture_output=True, text=True, check=True).stdout
    found = [f for f in (line.split() for line in out.splitlines()) if len(f) == 4 and re.fullmatch(r"icudt\d+_dat", f[3])]
    subset = os.path.getsize(os.path.join(TARGET, "icudt-subset.dat"))
    if len(found) != 1 or int(found[0][1], 16) != subset:
        fail(f"{program} does not hold Sources/CICUData's {subset} bytes as its one ICU data set: "
             f"{[(f[3], int(f[1], 16)) for f in found] or 'no icudtNN_dat symbol (stripped?)'}")
    print(f"icu-subset: {program} holds the subset ({found[0][3]}, {subset} bytes)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--binary")
    args = parser.parse_args()
    if args.binary:
        return check_binary(args.binary)
    with tempfile.TemporaryDirectory() as work:
        symbol, data = toolchain_data(toolchain_archive(), work)
    header, everything = items(data)
    names = [name for name, _ in everything]
    if names != sorted(names):
        fail("the toolchain's item names are not in byte order")
    chosen = [(name, item) for name, item in everything if kept(name)]
    subset = common_data(header, chosen)
    again, check = items(subset)
    if again != header or check != chosen:
        fail("the subset written does not read back as the items chosen")
    files = {"icudt-subset.dat": subset, "icudata.S": assembly(symbol, subset).encode()}
    if args.check:
        stale = [n for n, content in files.items()
                 if not os.path.exists(os.path.join(TARGET, n)) or open(os.path.join(TARGET, n), "rb").read() != content]
        if stale:
            fail(f"Sources/CICUData/{' and '.join(stale)} differ from this toolchain's ICU data ({symbol}): "
                 "run scripts/icu-subset and commit the result")
        print(f"icu-subset: Sources/CICUData matches this toolchain's {symbol} ({len(chosen)} of {len(everything)} items, "
              f"{len(subset)} of {len(data)} bytes)")
        return
    for n, content in files.items():
        with open(os.path.join(TARGET, n), "wb") as f:
            f.write(content)
    print(f"icu-subset: {symbol}: {len(chosen)} of {len(everything)} items, {len(subset)} of {len(data)} bytes")


if __name__ == "__main__":
    main()

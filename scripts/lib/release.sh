# shellcheck shell=bash
# clupd's release build as debian/rules makes the package's (`make -f debian/rules
# clupd-flags`), for scripts that measure or profile what a totem runs. Sourced with the
# argument `profiling`: the same without clupd's linker script (debian/clupd-layout.ld),
# for the clupd scripts/order-file runs under valgrind, which names only the functions in
# .text.
# Source it from the checkout's root; it sets RELEASE, the `swift build` command line
# (scratch .build-release), or stops the script when make gives no flags (a failed make:
# empty flags would make a debug build).
if [ "${1:-}" = profiling ]; then flags=$(make -s -f debian/rules release-flags); else flags=$(make -s -f debian/rules clupd-flags); fi
read -r -a flags <<<"$flags"
[ ${#flags[@]} -gt 0 ] || { echo "$(basename "$0"): debian/rules gave no release flags" >&2; exit 1; }
RELEASE=(swift build --scratch-path .build-release "${flags[@]}")
unset flags

# Removes clupd from the release build, so that the next build links it again: SwiftPM does
# not know debian/clupd.order and debian/clupd-layout.ld are inputs of the link.
release_relink_clupd() {
  rm -f "$("${RELEASE[@]}" --show-bin-path)/clupd"
}

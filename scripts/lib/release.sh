# shellcheck shell=bash
# The release build as debian/rules makes the package's (`make -f debian/rules
# release-flags`), for scripts that measure or profile what a totem runs
# (RELEASE_FLAGS_TARGET=profile-flags: the same without the code's linker script, which
# scripts/order-file profiles).
# Source it from the checkout's root; it sets RELEASE, the `swift build` command line
# (scratch .build-release), or stops the script when make gives no flags (a failed make:
# empty flags would make a debug build).
flags=$(make -s -f debian/rules "${RELEASE_FLAGS_TARGET:-release-flags}")
read -r -a flags <<<"$flags"
[ ${#flags[@]} -gt 0 ] || { echo "$(basename "$0"): debian/rules gave no release flags" >&2; exit 1; }
RELEASE=(swift build --scratch-path .build-release "${flags[@]}")
unset flags

# Removes clupd from the release build, so that the next build links it again: SwiftPM does
# not know debian/clupd.order is an input of the link.
release_relink_clupd() {
  rm -f "$("${RELEASE[@]}" --show-bin-path)/clupd"
}

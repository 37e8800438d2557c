# shellcheck shell=bash
# Shared by scripts/kernel-vm and scripts/systemd-vm: Debian's own kernel, the one
# linux-image-amd64 points at, extracted into CACHE/kernel (not installed: no initramfs
# hooks, nothing touched outside the cache) with its modules depmod'ed.
#
#   debian_kernel CACHE     sets KERNEL_VERSION and KERNEL (the vmlinuz); the modules are
#                           in CACHE/kernel/lib/modules/KERNEL_VERSION

kernel_package() {
  apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -n 1
}

debian_kernel() {
  local cache=$1 package
  package=$(kernel_package || true)
  if [ -z "$package" ]; then
    # A machine whose package lists were cleaned (scripts/setup updates them only when it
    # installs something).
    apt-get update >/dev/null 2>&1 || true
    package=$(kernel_package || true)
  fi
  [ -n "$package" ] || { echo "no linux-image-amd64 known to apt (run apt-get update)" >&2; return 1; }
  KERNEL_VERSION=${package#linux-image-}
  KERNEL=$cache/kernel/boot/vmlinuz-$KERNEL_VERSION
  if [ ! -f "$KERNEL" ]; then
    echo "fetching $package" >&2
    (cd "$cache" && rm -f linux-image-*.deb && apt-get download "$package" >/dev/null)
    rm -rf "$cache/kernel"
    dpkg-deb -x "$cache"/linux-image-*.deb "$cache/kernel"
    /usr/sbin/depmod -b "$cache/kernel" "$KERNEL_VERSION"
  fi
}

# The .ko files MODULE needs, itself last, one per line.
module_files() {
  local cache=$1 module=$2
  /usr/sbin/modprobe -d "$cache/kernel" -S "$KERNEL_VERSION" --show-depends "$module" | awk '$1 == "insmod" { print $2 }'
}

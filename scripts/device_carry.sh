#!/usr/bin/env bash
# Prepare .carry/: what a GPU machine with CUDA, PyTorch and CuPy but no Debian development
# packages and no network lacks to build and test mxffi. Run here (Debian 12, apt works); the
# folder then travels with the working tree to that machine, where scripts/gpu_test.sh uses it.
#
#   .carry/root/      the Debian packages below, unpacked with dpkg -x (headers, CMake packages,
#                     libraries): DLPack, dmlc-core, GoogleTest (with its static libraries),
#                     OpenBLAS (pthread build, cblas.h), Highway (the vectorized CPU kernels;
#                     its shared libraries come along, libhwy1's libhwy_contrib.so.1 with the
#                     sort's vectorized quicksort among them: hwy's CMake package checks they
#                     exist)
#   .carry/fallback/  libgfortran5 and libquadmath0, which OpenBLAS needs at run time; used there
#                     only when the machine has no libgfortran.so.5 of its own
#   .carry/wheels/    Python wheels for cp312 manylinux x86_64 of the packages named in
#                     MXFFI_CARRY_WHEELS (none by default: the machine's image already has every
#                     module the test suite imports: numpy, scipy, pytest, ml_dtypes, pybind11,
#                     torch, cupy, Cython, scikit-build-core)
#
# Documentation, man pages, changelogs and pkg-config files are left out. The three folders and
# MANIFEST are then packed into .carry/carry.tar.xz (about 10 MiB; unpacked, OpenBLAS alone is
# 43 MiB) and the folders removed; scripts/gpu_test.sh unpacks the archive there. The archive
# and the working tree's tracked files together must stay under the 64 MiB a device run may
# carry, and the script fails when they do not.
# usage: scripts/device_carry.sh            (MXFFI_CARRY_WHEELS="name==version ..." to add wheels)
set -euo pipefail
cd "$(dirname "$0")/.."
limit_mib=64
carry=.carry
debs=(libdlpack-dev libdmlc-dev libdmlc0 libgtest-dev libgmock-dev libopenblas-dev
  libopenblas-pthread-dev libopenblas0 libopenblas0-pthread liblapacke liblapacke-dev libtmglib3
  libkissfft-dev libsleef-dev libsleef3 libhwy-dev libhwy1)
fallback_debs=(libgfortran5 libquadmath0)

rm -rf "$carry"
mkdir -p "$carry/debs" "$carry/root" "$carry/fallback" "$carry/wheels"
echo "== apt-get download: ${debs[*]} ${fallback_debs[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
(cd "$carry/debs" && apt-get download -q "${debs[@]}" "${fallback_debs[@]}" > /dev/null)
for p in "${debs[@]}"; do dpkg -x "$carry/debs/${p}"_*.deb "$carry/root"; done
for p in "${fallback_debs[@]}"; do dpkg -x "$carry/debs/${p}"_*.deb "$carry/fallback"; done
versions=$(for f in "$carry"/debs/*.deb; do dpkg-deb -f "$f" Package Version | paste -sd' '; done)
rm -rf "$carry/debs"

# Debian makes libopenblas.so and cblas.h in the usual places with update-alternatives when the
# package is installed; dpkg -x runs no scripts, so make those links here (relative, so the
# folder may move).
arch_lib="$carry/root/usr/lib/x86_64-linux-gnu"
ln -s openblas-pthread/libopenblas.so "$arch_lib/libopenblas.so"
ln -s openblas-pthread/libopenblas.so.0 "$arch_lib/libopenblas.so.0"
ln -s openblas-pthread/cblas.h "$carry/root/usr/include/x86_64-linux-gnu/cblas.h"
# liblapacke needs libblas.so.3 and liblapack.so.3: OpenBLAS's, as update-alternatives picks.
ln -s openblas-pthread/libblas.so.3 "$arch_lib/libblas.so.3"
ln -s openblas-pthread/liblapack.so.3 "$arch_lib/liblapack.so.3"
for f in "$arch_lib/libopenblas.so" "$arch_lib/libopenblas.so.0" \
  "$arch_lib/libblas.so.3" "$arch_lib/liblapack.so.3" "$arch_lib/liblapacke.so" \
  "$carry/root/usr/include/x86_64-linux-gnu/cblas.h"; do
  [ -e "$f" ] || { echo "device_carry.sh: $f points at nothing" >&2; exit 1; }
done

# What the build and the tests never read: documentation, sources of the static libraries that
# are carried built, the static OpenBLAS (the shared one is linked), pkg-config files.
for d in "$carry/root" "$carry/fallback"; do
  rm -rf "$d/usr/share/doc" "$d/usr/share/man" "$d/usr/share/lintian" "$d/usr/src"
  find "$d" -name '*.pc' -delete
  find "$d" -type d -name pkgconfig -empty -delete
done
find "$carry/root" \( -name 'libopenblas*.a' -o -name 'liblapacke*.a' -o -name 'libtmglib*.a' \) \
  -delete

wheels=${MXFFI_CARRY_WHEELS:-}
if [ -n "$wheels" ]; then
  echo "== pip download: $wheels"
  # shellcheck disable=SC2086 # one argument per requirement
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp --platform manylinux2014_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d "$carry/wheels" $wheels
fi

{
  echo "# Made by scripts/device_carry.sh on $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "$versions"
  ls "$carry/wheels"
} > "$carry/MANIFEST"
echo "== $carry:"
sed 's/^/  /' "$carry/MANIFEST"
du -sh "$carry/root" "$carry/fallback" "$carry/wheels"
echo "== packing into $carry/carry.tar.xz"
tar -C "$carry" -cf - root fallback wheels MANIFEST | xz -T0 -6 > "$carry/carry.tar.xz"
rm -rf "$carry/root" "$carry/fallback" "$carry/wheels"
kib=$(du -sk "$carry" | cut -f1)
tree_kib=$(($(git ls-files -z | xargs -0 du -cb 2> /dev/null | tail -n 1 | cut -f1) / 1024))
echo "== total: $(((kib + tree_kib) / 1024)) MiB ($kib KiB packed, $tree_kib KiB of tracked" \
  "files) of the $limit_mib MiB a device run carries"
if [ $((kib + tree_kib)) -ge $((limit_mib * 1024)) ]; then
  echo "device_carry.sh: $carry and the tree are $((kib + tree_kib)) KiB, over the" \
    "$limit_mib MiB limit" >&2
  exit 1
fi

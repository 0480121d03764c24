#!/usr/bin/env bash
# The C ABI check (scripts/test.sh runs it): libmxffi's C surface, the MXFFI* functions and every
# type c_api.h declares (the frozen layouts such as MXFFINDArrayObj, which no function reaches,
# included: abidiff --non-reachable-types), compared with the committed baseline abi/libmxffi.abi
# by libabigail. Any difference fails; so does a c_api.h version other than the baseline's. A
# change is made by bumping the C ABI version in c_api.h as docs/c_abi.md says and regenerating
# the baseline with scripts/abi_baseline.sh, which refuses a change without the bump.
# usage: scripts/abi_check.sh [libmxffi.so built with -DMXFFI_ABI_DEBUG_INFO=ON] (default:
#        build/libmxffi.so)
set -euo pipefail
# shellcheck source=scripts/abi_common.sh
source "$(dirname "$0")/abi_common.sh"
lib=${1:-$abi_root/build/libmxffi.so}
current=$(mktemp --suffix=.abi)
trap 'rm -f "$current"' EXIT
abi_dump "$lib" "$current"
recorded=$(cat "$abi_baseline_version")
declared=$(abi_header_version)
status=0
report=$(abi_diff "$abi_baseline" "$current") || status=$?
if [ "$status" -ne 0 ]; then
  echo "$report"
  echo
  if [ $((status & 8)) -ne 0 ]; then
    echo "ABI check: INCOMPATIBLE change to libmxffi's C ABI (abidiff exit $status) against" \
      "abi/libmxffi.abi (C ABI $recorded)."
  else
    echo "ABI check: libmxffi's C ABI changed (abidiff exit $status) against abi/libmxffi.abi" \
      "(C ABI $recorded)."
  fi
  echo "If the change is meant: bump MXFFI_VERSION_MAJOR (an incompatible change) or" \
    "MXFFI_VERSION_MINOR (an addition) in include/mxffi/c_api.h as docs/c_abi.md says, then" \
    "run scripts/abi_baseline.sh and commit abi/."
  exit 1
fi
if [ "$recorded" != "$declared" ]; then
  echo "ABI check: c_api.h declares C ABI $declared but abi/libmxffi.abi was made at" \
    "$recorded; run scripts/abi_baseline.sh and commit abi/."
  exit 1
fi
echo "ABI check: libmxffi's C ABI matches abi/libmxffi.abi (C ABI $declared)"

#!/usr/bin/env bash
# Regenerate the C ABI baseline, abi/libmxffi.abi (and abi/libmxffi.version, the C ABI version
# it was made at), from a libmxffi built with -DMXFFI_ABI_DEBUG_INFO=ON. A baseline that differs
# from the committed one is written only if c_api.h's version was bumped as docs/c_abi.md says:
# the major for an incompatible change, the minor (or the major) for an addition.
# usage: scripts/abi_baseline.sh [libmxffi.so] (default: build/libmxffi.so)
set -euo pipefail
# shellcheck source=scripts/abi_common.sh
source "$(dirname "$0")/abi_common.sh"
lib=${1:-$abi_root/build/libmxffi.so}
new=$(mktemp --suffix=.abi)
trap 'rm -f "$new"' EXIT
abi_dump "$lib" "$new"
declared=$(abi_header_version)
if [ -f "$abi_baseline" ]; then
  recorded=$(cat "$abi_baseline_version")
  status=0
  abi_diff "$abi_baseline" "$new" > /dev/null || status=$?
  IFS=. read -r old_major old_minor _ <<< "$recorded"
  IFS=. read -r new_major new_minor _ <<< "$declared"
  if [ $((status & 8)) -ne 0 ] && [ "$new_major" -le "$old_major" ]; then
    echo "abi_baseline: the C ABI changed incompatibly since $recorded, but c_api.h's" \
      "MXFFI_VERSION_MAJOR is still $new_major; bump it (docs/c_abi.md)" >&2
    exit 1
  fi
  if [ "$status" -ne 0 ] && [ "$new_major" -eq "$old_major" ] &&
    [ "$new_minor" -le "$old_minor" ]; then
    echo "abi_baseline: the C ABI changed since $recorded, but c_api.h still declares" \
      "$declared; bump MXFFI_VERSION_MINOR (an addition) or MAJOR (docs/c_abi.md)" >&2
    exit 1
  fi
fi
mkdir -p "$(dirname "$abi_baseline")"
cp "$new" "$abi_baseline"
chmod 644 "$abi_baseline"
echo "$declared" > "$abi_baseline_version"
echo "abi_baseline: wrote abi/libmxffi.abi for C ABI $declared"

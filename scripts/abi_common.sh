# shellcheck shell=bash
# Shared by scripts/abi_check.sh and scripts/abi_baseline.sh: the ABI dump of libmxffi's C
# surface. Sourced, not run.

abi_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abi_baseline=$abi_root/abi/libmxffi.abi
abi_baseline_version=$abi_root/abi/libmxffi.version
abi_suppressions=$abi_root/abi/suppressions.abignore

# The C ABI version c_api.h declares: "major.minor.patch".
abi_header_version() {
  local h=$abi_root/include/mxffi/c_api.h part out=""
  for part in MAJOR MINOR PATCH; do
    out+=$(sed -n "s/^#define MXFFI_VERSION_${part} \([0-9]*\)$/\1/p" "$h").
  done
  echo "${out%.}"
}

# abi_dump LIB OUT: the ABI of LIB's exported MXFFI* functions and of every type its debug
# info holds (the c_api.h layouts that no function reaches included), as libabigail XML. LIB
# must carry the debug info of the files defining the C ABI (-DMXFFI_ABI_DEBUG_INFO=ON).
abi_dump() {
  local lib=$1 out=$2 list
  for tool in abidw abidiff nm readelf; do
    command -v "$tool" > /dev/null || {
      echo "ABI check: $tool is missing (apt-get install abigail-tools binutils)" >&2
      return 2
    }
  done
  [ -f "$lib" ] || { echo "ABI check: $lib does not exist" >&2; return 2; }
  if ! readelf --debug-dump=info "$lib" 2> /dev/null | grep "DW_AT_name.*MXFFIFuncCall$" > /dev/null; then
    echo "ABI check: $lib has no debug info for the C ABI; build it with" \
      "-DMXFFI_ABI_DEBUG_INFO=ON (pip: -Ccmake.define.MXFFI_ABI_DEBUG_INFO=ON)" >&2
    return 2
  fi
  list=$(mktemp)
  { echo "[abi_whitelist]"; nm -D --defined-only "$lib" | awk '$3 ~ /^MXFFI[A-Za-z0-9]*$/ {print "  " $3}'; } > "$list"
  abidw --load-all-types --kmi-whitelist "$list" --no-show-locs --type-id-style hash \
    --out-file "$out" "$lib"
  # Every exported MXFFI* function must be described, or a change to it would go unseen: one
  # defined in a file without debug info is an error naming the function.
  local sym missing=""
  for sym in $(tail -n +2 "$list"); do
    grep -q "<function-decl name='$sym'" "$out" || missing+=" $sym"
  done
  rm -f "$list"
  if [ -n "$missing" ]; then
    echo "ABI check: no debug info for$missing in $lib; add the file defining it to the" \
      "MXFFI_ABI_DEBUG_INFO source list in CMakeLists.txt" >&2
    return 2
  fi
  # The corpus names the file it was read from: the library's name, not this machine's path.
  sed -i "1s|path='[^']*'|path='libmxffi.so'|" "$out"
}

# abi_diff OLD NEW: abidiff's report on the C surface (c_api.h's types, reachable or not, and
# the MXFFI* functions); its exit status has bit 4 for a change and bit 8 for an incompatible one.
abi_diff() {
  abidiff --non-reachable-types --no-unreferenced-symbols --no-show-locs \
    --suppressions "$abi_suppressions" "$1" "$2"
}

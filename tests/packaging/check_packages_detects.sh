#!/bin/sh
# tests/packaging/check_packages_detects.sh BUILD_DIR — the packages check can fail:
# on a copy of tools/packages.txt without the libxsimd-dev line it must exit 1 and name
# the package and one of its headers (the bug of issue 14: xsimd is only a Recommends).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -q '^libxsimd-dev$' "$here/tools/packages.txt" || { echo "FAIL: packages.txt has no libxsimd-dev line to remove"; exit 1; }
grep -v '^libxsimd-dev$' "$here/tools/packages.txt" >"$tmp/packages.txt"
status=0
"$here/tools/check-packages" "$build" --packages "$tmp/packages.txt" >"$tmp/out" 2>&1 || status=$?
cat "$tmp/out"
[ "$status" -eq 1 ] || { echo "FAIL: expected exit 1 without libxsimd-dev, got $status"; exit 1; }
grep -q 'comes from libxsimd-dev' "$tmp/out" || { echo "FAIL: the package libxsimd-dev is not named"; exit 1; }
grep -q '/usr/include/xsimd/' "$tmp/out" || { echo "FAIL: no xsimd header is named"; exit 1; }
echo "ok: removing libxsimd-dev is caught"

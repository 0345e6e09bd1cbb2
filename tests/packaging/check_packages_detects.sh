#!/bin/sh
# tests/packaging/check_packages_detects.sh BUILD_DIR — the packages check can fail:
# on a copy of tools/packages.txt without the libtomlplusplus-dev line it must exit 1 and
# name the package and one of its headers (the bug of issue 14 was a header package
# missing from the list: then xsimd, which the build no longer includes since issue 23's
# kernels; toml++ is included by io/ and lessons/ and pulled in by no other package).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$1
pkg=libtomlplusplus-dev
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -q "^$pkg\$" "$here/tools/packages.txt" || { echo "FAIL: packages.txt has no $pkg line to remove"; exit 1; }
grep -v "^$pkg\$" "$here/tools/packages.txt" >"$tmp/packages.txt"
status=0
"$here/tools/check-packages" "$build" --packages "$tmp/packages.txt" >"$tmp/out" 2>&1 || status=$?
cat "$tmp/out"
[ "$status" -eq 1 ] || { echo "FAIL: expected exit 1 without $pkg, got $status"; exit 1; }
grep -q "comes from $pkg" "$tmp/out" || { echo "FAIL: the package $pkg is not named"; exit 1; }
grep -q '/usr/include/toml++/' "$tmp/out" || { echo "FAIL: no toml++ header is named"; exit 1; }
echo "ok: removing $pkg is caught"

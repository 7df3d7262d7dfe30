#!/usr/bin/env bash
# toon-fixtures.sh vendors the official TOON spec 3.3 conformance fixtures.
#
# It fetches exactly @toon-format/spec@3.3.2 with `npm pack` into a temporary
# directory and copies the encode/decode fixtures, SPEC.md and LICENSE into
# testdata/toon/. The toon package's conformance test reads them from there, so
# re-running this script is the only way those files should change.
set -euo pipefail

version="3.3.2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/testdata/toon"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$tmp" && npm pack --silent "@toon-format/spec@$version" >/dev/null)
tar -xzf "$tmp"/toon-format-spec-"$version".tgz -C "$tmp"
pkg="$tmp/package"

for kind in encode decode; do
	if ! ls "$pkg/tests/fixtures/$kind"/*.json >/dev/null 2>&1; then
		echo "toon-fixtures: no $kind fixtures in @toon-format/spec@$version" >&2
		exit 1
	fi
done

rm -rf "$dest/fixtures"
mkdir -p "$dest/fixtures/encode" "$dest/fixtures/decode"
cp "$pkg"/tests/fixtures/encode/*.json "$dest/fixtures/encode/"
cp "$pkg"/tests/fixtures/decode/*.json "$dest/fixtures/decode/"
cp "$pkg/SPEC.md" "$dest/SPEC.md"
cp "$pkg/LICENSE" "$dest/LICENSE"
printf '@toon-format/spec@%s\n' "$version" >"$dest/VERSION"

echo "toon-fixtures: vendored @toon-format/spec@$version into ${dest#"$root"/}"

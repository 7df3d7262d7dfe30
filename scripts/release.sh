#!/usr/bin/env bash
# Builds the release archives of dispatch, reproducibly:
#
#   scripts/release.sh VERSION [OUTDIR]     (OUTDIR defaults to dist/)
#
# For linux, darwin and windows on amd64 and arm64 it writes
# dispatch_VERSION_OS_ARCH.tar.gz (.zip for Windows) holding the binary
# (dispatch, or dispatch.exe) and README.md, then checksums.txt: the
# sha256 of each archive, as goreleaser writes it ("HASH  NAME").
#
# The same sources and Go toolchain give the same bytes: -trimpath (no
# build paths in the binary), -buildvcs=false with the commit passed in
# ldflags, CGO_ENABLED=0, and archives with sorted entries, fixed owners
# and every mtime set to the commit's time (SOURCE_DATE_EPOCH if set).
set -euo pipefail

version=${1:?usage: scripts/release.sh VERSION [OUTDIR]}
version=${version#v}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$root/dist}
cd "$root"

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit-dirty"
fi
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for t in $targets; do
	os=${t%/*} arch=${t#*/}
	name=dispatch_${version}_${os}_${arch}
	stage=$work/$name
	mkdir -p "$stage"
	bin=dispatch
	[ "$os" = windows ] && bin=dispatch.exe
	echo "release: $name"
	GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath -buildvcs=false \
		-ldflags "-s -w -buildid= -X main.version=$version -X main.commit=$commit" \
		-o "$stage/$bin" .
	cp README.md "$stage/README.md"
	chmod 0755 "$stage/$bin"
	chmod 0644 "$stage/README.md"
	touch -d "@$epoch" "$stage/$bin" "$stage/README.md" "$stage"
	if [ "$os" = windows ]; then
		rm -f "$out/$name.zip"
		# -X: no extra (uid, atime) fields; entries in the order given.
		(cd "$stage" && TZ=UTC zip -q -X "$out/$name.zip" README.md "$bin")
	else
		tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
			--format=gnu -C "$stage" -cf - "$bin" README.md | gzip -9n >"$out/$name.tar.gz"
	fi
done

(cd "$out" && sha256sum dispatch_"${version}"_*.tar.gz dispatch_"${version}"_*.zip >checksums.txt)
echo "release: archives and checksums.txt in $out"

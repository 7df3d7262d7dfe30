#!/usr/bin/env bash
# Cross-builds dispatch for every released target and runs go vet for each
# OS, so that a Unix-only call (syscall.Kill, O_NOFOLLOW, Mmap...) cannot
# land unnoticed. Nothing is written: binaries go to the null device.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
for t in $targets; do
	echo "crossbuild: build $t"
	GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go build -o /dev/null .
done
for os in linux darwin windows; do
	echo "crossbuild: vet GOOS=$os"
	GOOS=$os go vet ./...
done

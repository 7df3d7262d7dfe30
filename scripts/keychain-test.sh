#!/usr/bin/env bash
# The OS keychain token store (--token-store keychain) against a real
# keychain: on Linux a gnome-keyring Secret Service on a private D-Bus
# session bus, started here and gone when the tests end; elsewhere the
# OS's own keychain, under a test service name the tests empty.
#
# A second session locks the login keyring, so that the next call makes
# gnome-keyring show a password prompt, on a virtual X display (Xvfb)
# where nobody answers it: the call must end at its time limit.
#
# Installs gnome-keyring, dbus and xvfb with apt-get when they are missing.
# DISPATCH_KEYCHAIN_TEST=1 makes the tests fail, not skip, when no
# keychain answers. Usage: bash scripts/keychain-test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."
export DISPATCH_KEYCHAIN_TEST=1
tests=(go test -count=1 -run Keychain "$@" ./keychain ./connections .)

if [ "$(uname -s)" != Linux ]; then
	exec "${tests[@]}"
fi

packages="gnome-keyring dbus xvfb"
if ! command -v gnome-keyring-daemon >/dev/null || ! command -v dbus-run-session >/dev/null || ! command -v Xvfb >/dev/null; then
	echo "keychain-test: installing $packages"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y --no-install-recommends $packages >/dev/null ||
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends $packages >/dev/null; }
fi

# A keyring of its own: never the user's, deleted at exit.
work=$(mktemp -d)
xvfb=
cleanup() {
	if [ -n "$xvfb" ]; then kill "$xvfb" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# in_session CMD...: runs CMD on a new session bus with a gnome-keyring
# whose login keyring is created with a throwaway password and unlocked,
# as a desktop login does; the daemon ends with the bus.
in_session() {
	rm -rf "$work/runtime" "$work/data"
	mkdir -m 0700 "$work/runtime" "$work/data"
	XDG_RUNTIME_DIR="$work/runtime" XDG_DATA_HOME="$work/data" dbus-run-session -- sh -c '
		printf keychain-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
		exec "$@"
	' keychain-test "$@" 2> >(grep -v -e '^dbus-daemon.*fd limit' -e '^$' >&2)
}

echo "== keychain tests, Secret Service unlocked"
in_session "${tests[@]}"

echo "== keychain tests, Secret Service locked, a prompt nobody answers"
Xvfb -displayfd 3 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb=$!
for _ in $(seq 50); do
	[ -s "$work/display" ] && break
	sleep 0.1
done
[ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; echo "keychain-test: Xvfb did not start" >&2; exit 1; }
DISPLAY=":$(head -n1 "$work/display")" DISPATCH_KEYCHAIN_LOCK_TEST=1 \
	in_session go test -count=1 -run KeychainLocked -v ./keychain

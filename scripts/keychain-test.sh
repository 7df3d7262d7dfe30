#!/usr/bin/env bash
# The OS keychain token store (--token-store keychain) against a real
# keychain: on Linux a gnome-keyring Secret Service on a private D-Bus
# session bus, started here and gone when the tests end; elsewhere the
# OS's own keychain, under a test service name the tests empty.
#
# Installs gnome-keyring (and dbus) with apt-get when they are missing.
# DISPATCH_KEYCHAIN_TEST=1 makes the tests fail, not skip, when no
# keychain answers. Usage: bash scripts/keychain-test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."
export DISPATCH_KEYCHAIN_TEST=1
tests=(go test -count=1 -run Keychain "$@" ./keychain ./connections .)

if [ "$(uname -s)" != Linux ]; then
	exec "${tests[@]}"
fi

if ! command -v gnome-keyring-daemon >/dev/null || ! command -v dbus-run-session >/dev/null; then
	echo "keychain-test: installing gnome-keyring and dbus"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends gnome-keyring dbus >/dev/null ||
		{ apt-get update >/dev/null && apt-get install -y --no-install-recommends gnome-keyring dbus >/dev/null; }
fi

# A keyring of its own: never the user's, deleted at exit.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -m 0700 "$work/runtime" "$work/data"
export XDG_RUNTIME_DIR="$work/runtime" XDG_DATA_HOME="$work/data"

# The login keyring is created with this throwaway password and unlocked,
# as a desktop login does; the daemon ends with the session bus.
dbus-run-session -- sh -c '
	printf keychain-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
	exec "$@"
' keychain-test "${tests[@]}"

package keychain

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	dbus "github.com/godbus/dbus/v5"
)

// TestKeychainLocked_FailsInTime: a locked Secret Service collection makes
// go-keyring ask for a password prompt, which nobody answers here: the call
// ends at the time limit (or at the prompt's refusal) with an
// UnavailableError, instead of hanging. It locks the session's login
// keyring, so it runs only where scripts/keychain-test.sh asks for it, in
// a session bus of its own.
func TestKeychainLocked_FailsInTime(t *testing.T) {
	if os.Getenv("DISPATCH_KEYCHAIN_LOCK_TEST") != "1" {
		t.Skip("locks the login keyring: only under scripts/keychain-test.sh (DISPATCH_KEYCHAIN_LOCK_TEST=1)")
	}
	kc := testKeychain(t, 2*time.Second)
	bus, err := dbus.SessionBus()
	if err != nil {
		t.Fatal(err)
	}
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	collection := dbus.ObjectPath("/org/freedesktop/secrets/aliases/default")
	err = bus.Object("org.freedesktop.secrets", "/org/freedesktop/secrets").
		Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{collection}).Store(&locked, &prompt)
	if err != nil {
		t.Fatalf("lock the login keyring: %v", err)
	}
	start := time.Now()
	err = kc.Set(context.Background(), "account", "secret")
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) {
		t.Fatalf("set in a locked keyring: %v; want an UnavailableError", err)
	}
	t.Logf("after %s: %v", time.Since(start).Round(time.Millisecond), err)
	// The call that never came back holds the slot: the next fails too.
	if _, err := kc.Get(context.Background(), "account"); !errors.As(err, &unavailable) {
		t.Fatalf("get after: %v; want an UnavailableError", err)
	}
}

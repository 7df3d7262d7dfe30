package keychain

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// testKeychain is the real OS keychain under a service name of the test's
// own; skipped when none answers (scripts/keychain-test.sh starts one).
func testKeychain(t *testing.T, timeout time.Duration) *Keychain {
	t.Helper()
	kc := New("dispatch-test-"+rand.Text(), timeout)
	if err := kc.Check(context.Background()); err != nil {
		if os.Getenv("DISPATCH_KEYCHAIN_TEST") == "1" {
			t.Fatalf("DISPATCH_KEYCHAIN_TEST=1 but no OS keychain answers: %v", err)
		}
		t.Skipf("no OS keychain reachable here (%v); on Linux run scripts/keychain-test.sh, which starts a real Secret Service", err)
	}
	return kc
}

func TestKeychain_SetGetDelete(t *testing.T) {
	kc := testKeychain(t, 5*time.Second)
	ctx := context.Background()
	const account, secret = "https://mcp.example.com/mcp clientId=c", `{"accessToken":"a-1b2c"}`
	if _, err := kc.Get(ctx, account); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get before set: %v, want ErrNotFound", err)
	}
	if err := kc.Set(ctx, account, secret); err != nil {
		t.Fatal(err)
	}
	if got, err := kc.Get(ctx, account); err != nil || got != secret {
		t.Fatalf("get = %q, %v; want %q", got, err, secret)
	}
	if err := kc.Set(ctx, account, secret+"2"); err != nil {
		t.Fatal(err)
	}
	if got, err := kc.Get(ctx, account); err != nil || got != secret+"2" {
		t.Fatalf("get after replacing = %q, %v", got, err)
	}
	if err := kc.Delete(ctx, account); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Get(ctx, account); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v, want ErrNotFound", err)
	}
	if err := kc.Delete(ctx, account); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete of nothing: %v, want ErrNotFound", err)
	}
}

// TestKeychain_NoBusIsUnavailable: without a session bus the keychain is
// unavailable at once, saying why, and starts no bus of its own.
func TestKeychain_NoBusIsUnavailable(t *testing.T) {
	if backendName != "Secret Service over D-Bus" {
		t.Skip("only the Secret Service needs a session bus")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err == nil {
		t.Skip("a session bus socket exists at /run/user/UID/bus")
	}
	err := New("dispatch-test", time.Second).Check(context.Background())
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Fatalf("check without a bus: %v; want an UnavailableError naming DBUS_SESSION_BUS_ADDRESS", err)
	}
}

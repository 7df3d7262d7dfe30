package connections

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// nonLoopbackAddr is an address of this machine that is not loopback, to
// listen on as a host across a network would.
func nonLoopbackAddr(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("interface addresses: %v", err)
	}
	for _, a := range addrs {
		if ipNet, ok := a.(*net.IPNet); ok && !ipNet.IP.IsLoopback() && ipNet.IP.To4() != nil {
			return ipNet.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address to listen on")
	return ""
}

// Metadata naming a plain-http token endpoint on a host that is not
// loopback is refused: the login fails with an error saying why, and no
// grant is posted there.
func TestLogin_PlainHTTPTokenEndpointRefused(t *testing.T) {
	l, err := net.Listen("tcp", net.JoinHostPort(nonLoopbackAddr(t), "0"))
	if err != nil {
		t.Skipf("listen on a non-loopback address: %v", err)
	}
	var posts atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		http.Error(w, "no", http.StatusBadRequest)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })

	as := newAuthServer(t)
	as.mu.Lock()
	as.tokenEndpoint = "http://" + l.Addr().String() + "/token?tenant=x"
	as.mu.Unlock()
	cfg := ServerConfig{Name: "remote", Transport: TransportHTTP, URL: protectedServer(t, as)}
	tokens := NewTokenFile(filepath.Join(t.TempDir(), TokenFileName), NewRedactor(cfg))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err = Login(ctx, cfg, tokens, LoginOptions{Open: followBrowser, ShowURL: func(string) {}, Timeout: 15 * time.Second})
	var insecure *insecureEndpointError
	if !errors.As(err, &insecure) || !strings.Contains(err.Error(), "token_endpoint") || !strings.Contains(err.Error(), "https") {
		t.Fatalf("want the plain-http token endpoint refused, got %v", err)
	}
	if strings.Contains(err.Error(), "tenant=") {
		t.Errorf("the error quotes the endpoint's query: %v", err)
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d requests reached the plain-http token endpoint", n)
	}
}

func TestRequireTLS(t *testing.T) {
	for endpoint, ok := range map[string]bool{
		"https://as.example.com/token": true,
		"http://127.0.0.1:8080/token":  true,
		"http://[::1]:8080/token":      true,
		"http://localhost/token":       true,
		"http://as.example.com/token":  false,
		"http://10.0.0.5/token":        false,
		"ftp://as.example.com/token":   false,
	} {
		if err := requireTLS("token_endpoint", endpoint); (err == nil) != ok {
			t.Errorf("%s: %v, want allowed %v", endpoint, err, ok)
		}
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"dispatch/connections"
	"dispatch/keychain"
)

// AuthCmd groups the OAuth commands.
type AuthCmd struct {
	Login  AuthLoginCmd  `cmd:"" help:"Authorize dispatch to a server that needs OAuth: opens the authorization page ($BROWSER, else the platform's opener) and keeps the tokens."`
	Status AuthStatusCmd `cmd:"" help:"Show which http(s) servers dispatch holds OAuth tokens for (never the tokens)."`
	Logout AuthLogoutCmd `cmd:"" help:"Forget a server's OAuth client and tokens."`
}

// AuthLoginCmd is dispatch auth login NAME.
type AuthLoginCmd struct {
	Server  string        `arg:"" name:"NAME" help:"The server's config name, or its URL for an --mcp server."`
	Timeout time.Duration `name:"browser-timeout" default:"5m" help:"How long to wait for the browser to come back with the authorization."`
}

// AuthStatusCmd is dispatch auth status.
type AuthStatusCmd struct{}

// AuthLogoutCmd is dispatch auth logout NAME.
type AuthLogoutCmd struct {
	Server string `arg:"" name:"NAME" help:"The server's config name, or its URL for an --mcp server."`
}

// tokenFile is the OAuth token file, or nil (no OAuth) when no state
// directory can be found. Its secrets go where --token-store says; the
// keychain is given either way, so that entries kept there before are
// still read (and move to the file on their next write).
func (g *Globals) tokenFile(r *connections.Redactor, log *slog.Logger) *connections.TokenFile {
	path, err := connections.DefaultTokenFile()
	if err != nil {
		log.Warn("oauth disabled", "error", err.Error())
		return nil
	}
	store := g.TokenStore
	if store == "" {
		store = connections.TokenStoreFile
	}
	return connections.NewTokenStore(path, r, store, keychain.New(connections.KeychainService, keychain.DefaultTimeout))
}

// authRedactor masks what the auth commands print: the configs' secrets
// and the environment's, as every other command does, and the tokens and
// registered secrets the token file teaches it.
func authRedactor(configs []connections.ServerConfig) *connections.Redactor {
	r := connections.NewRedactor(configs...)
	r.LearnEnviron(os.Environ())
	return r
}

// maskedError is err with every secret r knows masked in its text: an
// authorization server may quote the client secret or a token in its
// refusal. errors.As still finds what err wraps (exit codes).
type maskedError struct {
	err error
	r   *connections.Redactor
}

func (e *maskedError) Error() string { return e.r.String(e.err.Error()) }
func (e *maskedError) Unwrap() error { return e.err }

func masked(r *connections.Redactor, err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{err: err, r: r}
}

// errNoHTTPServer: OAuth is for servers reached by URL, so the usual
// advice for no servers at all (--mcp 'COMMAND ARGS') would not help.
var errNoHTTPServer = &usageErr{errors.New("no http(s) server is configured, and only those use OAuth: give the config file you run dispatch with (dispatch --config FILE auth ...) or the server's URL (dispatch --mcp https://HOST/mcp auth ...)")}

// authConfigs are the configured servers when at least one is reached by
// URL; a command server has no OAuth.
func (g *Globals) authConfigs() ([]connections.ServerConfig, error) {
	configs, err := g.gatherConfigs()
	if err != nil {
		return nil, err
	}
	for _, c := range configs {
		if c.Transport != connections.TransportStdio {
			return configs, nil
		}
	}
	return nil, errNoHTTPServer
}

// authServer finds the http(s) server called name (or with that URL).
func (g *Globals) authServer(name string) (connections.ServerConfig, *connections.TokenFile, error) {
	configs, err := g.authConfigs()
	if err != nil {
		return connections.ServerConfig{}, nil, err
	}
	r := authRedactor(configs)
	tokens := g.tokenFile(r, slog.New(slog.DiscardHandler))
	if tokens == nil {
		return connections.ServerConfig{}, nil, errors.New("no directory for the token file: set DISPATCH_STATE_DIR, XDG_STATE_HOME or HOME")
	}
	var names []string
	var byAuthName []connections.ServerConfig // unnamed ones whose AuthName is name
	for _, c := range configs {
		if c.Transport == connections.TransportStdio {
			continue
		}
		if c.Name == name || (c.Name == "" && (c.URL == name || connections.SanitizeURL(c.URL) == name)) {
			return c, tokens, nil
		}
		if c.Name == "" && connections.AuthName(c) == name {
			byAuthName = append(byAuthName, c)
		}
		names = append(names, dashName(c))
	}
	// The name errors give for a URL with a query is the URL without it.
	switch len(byAuthName) {
	case 1:
		return byAuthName[0], tokens, nil
	case 0:
	default:
		return connections.ServerConfig{}, nil, &usageErr{fmt.Errorf("%d servers have the URL %q with different queries: give the one to log in to as auth status lists it, or name them in a config file", len(byAuthName), escapeControls(name, true))}
	}
	return connections.ServerConfig{}, nil, &usageErr{fmt.Errorf("no http(s) server %q; the configured ones are: %s", escapeControls(name, true), strings.Join(names, ", "))}
}

func dashName(c connections.ServerConfig) string {
	if c.Name != "" {
		return c.Name
	}
	return connections.SanitizeURL(c.URL)
}

func (c *AuthLoginCmd) Run(ctx context.Context, g *Globals) error {
	cfg, tokens, err := g.authServer(c.Server)
	if err != nil {
		return err
	}
	// Before the browser: a keychain that cannot keep the tokens would
	// waste the person's authorization.
	if err := tokens.CheckStore(ctx); err != nil {
		return fmt.Errorf("login to %s: %w", dashName(cfg), err)
	}
	err = connections.Login(ctx, cfg, tokens, connections.LoginOptions{
		Open:    openBrowser,
		ShowURL: showAuthURL("to authorize " + dashName(cfg)),
		Timeout: c.Timeout,
	})
	if err != nil {
		return masked(tokens.Redactor(), fmt.Errorf("login to %s: %w", dashName(cfg), err))
	}
	fmt.Fprintf(os.Stdout, "dispatch: authorized %s; tokens kept in %s\n", dashName(cfg), tokens.StoreName())
	return nil
}

func (c *AuthLogoutCmd) Run(g *Globals) error {
	cfg, tokens, err := g.authServer(c.Server)
	if err != nil {
		return err
	}
	removed, err := tokens.Remove(cfg)
	if err != nil {
		return masked(tokens.Redactor(), err)
	}
	if !removed {
		fmt.Fprintf(os.Stdout, "dispatch: no tokens kept for %s\n", dashName(cfg))
		return nil
	}
	fmt.Fprintf(os.Stdout, "dispatch: forgot the tokens of %s\n", dashName(cfg))
	return nil
}

func (c *AuthStatusCmd) Run(g *Globals) error {
	configs, err := g.authConfigs()
	if err != nil {
		return err
	}
	tokens := g.tokenFile(authRedactor(configs), slog.New(slog.DiscardHandler))
	if tokens == nil {
		return errors.New("no directory for the token file: set DISPATCH_STATE_DIR, XDG_STATE_HOME or HOME")
	}
	return masked(tokens.Redactor(), writeAuthStatus(os.Stdout, configs, tokens))
}

func writeAuthStatus(w io.Writer, configs []connections.ServerConfig, tokens *connections.TokenFile) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tURL\tSTORE\tOAUTH")
	for _, c := range configs {
		if c.Transport == connections.TransportStdio {
			continue
		}
		store, state := "-", ""
		e, err := tokens.Entry(c)
		switch {
		case err != nil:
			// One entry the keychain cannot give does not hide the others.
			state = "error: " + err.Error()
		default:
			if e != nil {
				store = e.Store()
			}
			state = describeToken(e, c)
		}
		// The state may quote an authorization server's refusal or an
		// error: masked, one cell.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(dashName(c)), cell(connections.SanitizeURL(c.URL)), store, cell(tokens.Redactor().String(state)))
	}
	fmt.Fprintf(tw, "\ntokens: %s (new tokens go to the %s store: --token-store)\n", tokens.Path(), tokens.Store())
	return tw.Flush()
}

func describeToken(e *connections.TokenEntry, c connections.ServerConfig) string {
	switch {
	case e != nil && e.Token == nil && e.LoginNeeded != "":
		return "needs login: " + e.LoginNeeded + " (run dispatch auth login " + dashName(c) + ")"
	case e == nil || e.Token == nil:
		if c.OAuth != nil {
			return "not logged in (run dispatch auth login " + dashName(c) + ")"
		}
		return "-"
	case e.Token.ExpiresAt.IsZero():
		return "logged in"
	case time.Until(e.Token.ExpiresAt) > 0:
		return "logged in; access token expires in " + time.Until(e.Token.ExpiresAt).Round(time.Second).String()
	case e.Token.RefreshToken != "":
		return "logged in; access token expired, refreshed on next use"
	case c.OAuth != nil && c.OAuth.GrantType == connections.GrantClientCredentials:
		return "logged in; access token expired, fetched again on next use"
	default:
		return "expired (run dispatch auth login " + dashName(c) + ")"
	}
}

// showAuthURL prints an authorization URL to stderr after why.
func showAuthURL(why string) func(u string) {
	return func(u string) {
		// The URL comes from the server's metadata: no control characters reach the terminal.
		fmt.Fprintf(os.Stderr, "dispatch: %s, open this URL in a browser:\n  %s\n", escapeControls(why, false), escapeControls(u, false))
	}
}

// stepUpBrowser is how a command's request that needs a wider OAuth scope
// is authorized: in the browser, when the command is a person's (person)
// at a terminal or $BROWSER says how to open one; else nil, and the
// request fails telling to run dispatch auth login.
func stepUpBrowser(person bool) *connections.LoginOptions {
	if !person || (os.Getenv("BROWSER") == "" && !isTerminal(os.Stdin)) {
		return nil
	}
	return &connections.LoginOptions{
		Open:    openBrowser,
		ShowURL: showAuthURL("a server asks for a wider scope; to authorize it"),
		Timeout: connections.DefaultLoginTimeout,
	}
}

// openBrowser opens u with the command in $BROWSER (its %s replaced by the
// URL, else the URL appended), else the platform's opener.
func openBrowser(ctx context.Context, u string) error {
	var argv []string
	if b := os.Getenv("BROWSER"); b != "" {
		words, err := connections.SplitCommandLine(b)
		if err != nil || len(words) == 0 {
			return fmt.Errorf("$BROWSER: %v", err)
		}
		replaced := false
		for i, w := range words {
			if strings.Contains(w, "%s") {
				words[i], replaced = strings.ReplaceAll(w, "%s", u), true
			}
		}
		if !replaced {
			words = append(words, u)
		}
		argv = words
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", u}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", u}
		default:
			argv = []string{"xdg-open", u}
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

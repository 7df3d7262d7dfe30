package connections

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/dustin/go-humanize"

	"dispatch/safefile"
)

// Transport names the wire a server speaks.
type Transport string

const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http" // streamable HTTP
	TransportSSE   Transport = "sse"  // legacy HTTP+SSE
)

// DefaultProtocolVersion is the MCP revision dispatch asks downstream servers
// for. mcp-go's newest (2026-07-28) first probes server/discover, which stalls
// legacy servers for seconds and makes some exit, so we pin the newest
// revision that still uses the initialize handshake.
const DefaultProtocolVersion = "2025-11-25"

// ServerConfig describes one downstream server. The JSON field names are
// part of the connection ID (see ID), so renaming one changes every ID.
type ServerConfig struct {
	// Name is the server's name in a config file; empty for --mcp specs.
	Name      string    `json:"name,omitempty"`
	Transport Transport `json:"transport"`

	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	// InheritEnv passes the server all of dispatch's environment instead
	// of the default safe set (see serverEnv).
	InheritEnv bool `json:"inheritEnv,omitempty"`

	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth is the server's oauth table; nil when it has none.
	OAuth *OAuthSettings `json:"oauth,omitempty"`

	// Timeout bounds each call to this server; zero means the global default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// ProtocolVersion overrides DefaultProtocolVersion for this server.
	ProtocolVersion string `json:"protocolVersion,omitempty"`

	// Tools hides some of the server's tools. It is left out of the ID
	// (see ToolFilter).
	Tools ToolFilter `json:"-"`
	// Expose names the server's tools listed to the agent beside
	// proxy-dispatch under their own names (`expose = [...]`). Like Tools it
	// only says what dispatch shows, so it is left out of the ID.
	Expose []string `json:"-"`
}

// Validate reports the first thing that makes the config unusable.
func (c ServerConfig) Validate() error {
	switch c.Transport {
	case TransportStdio:
		if c.Command == "" {
			return errors.New("stdio server has no command")
		}
		if c.URL != "" {
			return errors.New("stdio server must not have a url")
		}
	case TransportHTTP, TransportSSE:
		if c.URL == "" {
			return fmt.Errorf("%s server has no url", c.Transport)
		}
		u, err := url.Parse(c.URL)
		if err != nil {
			return fmt.Errorf("invalid url: %s", urlProblem(err))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return fmt.Errorf("url scheme %q is not http or https", u.Scheme)
		}
		if u.Host == "" {
			return errors.New("url has no host")
		}
		if c.Command != "" {
			return fmt.Errorf("%s server must not have a command", c.Transport)
		}
		if c.InheritEnv {
			return fmt.Errorf("inheritEnv applies to stdio servers only, not to this %s server", c.Transport)
		}
	default:
		return fmt.Errorf("unknown transport %q (want stdio, http or sse)", c.Transport)
	}
	if c.Timeout < 0 {
		return errors.New("timeout must not be negative")
	}
	if err := c.Tools.Validate(); err != nil {
		return err
	}
	return validateExpose(c.Expose)
}

// quotedInURLErr matches what url.Parse quotes from the URL in its errors.
var quotedInURLErr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*"(?:[^"\\]|\\.)*"`) })

// urlProblem says what is wrong with a URL that does not parse, without
// quoting any of it: the quoted part can be a piece of a password, as in
// http://user:pa/ss@host, where "/" ends the host early and ":pa" is read
// as a port. The config is rejected before its secrets are learned, so
// the Redactor cannot mask them.
func urlProblem(err error) string {
	msg := err.Error()
	if inner := errors.Unwrap(err); inner != nil {
		msg = inner.Error()
	}
	return quotedInURLErr().ReplaceAllString(msg, "") +
		" (a user name, password or token with / ? # @ : or % in it must be percent-encoded)"
}

// ParseSpec reads one --mcp value: an http(s):// URL is a streamable HTTP
// server, sse+http(s):// a legacy SSE server, and anything else a shell-style
// command line for a stdio server.
func ParseSpec(spec string) (ServerConfig, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return ServerConfig{}, errors.New("empty --mcp spec: give a command line, an http(s):// URL or an sse+http(s):// URL")
	}
	lower := strings.ToLower(spec)
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		return validated(ServerConfig{Transport: TransportHTTP, URL: spec})
	case strings.HasPrefix(lower, "sse+http://"), strings.HasPrefix(lower, "sse+https://"):
		return validated(ServerConfig{Transport: TransportSSE, URL: spec[len("sse+"):]})
	}
	// ws://, ftp://, sse://, ... are URLs we cannot speak, not commands:
	// running one would fail later with a confusing "file not found".
	if m := urlScheme().FindStringSubmatch(spec); m != nil {
		return ServerConfig{}, fmt.Errorf("unsupported URL scheme %q in --mcp spec: use http://, https://, sse+http:// or sse+https://", m[1])
	}
	words, err := SplitCommandLine(spec)
	if err != nil {
		return ServerConfig{}, err
	}
	if err := lostBackslashes(spec, words[0]); err != nil {
		return ServerConfig{}, err
	}
	return validated(ServerConfig{Transport: TransportStdio, Command: words[0], Args: words[1:]})
}

// urlScheme matches a spec that starts with a URL scheme (RFC 3986).
var urlScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`) })

func validated(c ServerConfig) (ServerConfig, error) {
	if err := c.Validate(); err != nil {
		return ServerConfig{}, err
	}
	return c, nil
}

// fileServer is one server as written in a TOML file or an mcpServers JSON
// object. Both formats share it so that they accept the same keys.
type fileServer struct {
	Type            string            `toml:"type" json:"type"`
	Transport       string            `toml:"transport" json:"transport"`
	Command         string            `toml:"command" json:"command"`
	Args            []string          `toml:"args" json:"args"`
	Env             map[string]string `toml:"env" json:"env"`
	Cwd             string            `toml:"cwd" json:"cwd"`
	InheritEnv      bool              `toml:"inheritEnv" json:"inheritEnv"`
	URL             string            `toml:"url" json:"url"`
	Headers         map[string]string `toml:"headers" json:"headers"`
	Timeout         string            `toml:"timeout" json:"timeout"`
	ProtocolVersion string            `toml:"protocolVersion" json:"protocolVersion"`
	Disabled        bool              `toml:"disabled" json:"disabled"`
	Tools           *fileToolFilter   `toml:"tools" json:"tools"`
	Expose          []string          `toml:"expose" json:"expose"`
	OAuth           *fileOAuth        `toml:"oauth" json:"oauth"`
}

// fileToolFilter is a server's tools table: [servers.NAME.tools] in TOML,
// "tools": {...} in an mcpServers entry.
type fileToolFilter struct {
	Allow []string `toml:"allow" json:"allow"`
	Deny  []string `toml:"deny" json:"deny"`
}

// fileServerKeys returns the keys a server table accepts, read from
// fileServer's tags so the unknown-key message cannot miss one (it once
// left out "transport").
func fileServerKeys() []string {
	t := reflect.TypeOf(fileServer{})
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		keys = append(keys, t.Field(i).Tag.Get("toml"))
	}
	return keys
}

// toConfig converts the server written as section.NAME ("servers" or
// "mcpServers").
func (f fileServer) toConfig(section, name string) (ServerConfig, error) {
	c := ServerConfig{
		Name: name, Command: f.Command, Args: f.Args, Env: f.Env, Cwd: f.Cwd, InheritEnv: f.InheritEnv,
		URL: f.URL, Headers: f.Headers, ProtocolVersion: f.ProtocolVersion, Expose: f.Expose,
	}
	oauth, err := f.OAuth.toSettings()
	if err != nil {
		return ServerConfig{}, err
	}
	c.OAuth = oauth
	if f.Tools != nil {
		c.Tools = ToolFilter{Allow: f.Tools.Allow, Deny: f.Tools.Deny, Entry: section + "." + tomlKey(name) + ".tools"}
	}
	kind := f.Transport
	if kind == "" {
		kind = f.Type
	}
	switch strings.ToLower(kind) {
	case "":
		if f.URL != "" {
			c.Transport = TransportHTTP
		} else {
			c.Transport = TransportStdio
		}
	case "stdio":
		c.Transport = TransportStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		c.Transport = TransportHTTP
	case "sse":
		c.Transport = TransportSSE
	default:
		return ServerConfig{}, fmt.Errorf("unknown transport %q (want stdio, http or sse)", kind)
	}
	if f.Timeout != "" {
		d, err := time.ParseDuration(f.Timeout)
		if err != nil {
			return ServerConfig{}, fmt.Errorf("timeout %q: want a duration such as 30s or 2m", f.Timeout)
		}
		c.Timeout = d
	}
	return c, c.Validate()
}

// MaxConfigBytes bounds a config file. A config is a few kilobytes; the
// bound keeps a path that was swapped for /dev/zero or a huge file (a live
// config is read again every --config-poll) from exhausting memory.
const MaxConfigBytes = 16 << 20

// ReadConfigFile reads a config file whole: a regular file (following
// symlinks) of at most MaxConfigBytes. A FIFO, device or directory is
// refused without blocking, a larger file with an error naming the limit.
func ReadConfigFile(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if errors.Is(err, safefile.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file (a FIFO, device or directory): name the config file itself", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxConfigBytes {
		return nil, fmt.Errorf("%s is over %s (MaxConfigBytes): that is no config file", path, humanize.IBytes(MaxConfigBytes))
	}
	return data, nil
}

// LoadFile reads a config file: the mcpServers JSON used by Claude Desktop,
// Cursor, Claude Code (and VS Code's "servers", with its comments and
// trailing commas), recognized by content, or
// else a TOML file with one [servers.NAME] table per server. Servers keep
// the order in which the file declares them, since that order gives the
// c1..cN aliases. ${VAR} references are expanded from lookup.
func LoadFile(path string, lookup func(string) (string, bool)) ([]ServerConfig, error) {
	data, err := ReadConfigFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var configs []ServerConfig
	if trimmed := bytes.TrimSpace(data); bytes.HasPrefix(trimmed, []byte("{")) || bytes.HasPrefix(trimmed, []byte("//")) || bytes.HasPrefix(trimmed, []byte("/*")) {
		// Untrimmed, so that error offsets count the file's lines.
		configs, err = parseServersJSON(standardizeJSONC(data))
	} else {
		configs, err = parseServersTOML(data)
	}
	if err != nil {
		var bad *PatternError
		if errors.As(err, &bad) {
			bad.Line, bad.Column = locatePattern(data, bad.Pattern)
		}
		return nil, fmt.Errorf("config %s: %w", filepath.Base(path), err)
	}
	for i := range configs {
		if !configs[i].Tools.IsZero() {
			configs[i].Tools.File = filepath.Base(path)
		}
		if err := configs[i].ExpandEnv(lookup); err != nil {
			return nil, fmt.Errorf("config %s: server %q: %w", filepath.Base(path), configs[i].Name, err)
		}
	}
	return configs, nil
}

func parseServersTOML(data []byte) ([]ServerConfig, error) {
	var doc struct {
		Servers map[string]fileServer `toml:"servers"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, tomlProblem(err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		if key := undecoded[0]; len(key) == 4 && key[2] == "tools" {
			return nil, fmt.Errorf("unknown key %q (a tools table takes allow and deny)", key.String())
		} else if key[0] != "servers" {
			return nil, fmt.Errorf("unknown key %q: a config file holds [servers.NAME] tables%s", key.String(), serversTableFor(key))
		}
		return nil, fmt.Errorf("unknown key %q (servers take %s)", undecoded[0].String(), strings.Join(fileServerKeys(), ", "))
	}
	if len(doc.Servers) == 0 {
		return nil, errors.New("no servers: add a [servers.NAME] table with a command or url")
	}
	// md.Keys() lists keys in file order, which the map has lost. A server
	// written with dotted keys (a.command = "x") has no key of its own, only
	// keys below it, so take each name from the first key that mentions it.
	var names []string
	seen := make(map[string]bool, len(doc.Servers))
	for _, key := range md.Keys() {
		if len(key) >= 2 && key[0] == "servers" && !seen[key[1]] {
			seen[key[1]] = true
			names = append(names, key[1])
		}
	}
	return toConfigs("servers", names, doc.Servers)
}

// serversTableFor suggests the [servers.NAME] table a misspelt top-level
// table ([server.fx], [Servers.fx], [mcpServers.fx]) meant.
func serversTableFor(key toml.Key) string {
	if len(key) < 2 || !strings.Contains(strings.ToLower(key[0]), "server") {
		return ""
	}
	return fmt.Sprintf("; write [servers.%s]", key[1])
}

// toConfigs converts the named servers in order, skipping disabled ones.
func toConfigs(section string, names []string, servers map[string]fileServer) ([]ServerConfig, error) {
	var configs []ServerConfig
	for _, name := range names {
		server := servers[name]
		if server.Disabled {
			continue
		}
		c, err := server.toConfig(section, name)
		if err != nil {
			err = server.maskedError(err)
		}
		var bad *PatternError
		if errors.As(err, &bad) {
			// Named inside the error, so that LoadFile can still add
			// where it is.
			bad.Server = name
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		configs = append(configs, c)
	}
	return configs, nil
}

// maskedError is err with the credentials server holds masked. A value
// found wrong is quoted so the user can find it, and it may be a token
// pasted in the wrong place: the config is rejected before any Redactor
// learns its secrets, so err is masked here with what this server's own
// env, headers, URL and args say is secret, and by credential shape.
// errors.As still reaches the error inside (LoadFile locates a bad
// pattern by its raw text).
func (f fileServer) maskedError(err error) error {
	r := NewRedactor(ServerConfig{Command: f.Command, Args: f.Args, Env: f.Env, URL: f.URL, Headers: f.Headers})
	return &maskedConfigError{err: err, redactor: r}
}

// maskedConfigError is a config error shown through the Redactor of the
// server it is about.
type maskedConfigError struct {
	err      error
	redactor *Redactor
}

func (e *maskedConfigError) Error() string { return e.redactor.String(e.err.Error()) }
func (e *maskedConfigError) Unwrap() error { return e.err }

func parseServersJSON(data []byte) ([]ServerConfig, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonProblem(data, err)
	}
	section := "mcpServers"
	raw, ok := doc[section]
	if !ok {
		section = "servers"
		raw, ok = doc[section]
	}
	if !ok {
		return nil, errors.New(`no "mcpServers" (or "servers") object: this JSON is not an MCP servers config`)
	}
	names, err := objectKeysInOrder(raw)
	if err != nil {
		return nil, fmt.Errorf("mcpServers: %w", err)
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return nil, fmt.Errorf("mcpServers: %w", jsonProblem(raw, err))
	}
	// One by one, so that a type error can name its server.
	decoded := make(map[string]fileServer, len(servers))
	for name, one := range servers {
		var server fileServer
		if err := json.Unmarshal(one, &server); err != nil {
			return nil, fmt.Errorf("mcpServers: server %q: %w", name, jsonProblem(one, err))
		}
		decoded[name] = server
	}
	return toConfigs(section, names, decoded)
}

// objectKeysInOrder returns the keys of a JSON object in document order.
func objectKeysInOrder(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, errors.New("want an object of named servers")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// envRef matches the references the clients' config files use: ${VAR}
// (all of them), ${env:VAR} (VS Code, Cursor), ${VAR:-default} (Claude
// Code) and ${input:ID} (VS Code's prompt, which dispatch cannot show).
var envRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(env:|input:)?([A-Za-z_][A-Za-z0-9_.-]*)(:-([^}]*))?\}`)
})

// ExpandEnv replaces ${VAR}, ${env:VAR} and ${VAR:-default} in the command,
// args, env values, cwd, url, header values and the oauth table's values; ${userHome} and
// ${workspaceFolder} (VS Code) are the home and working directories unless
// the environment defines them. An undefined variable without a default is
// an error naming it, because a server started with an empty token fails
// later in a far less clear way.
func (c *ServerConfig) ExpandEnv(lookup func(string) (string, bool)) error {
	var missing, prompts []string
	expand := func(s string) string {
		return envRef().ReplaceAllStringFunc(s, func(ref string) string {
			m := envRef().FindStringSubmatch(ref)
			kind, name, hasDefault, def := m[1], m[2], m[3] != "", m[4]
			if kind == "input:" {
				prompts = append(prompts, name)
				return ref
			}
			if strings.ContainsAny(name, ".-") {
				return ref // not a variable name: left as written
			}
			if value, ok := lookup(name); ok {
				return value
			}
			if value, ok := vscodeVariable(kind, name, lookup); ok {
				return value
			}
			if hasDefault {
				return def
			}
			missing = append(missing, name)
			return ""
		})
	}
	c.Command = expand(c.Command)
	for i := range c.Args {
		c.Args[i] = expand(c.Args[i])
	}
	for k, v := range c.Env {
		c.Env[k] = expand(v)
	}
	c.Cwd = expand(c.Cwd)
	c.URL = expand(c.URL)
	for k, v := range c.Headers {
		c.Headers[k] = expand(v)
	}
	if c.OAuth != nil {
		c.OAuth = c.OAuth.expandEnv(expand)
	}
	if len(prompts) > 0 {
		return fmt.Errorf("${input:%s} asks VS Code to prompt for a value, which dispatch cannot do; put the value in an environment variable and write ${env:NAME}", prompts[0])
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("environment variable %s is not set (referenced as ${%s}); export it, give a default as ${%s:-VALUE}, or remove the reference", missing[0], missing[0], missing[0])
	}
	if c.OAuth != nil {
		return c.OAuth.check()
	}
	return nil
}

// vscodeVariable resolves the VS Code variables that mean something
// outside an editor.
func vscodeVariable(kind, name string, lookup func(string) (string, bool)) (string, bool) {
	if kind != "" {
		return "", false // ${env:userHome} is an environment variable
	}
	switch name {
	case "userHome":
		return lookup("HOME")
	case "workspaceFolder":
		wd, err := os.Getwd()
		return wd, err == nil
	}
	return "", false
}

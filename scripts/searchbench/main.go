// Command searchbench measures a warm one-shot search against process
// start: 16 fixture servers configured (each with its standard tools and
// 40 generated ones, about 300 KB of cached catalog in all), the catalog
// cache warmed by one search, then N rounds that each run `dispatch
// --version`, `dispatch search QUERY` and `dispatch list`, alternating so
// that machine noise falls on all alike. Prints each median and the ratios
// search ÷ version and list ÷ version. scripts/bench-search.sh builds the
// binaries and runs it:
//
//	go run ./scripts/searchbench DISPATCH_BINARY FIXTURE_BINARY [N]
//
// Before timing it checks that the warm answers (text and --json) are
// byte for byte the cold ones.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

const (
	servers = 16
	tools   = 40
	query   = "create support tickets in the ticket tracker"
)

func main() {
	if len(os.Args) < 3 || len(os.Args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: searchbench DISPATCH_BINARY FIXTURE_BINARY [N]")
		os.Exit(2)
	}
	n := 30
	if len(os.Args) == 4 {
		v, err := strconv.Atoi(os.Args[3])
		if err != nil || v < 1 {
			fmt.Fprintln(os.Stderr, "searchbench: N must be a positive number")
			os.Exit(2)
		}
		n = v
	}
	if err := run(os.Args[1], os.Args[2], n); err != nil {
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

func run(dispatch, fixture string, n int) error {
	dir, err := os.MkdirTemp("", "searchbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var cfg bytes.Buffer
	for i := 1; i <= servers; i++ {
		fmt.Fprintf(&cfg, "[servers.s%02d]\ncommand = %q\nargs = [\"--tools\", \"%d\", \"--name\", \"s%02d\"]\n\n", i, fixture, tools, i)
	}
	config := filepath.Join(dir, "servers.toml")
	if err := os.WriteFile(config, cfg.Bytes(), 0o600); err != nil {
		return err
	}
	base := []string{"-c", config, "--cache-dir", filepath.Join(dir, "cache")}
	search := append(slices.Clone(base), "search", query)
	list := append(slices.Clone(base), "list", "--tools")
	commands := map[string][]string{
		"search": search, "search --json": append(slices.Clone(search), "--json"),
		"list": list, "list --json": append(slices.Clone(list), "--json"),
	}
	// Cold: the first of each starts the servers or builds the index.
	cold := map[string][]byte{}
	for _, name := range []string{"search", "search --json", "list", "list --json"} {
		out, err := output(dispatch, commands[name])
		if err != nil {
			return fmt.Errorf("cold %s: %w", name, err)
		}
		cold[name] = out
	}
	for name, args := range commands {
		out, err := output(dispatch, args)
		if err != nil {
			return fmt.Errorf("warm %s: %w", name, err)
		}
		if !bytes.Equal(out, cold[name]) {
			return fmt.Errorf("warm %s answers otherwise than cold:\n--- cold\n%s\n--- warm\n%s", name, cold[name], out)
		}
	}
	entries, err := filepath.Glob(filepath.Join(dir, "cache", "catalogs", "*.json"))
	if err != nil {
		return err
	}
	var size int64
	for _, e := range entries {
		if info, err := os.Stat(e); err == nil {
			size += info.Size()
		}
	}
	fmt.Printf("servers: %d, cached catalogs: %d files, %d KB; warm answers equal cold ones\n", servers, len(entries), size>>10)

	// Wall time is what the issue measures; CPU time (user + system) is
	// printed beside it because on a busy machine it varies less.
	var version, searches, lists [2][]time.Duration
	for i := 0; i < n; i++ {
		for _, m := range []struct {
			args []string
			into *[2][]time.Duration
		}{{[]string{"--version"}, &version}, {search, &searches}, {list, &lists}} {
			wall, cpu, err := timed(dispatch, m.args)
			if err != nil {
				return err
			}
			m.into[0] = append(m.into[0], wall)
			m.into[1] = append(m.into[1], cpu)
		}
	}
	fmt.Printf("runs: %d of each; medians, wall (cpu)\n", n)
	for _, row := range []struct {
		name string
		ds   [2][]time.Duration
	}{{"dispatch --version", version}, {"warm search", searches}, {"warm list --tools", lists}} {
		fmt.Printf("%-19s %7.2f ms (%.2f ms)\n", row.name+":", ms(median(row.ds[0])), ms(median(row.ds[1])))
	}
	for _, row := range []struct {
		name string
		ds   [2][]time.Duration
	}{{"search", searches}, {"list", lists}} {
		fmt.Printf("%s ratio (%s / version): %.2f wall, %.2f cpu\n", row.name, row.name,
			float64(median(row.ds[0]))/float64(median(version[0])), float64(median(row.ds[1]))/float64(median(version[1])))
	}
	return nil
}

func output(bin string, args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %w: %s", args, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// timed runs bin and returns its wall time and CPU time.
func timed(bin string, args []string) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%v: %w: %s", args, err, stderr.Bytes())
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

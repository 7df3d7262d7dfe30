package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what package initialisation may allocate in a
// dispatch process, before main runs. Every command pays for it, and an
// in-session call is otherwise a few milliseconds: init used to allocate
// 2.2 MB (1.7 MB of it santhosh-tekuri/jsonschema compiling every draft's
// meta-schema, 0.3 MB dispatch's own regular expressions). Now about
// 220 KB.
const maxInitBytes = 512 << 10

// initCost is one package's line of GODEBUG=inittrace=1.
type initCost struct {
	pkg   string
	bytes int
}

// traceInit runs dispatch with GODEBUG set to trace and returns its stderr.
func traceInit(t *testing.T, godebug string, args ...string) string {
	t.Helper()
	cmd := exec.Command(dispatchBin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dispatch %v: %v\n%s", args, err, stderr.String())
	}
	return stderr.String()
}

// parseInitTrace reads lines such as
// "init dispatch/connections @7.2 ms, 0.011 ms clock, 4112 bytes, 58 allocs".
func parseInitTrace(t *testing.T, trace string) []initCost {
	t.Helper()
	var costs []initCost
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		costs = append(costs, initCost{pkg: f[1], bytes: n})
	}
	if len(costs) == 0 {
		t.Fatalf("no inittrace lines in:\n%s", trace)
	}
	return costs
}

func TestStartup_InitAllocatesLittle(t *testing.T) {
	costs := parseInitTrace(t, traceInit(t, "inittrace=1", "--version"))
	total := 0
	for _, c := range costs {
		total += c.bytes
	}
	if total > maxInitBytes {
		var top initCost
		for _, c := range costs {
			if c.bytes > top.bytes {
				top = c
			}
		}
		t.Errorf("package initialisation allocates %d bytes, more than maxInitBytes (%d); the most: %s, %d bytes (make package-level tables lazy with sync.OnceValue)",
			total, maxInitBytes, top.pkg, top.bytes)
	}
	for _, c := range costs {
		if c.pkg == "github.com/santhosh-tekuri/jsonschema/v6" && c.bytes > 64<<10 {
			t.Errorf("jsonschema's init allocates %d bytes: its meta-schemas are compiled at start-up again (is the replace by third_party/jsonschema gone?)", c.bytes)
		}
	}
}

#!/usr/bin/env bash
# Where a proxied call's time goes, seen from the kernel: records the read
# and write system calls and the scheduler's wake-ups of running stdio
# proxies (dispatch, scripts/internal/relay) for SECONDS with perf, and
# prints for each the two steps a call takes inside it, agent's line read
# → request written to the server and server's answer read → answer
# written to the agent (median, p75, p90 in µs; perf's tracing makes all
# of them slower, alike), and per call the Go runtime's network-poller
# breaks (8-byte eventfd writes) and wake-ups of its own threads. The
# time between the steps is the pipes' and the other processes'.
#
# Run it while BenchmarkCallOverhead runs, with the pids of the proxies
# it started (ps -eo pid,args | grep -E 'no-cache --mcp|relay '). Needs
# perf and root (or kernel.perf_event_paranoid ≤ 1).
#
# Usage: bash scripts/latency-timeline.sh SECONDS PID...
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: bash scripts/latency-timeline.sh SECONDS PID... (the proxies to watch)" >&2
	exit 2
fi
secs=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pids=$(
	IFS=,
	echo "$*"
)
timeout -s INT "$secs" perf record -q -o "$work/perf.data" \
	-e syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,sched:sched_wakeup \
	-p "$pids" >/dev/null 2>&1 || true
perf script -i "$work/perf.data" -F pid,tid,time,event,trace 2>/dev/null >"$work/events.txt"
python3 - "$work/events.txt" "$@" <<'PY'
import re, statistics, subprocess, sys
line_re = re.compile(r'\s*(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)')
events, fd_of = {}, {}
for line in open(sys.argv[1]):
    m = line_re.match(line)
    if not m:
        continue
    pid, tid, t, name, rest = int(m[1]), int(m[2]), float(m[3]), m[4], m[5]
    ev = events.setdefault(pid, [])
    if name == 'syscalls:sys_enter_read':
        fd_of[tid] = int(re.search(r'fd: (0x[0-9a-f]+)', rest)[1], 16)
    elif name == 'syscalls:sys_exit_read':
        n = int(rest.strip(), 16)
        if n < 1 << 63 and n != 8:  # 8 bytes: an eventfd, not a message
            ev.append((t, 'read', fd_of.get(tid), n))
    elif name == 'syscalls:sys_enter_write':
        fd = int(re.search(r'fd: (0x[0-9a-f]+)', rest)[1], 16)
        n = int(re.search(r'count: (0x[0-9a-f]+)', rest)[1], 16)
        ev.append((t, 'write', fd, n))
    elif name == 'sched:sched_wakeup':
        ev.append((t, 'wake', int(re.search(r' pid=(\d+)', rest)[1]), 0))

def step(ev, starts, ends):
    took, begun = [], None
    for t, kind, fd, n in ev:
        if begun is None and kind == 'read' and starts(fd):
            begun = t
        elif begun is not None and kind == 'write' and ends(fd, n):
            took.append((t - begun) * 1e6)
            begun = None
    if len(took) < 4:
        return 'too few'
    q = statistics.quantiles(took, n=20)
    return 'median %5.1f  p75 %5.1f  p90 %5.1f' % (statistics.median(took), q[14], q[17])

for pid in map(int, sys.argv[2:]):
    ev = sorted(events.get(pid, []))
    threads = set(int(t) for t in subprocess.run(['ls', '/proc/%d/task' % pid], capture_output=True, text=True).stdout.split())
    calls = sum(1 for e in ev if e[1] == 'write' and e[2] == 1)
    breaks = sum(1 for e in ev if e[1] == 'write' and e[3] == 8)
    own = sum(1 for e in ev if e[1] == 'wake' and e[2] in threads)
    name = open('/proc/%d/cmdline' % pid).read().split('\0')[0].rsplit('/', 1)[-1]
    print('%s (pid %d): %d answers' % (name, pid, calls))
    if calls == 0:
        continue
    print('  agent line read -> server write:  ' + step(ev, lambda fd: fd == 0, lambda fd, n: fd != 1 and n != 8))
    print('  server answer read -> agent write: ' + step(ev, lambda fd: fd != 0, lambda fd, n: fd == 1))
    print('  per call: %.2f netpoller breaks, %.2f wake-ups of its own threads' % (breaks / calls, own / calls))
PY

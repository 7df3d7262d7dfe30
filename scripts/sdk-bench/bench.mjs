// Per-call latency through dispatch with the official TypeScript MCP SDK
// client: the same echo call made to server-everything directly, through a
// bare relay (scripts/internal/relay: the pipe hop alone), through dispatch
// (and through a baseline dispatch, if given), one call of each kind per
// round, alternating so that every side sees the same load, in an order
// shuffled each round (the same shuffles every run), so that no side
// always follows the same one: a call pays for what the call before it
// left running. With dispatch and baseline the same binary, the side
// called third came out 0.8–12.6% slower than the fourth over 3 fixed-
// order runs, and −2.3% to +9.5% over 3 shuffled ones: on a shared
// 2-core machine two processes of one binary differ that much within a
// run, so compare runs, not one. Prints the p50
// and p90 of each and the ratios: each side ÷ direct, and dispatch ÷ relay
// (what dispatch costs beyond the hop itself). scripts/bench-sdk.sh runs it:
//
//	node bench.mjs SDK_DIR ROUNDS NODE SERVER_SCRIPT DISPATCH RELAY [BASELINE_DISPATCH]
import path from "node:path";

const [sdkDir, roundsArg, node, serverScript, dispatchBin, relayBin, baselineBin] = process.argv.slice(2);
const rounds = Number(roundsArg);
const { Client } = await import(path.join(sdkDir, "dist/esm/client/index.js"));
const { StdioClientTransport } = await import(path.join(sdkDir, "dist/esm/client/stdio.js"));

const message = "hello";
const want = `Echo: ${message}`;

async function connect(command, args) {
  const client = new Client({ name: "sdk-bench", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

// Each side: how to call echo on it, and its latencies.
const sides = [
  { name: "direct", client: await connect(node, [serverScript]), params: { name: "echo", arguments: { message } }, times: [] },
  { name: "relay", client: await connect(relayBin, [node, serverScript]), params: { name: "echo", arguments: { message } }, times: [] },
  {
    name: "dispatch",
    client: await connect(dispatchBin, ["--no-cache", "--mcp", `${node} ${serverScript}`]),
    params: { name: "proxy-dispatch", arguments: { action: "call", tool: "echo", arguments: { message } } },
    times: [],
  },
];
if (baselineBin) {
  sides.push({ ...sides[2], name: "baseline", client: await connect(baselineBin, ["--no-cache", "--mcp", `${node} ${serverScript}`]), times: [] });
}

async function call(side) {
  const start = process.hrtime.bigint();
  const result = await side.client.callTool(side.params);
  const elapsed = Number(process.hrtime.bigint() - start) / 1e3;
  const text = result.content?.[0]?.text;
  if (result.isError || text !== want) {
    throw new Error(`${side.name}: echo answered ${JSON.stringify(result)}`);
  }
  return elapsed;
}

// Warm up: dispatch starts its server on first use, and JIT and caches
// settle on every side.
for (let i = 0; i < 200; i++) for (const side of sides) await call(side);
// order shuffles sides in place (Fisher–Yates) with a fixed-seed
// generator (mulberry32), so that each side follows each other side
// equally often and every run makes the same orders.
let seed = 0x5eed;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const order = (xs) => {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
};
const round = [...sides];
for (let i = 0; i < rounds; i++) for (const side of order(round)) side.times.push(await call(side));

// quantile returns the q-quantile of xs (nearest rank; the p50 of an even
// count is the mean of the two middle values).
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  if (q === 0.5 && s.length % 2 === 0) return (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const stats = Object.fromEntries(sides.map((side) => [side.name, { p50: quantile(side.times, 0.5), p90: quantile(side.times, 0.9) }]));
const ratio = (a, b) => `p50 ${(stats[a].p50 / stats[b].p50).toFixed(3)}  p90 ${(stats[a].p90 / stats[b].p90).toFixed(3)}`;
console.log(`rounds: ${rounds} (one call of each kind per round)`);
for (const side of sides) {
  console.log(`${side.name.padEnd(8)} p50: ${stats[side.name].p50.toFixed(1)} µs  p90: ${stats[side.name].p90.toFixed(1)} µs`);
}
console.log(`dispatch ÷ direct: ${ratio("dispatch", "direct")}`);
console.log(`relay    ÷ direct: ${ratio("relay", "direct")}`);
console.log(`dispatch ÷ relay:  ${ratio("dispatch", "relay")}`);
if (stats.baseline) {
  console.log(`baseline ÷ direct: ${ratio("baseline", "direct")}`);
  console.log(`baseline ÷ relay:  ${ratio("baseline", "relay")}`);
}
for (const side of sides) await side.client.close();

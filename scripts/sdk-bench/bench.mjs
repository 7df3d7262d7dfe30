// Per-call latency through dispatch with the official TypeScript MCP SDK
// client: the same echo call made to server-everything directly and
// through dispatch (and through a baseline dispatch, if given), one call of
// each kind per round, alternating so that every side sees the same load.
// Prints the p50 of each and the ratios. scripts/bench-sdk.sh runs it:
//
//	node bench.mjs SDK_DIR ROUNDS NODE SERVER_SCRIPT DISPATCH [BASELINE_DISPATCH]
import path from "node:path";

const [sdkDir, roundsArg, node, serverScript, dispatchBin, baselineBin] = process.argv.slice(2);
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
  {
    name: "dispatch",
    client: await connect(dispatchBin, ["--no-cache", "--mcp", `${node} ${serverScript}`]),
    params: { name: "proxy-dispatch", arguments: { action: "call", tool: "echo", arguments: { message } } },
    times: [],
  },
];
if (baselineBin) {
  sides.push({ ...sides[1], name: "baseline", client: await connect(baselineBin, ["--no-cache", "--mcp", `${node} ${serverScript}`]), times: [] });
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
for (let i = 0; i < rounds; i++) for (const side of sides) side.times.push(await call(side));

const p50 = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const direct = p50(sides[0].times);
console.log(`rounds: ${rounds} (one call of each kind per round)`);
for (const side of sides) {
  const m = p50(side.times);
  console.log(`${side.name.padEnd(8)} p50: ${m.toFixed(1)} µs` + (side === sides[0] ? "" : `  ratio (÷ direct): ${(m / direct).toFixed(3)}`));
}
for (const side of sides) await side.client.close();

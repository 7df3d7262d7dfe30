// ref.mjs runs the reference encoder, @toon-format/toon@2.3.1.
//
//   node ref.mjs encode <in.json> <opts.json|-> <out.toon>   encode one file
//   node ref.mjs batch <dir>                                  every <dir>/*.json (not *.opts.json) to *.ref.toon
//   node ref.mjs bench <in.json> <iterations>                 print "<MB/s> <ms/op>" for JSON.parse + encode
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encode } from "@toon-format/toon";

const [mode, ...args] = process.argv.slice(2);

function readOpts(path) {
  return path === "-" ? {} : JSON.parse(readFileSync(path, "utf8"));
}

if (mode === "encode") {
  const [input, opts, output] = args;
  writeFileSync(output, encode(JSON.parse(readFileSync(input, "utf8")), readOpts(opts)));
} else if (mode === "batch") {
  const [dir] = args;
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(".json") || f.endsWith(".opts.json")) continue;
    const base = f.slice(0, -5);
    const opts = readOpts(join(dir, `${base}.opts.json`));
    writeFileSync(join(dir, `${base}.ref.toon`), encode(JSON.parse(readFileSync(join(dir, f), "utf8")), opts));
  }
} else if (mode === "bench") {
  const [input, itersArg] = args;
  const text = readFileSync(input, "utf8");
  const bytes = Buffer.byteLength(text);
  const iters = Number(itersArg);
  let sink = 0;
  for (let i = 0; i < Math.max(1, Math.floor(iters / 5)); i++) sink += encode(JSON.parse(text)).length; // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) sink += encode(JSON.parse(text)).length;
  const ns = Number(process.hrtime.bigint() - start);
  const mbps = (bytes * iters) / (ns / 1e9) / 1e6;
  console.log(`${mbps.toFixed(2)} ${(ns / iters / 1e6).toFixed(3)} ${sink > 0 ? "" : "!"}`.trim());
} else {
  console.error("usage: node ref.mjs encode|batch|bench ...");
  process.exit(2);
}

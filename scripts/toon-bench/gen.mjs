// gen.mjs writes the benchmark documents and the random differential corpus.
//
//   node gen.mjs <outdir> <random-count>
//
// Everything is generated from fixed seeds, so every run writes the same
// bytes. Documents are written with JSON.stringify, so each number is the
// shortest text of a double, which both encoders must print the same way.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [outDir, countArg] = process.argv.slice(2);
const randomCount = Number(countArg ?? 300);

// mulberry32: a tiny seeded PRNG.
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (xs) => xs[next.int(xs.length)];
  return next;
}

const words = ["fast", "tiny", "json", "toon", "proxy", "server", "cli", "kit", "lib", "tool", "web", "data", "api", "go", "rust", "react", "vue", "cloud", "edge", "lite"];

function repos(n) {
  const r = rng(42);
  const list = [];
  for (let i = 0; i < n; i++) {
    const w1 = r.pick(words), w2 = r.pick(words), owner = r.pick(words);
    const d2 = (x) => String(x).padStart(2, "0");
    list.push({
      id: 28457823 + r.int(900000000),
      name: `${w1}-${w2}`,
      repo: `${owner}/${w1}-${w2}`,
      description: `A ${w1} ${w2} for ${r.pick(words)}, with ${r.pick(words)} support`,
      createdAt: `20${d2(10 + r.int(15))}-${d2(1 + r.int(12))}-${d2(1 + r.int(28))}T${d2(r.int(24))}:${d2(r.int(60))}:${d2(r.int(60))}Z`,
      updatedAt: `2025-${d2(1 + r.int(12))}-${d2(1 + r.int(28))}T10:00:00Z`,
      stars: r.int(400000),
      watchers: r.int(9000),
      forks: r.int(80000),
      defaultBranch: r.pick(["main", "master", "develop"]),
      archived: r.int(10) === 0,
    });
  }
  return { repositories: list };
}

function tabular(size) {
  const r = rng(7);
  const rows = [];
  let bytes = 10;
  for (let i = 0; bytes < size; i++) {
    const row = {
      id: i,
      name: `${r.pick(words)} ${r.pick(words)}`,
      email: `user${i}@example.com`,
      age: 18 + r.int(60),
      score: Math.round(r() * 100000) / 100,
      active: r.int(2) === 0,
      tag: r.pick(words),
    };
    bytes += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return { rows };
}

// Strings and keys that exercise quoting: delimiters, structural
// characters, numeric and literal look-alikes, whitespace JavaScript trims,
// escapes, control characters and non-ASCII text.
const tricky = ["", " ", "a b", " lead", "trail ", "-", "-x", "- item", "a:b", "x,y", "x|y", "x\ty", "q\"uote", "back\\slash", "[1]", "{a}", "a[2]: x", "true", "false", "null", "True", "42", "-3.14", "1e-6", "1E+5", "05", "0.50", "1.", ".5", "Infinity", "NaN", "line\nbreak", "cr\rret", "bell\u0007", "nul\u0000", "del\u007f", "nbsp\u00a0", "\u00a0lead", "ls\u2028", "\ufeffbom", "\u2003em", "nel\u0085", "café", "日本語", "🚀 rocket", "emoji🎉", "#hash", "a=b", "@at", "'single'", "a.b", "user.name", "x..y", "_u"];
const identKeys = ["a", "b", "c", "id", "name", "data", "meta", "items", "user", "x", "y", "_private", "camelCase", "snake_case", "k9"];
const oddKeys = ["a.b", "a.b.c", "full-name", "with space", "", "-", "q\"k", "x:y", "[k]", "k,1", "k|1", "k\t1", "é", "a-b.c", "1a", "$ref", "a.", ".a"];

function randomNumber(r) {
  switch (r.int(6)) {
    case 0: return r.int(100);
    case 1: return -r.int(1_000_000);
    case 2: return r.int(2 ** 31) * (2 ** r.int(22)); // up to 2^53
    case 3: return (r() - 0.5) * 10 ** (r.int(40) - 15);
    case 4: return Math.round(r() * 10000) / 100;
    default: return r.pick([0, -0, 1e-6, 1e-7, 1e21, 1e20, 0.1, 5e-324, 1.7976931348623157e308, 9007199254740991]);
  }
}

function randomString(r) {
  if (r.int(3) === 0) return r.pick(tricky);
  if (r.int(2) === 0) return r.pick(tricky) + r.pick(words) + r.pick(tricky);
  return r.pick(words);
}

function randomKey(r, used) {
  for (;;) {
    const k = r.int(4) === 0 ? r.pick(oddKeys) : r.int(3) === 0 ? r.pick(words) : r.pick(identKeys);
    // Integer-like keys are left out: JavaScript objects move them first,
    // while TOON (and the Go encoder) keep document order.
    if (!used.has(k) && !/^(0|[1-9]\d*)$/.test(k)) {
      used.add(k);
      return k;
    }
  }
}

function randomPrimitive(r) {
  switch (r.int(5)) {
    case 0: return null;
    case 1: return r.int(2) === 0;
    case 2: return randomNumber(r);
    default: return randomString(r);
  }
}

function randomValue(r, depth) {
  const leaf = depth >= 6 || r.int(10) < 2 + depth;
  if (leaf) return randomPrimitive(r);
  switch (r.int(7)) {
    case 0: { // primitive array
      return Array.from({ length: r.int(7) }, () => randomPrimitive(r));
    }
    case 1: { // uniform objects: tabular candidates
      const used = new Set();
      const keys = Array.from({ length: 1 + r.int(4) }, () => randomKey(r, used));
      return Array.from({ length: 1 + r.int(6) }, () => {
        const order = r.int(4) === 0 ? [...keys].reverse() : keys;
        const o = {};
        for (const k of order) o[k] = r.int(8) === 0 ? randomValue(r, depth + 1) : randomPrimitive(r);
        return o;
      });
    }
    case 2: { // arrays of arrays
      return Array.from({ length: r.int(5) }, () => randomValue(r, depth + 1));
    }
    case 3: { // single-key chains: key-folding candidates
      let v = randomValue(r, depth + 2);
      for (let i = r.int(4); i >= 0; i--) v = { [r.pick(identKeys.concat(oddKeys))]: v };
      return v;
    }
    default: { // objects
      const used = new Set();
      const o = {};
      for (let i = r.int(8); i > 0; i--) o[randomKey(r, used)] = randomValue(r, depth + 1);
      return o;
    }
  }
}

const optionSets = [
  {},
  { delimiter: "\t" },
  { delimiter: "|" },
  { indent: 4 },
  { keyFolding: "safe" },
  { keyFolding: "safe", flattenDepth: 2 },
  { keyFolding: "safe", delimiter: "|", indent: 3 },
];

mkdirSync(join(outDir, "random"), { recursive: true });
writeFileSync(join(outDir, "repos100.json"), JSON.stringify(repos(100)));
writeFileSync(join(outDir, "tabular10mb.json"), JSON.stringify(tabular(10 << 20)));
const r = rng(2024);
for (let i = 0; i < randomCount; i++) {
  const name = String(i).padStart(4, "0");
  const doc = r.int(16) === 0 ? randomPrimitive(r) : randomValue(r, 0);
  writeFileSync(join(outDir, "random", `${name}.json`), JSON.stringify(doc));
  writeFileSync(join(outDir, "random", `${name}.opts.json`), JSON.stringify(optionSets[i % optionSets.length]));
}

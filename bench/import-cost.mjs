// Measures what `import('@troupe/core')` costs a fresh Node process: wall time and heap growth.
// Each sample runs in its own process (so module caches are cold); the median of several is printed.
// Usage: node bench/import-cost.mjs [samples]   (needs `npm run build` first)
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const samples = Number(process.argv[2] ?? 9);
const entry = fileURLToPath(new URL('../packages/core/dist/index.js', import.meta.url));
const probe = `
  global.gc(); const before = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  await import(${JSON.stringify(entry)});
  const ms = performance.now() - t0;
  global.gc(); const after = process.memoryUsage().heapUsed;
  console.log(JSON.stringify({ ms, heapMb: (after - before) / 1048576 }));
`;

const runs = [];
for (let i = 0; i < samples; i++) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe], { encoding: 'utf8' });
  runs.push(JSON.parse(out));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  framework: 'troupe',
  scenario: 'import-core',
  runs: samples,
  import_ms_p50: Number(median(runs.map((r) => r.ms)).toFixed(2)),
  import_heap_mb_p50: Number(median(runs.map((r) => r.heapMb)).toFixed(3)),
  target: { import_ms: 100, import_heap_mb: 10 },
};
console.log(JSON.stringify(result));
if (result.import_ms_p50 > 100 || result.import_heap_mb_p50 > 10) process.exitCode = 1;

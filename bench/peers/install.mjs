// Installs the peer frameworks of the benchmarks (bench/peers/package.json, its own lockfile, not a
// workspace) on first use: `npm ci` when bench/peers/node_modules is missing. Their install scripts
// are skipped: the benchmarks need none of them (no native builds, no downloads).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

export const peersDir = fileURLToPath(new URL('.', import.meta.url));

/** Runs `npm ci` in bench/peers unless its node_modules exists; `log` reports what it does. */
export function ensurePeersInstalled(log = () => {}) {
  if (existsSync(join(peersDir, 'node_modules', '@google', 'adk', 'package.json'))) return;
  log('bench/peers/node_modules is missing: npm ci --prefix bench/peers (once, about a minute)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--prefix', peersDir, '--ignore-scripts', '--no-audit', '--no-fund'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensurePeersInstalled((message) => process.stderr.write(`[bench] ${message}\n`));
}

import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium } from 'playwright-core';

// What a dev UI end-to-end test needs: the built CLI serving an apps folder, and Debian's Chromium.

export const CHROMIUM = '/usr/bin/chromium';
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
export const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(repo, 'packages/cli/dist/main.js');

/** `npm test` builds first; build here when a file runs on its own, and always bundle the UI (fast) so it is current. */
export async function buildIfNeeded(): Promise<void> {
  const run = promisify(execFile);
  if (!existsSync(bin) || !existsSync(join(repo, 'packages/server/dist/index.js'))) {
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { cwd: repo });
  }
  await run(process.execPath, ['packages/server/ui/build.mjs'], { cwd: repo });
}

/** Starts the built `troupe web` on `appsDir` (relative to the repository) on a free port; resolves once it listens. */
export function startTroupeWeb(appsDir: string, db: string): Promise<{ server: ChildProcessWithoutNullStreams; url: string }> {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [bin, 'web', appsDir, '--port', '0', '--db', db], { cwd: repo });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`troupe web did not print its URL within 30 s. Output:\n${output}`)), 30_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Troupe dev UI: (http:\/\/\S+?)\/?\s/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ server, url: match[1]! });
      }
    };
    server.stdout.on('data', collect);
    server.stderr.on('data', collect);
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`troupe web exited with code ${code} before listening. Output:\n${output}`));
    });
  });
}

/** Headless Chromium with its profile in `profileDir`. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}, and CI=true requires the dev UI test to run. Install Debian's package: apt-get install -y chromium (.ci/run does this).`);
  }
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 900 },
  });
}

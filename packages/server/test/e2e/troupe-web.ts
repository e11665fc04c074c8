import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

// What a dev UI end-to-end test needs: the built CLI serving an apps folder, and Debian's Chromium.

export const CHROMIUM = '/usr/bin/chromium';
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** True when a dev UI suite should be skipped: no Chromium, and not in CI (where a missing browser fails instead). */
export const NO_BROWSER = !existsSync(CHROMIUM) && !IN_CI;
/** expect.poll waits 1 s by default; the machine may be busy with other test files. */
export const POLL = { timeout: 15_000 };
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

/**
 * Starts the built `troupe web` on `appsDir` (relative to the repository) on a free port; resolves
 * once it listens, with its URL (without the `#token=` part it prints with `--token`). `onOutput`
 * gets everything it prints, for as long as it runs; `extraArgs` go after the usual options.
 */
export function startTroupeWeb(
  appsDir: string,
  db: string,
  onOutput: (chunk: string) => void = () => {},
  extraArgs: string[] = [],
): Promise<{ server: ChildProcessWithoutNullStreams; url: string }> {
  return new Promise((resolve, reject) => {
    const server = spawn(process.execPath, [bin, 'web', appsDir, '--port', '0', '--db', db, ...extraArgs], {
      cwd: repo,
    });
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`troupe web did not print its URL within 30 s. Output:\n${output}`)),
      30_000,
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      onOutput(chunk.toString());
      const match = /Troupe dev UI: (http:\/\/[^/\s]+)\/?\S*\s/.exec(output);
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

/** Throws when Debian's Chromium is missing (only reached in CI, where the dev UI tests must run). */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}, and CI=true requires the dev UI test to run. Install Debian's package: apt-get install -y chromium (.ci/run does this).`,
    );
  }
}

/** Headless Chromium with its profile in `profileDir`; `extraArgs` go after the usual switches. */
export function launchChromium(profileDir: string, extraArgs: string[] = []): Promise<BrowserContext> {
  requireChromium();
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
    viewport: { width: 1440, height: 900 },
  });
}

/** A running dev UI suite: read its fields inside tests (they are set in `beforeAll`). */
export interface DevUi {
  /** The `troupe web` child process. */
  readonly server: ChildProcessWithoutNullStreams;
  /** Where it listens, without a trailing slash. */
  readonly baseUrl: string;
  /** Everything the server printed so far. */
  readonly serverOutput: string;
  /** The browser's page (15 s default timeout). */
  readonly page: Page;
}

/** How {@link useDevUi} sets up its suite. */
export interface DevUiOptions {
  /** Prefix of the temporary folder holding the database and the browser profile. */
  scratchPrefix: string;
  /** More Chromium switches. */
  chromiumArgs?: string[];
  /** More `troupe web` options (e.g. `--token`). */
  serverArgs?: string[];
}

/**
 * Registers the `beforeAll`/`afterAll` of a dev UI suite: builds if needed, starts `troupe web` on
 * `appsDir` with a fresh database, opens Chromium on a fresh profile; afterwards closes the browser,
 * kills the server if it still runs and removes the temporary folder. Call it inside `describe`.
 */
export function useDevUi(appsDir: string, options: DevUiOptions): DevUi {
  const scratch = mkdtempSync(join(tmpdir(), options.scratchPrefix));
  let server: ChildProcessWithoutNullStreams | undefined;
  let serverOutput = '';
  let baseUrl = '';
  let browser: BrowserContext | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    requireChromium();
    await buildIfNeeded();
    ({ server, url: baseUrl } = await startTroupeWeb(
      appsDir,
      join(scratch, 'troupe.db'),
      (chunk) => (serverOutput += chunk),
      options.serverArgs,
    ));
    browser = await launchChromium(join(scratch, 'chromium-profile'), options.chromiumArgs);
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`The dev UI suite has no ${what} yet: read it inside a test, after beforeAll.`);
    return value;
  };
  return {
    get server() {
      return started(server, 'server');
    },
    get baseUrl() {
      return baseUrl;
    },
    get serverOutput() {
      return serverOutput;
    },
    get page() {
      return started(page, 'page');
    },
  };
}

/**
 * Opens the dev UI, waits until it has selected `app`, and starts a new session. Resolves with the
 * page's uncaught errors, collected from now on (a test ends expecting none).
 */
export async function openNewSession(web: DevUi, app: string): Promise<string[]> {
  const { page, baseUrl } = web;
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${baseUrl}/`);
  await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe(app);
  await page.getByRole('button', { name: 'New session' }).click();
  await page.locator('.session-item[aria-current="true"]').waitFor();
  return pageErrors;
}

/** Waits until the run has ended and the stored session was read again. */
export async function waitUntilIdle(page: Page): Promise<void> {
  await expect.poll(() => page.getByRole('status').innerText(), POLL).toMatch(/^Session /);
}

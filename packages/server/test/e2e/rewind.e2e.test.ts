import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Rewind in the dev UI, end to end: the built `troupe web` serves fixtures/rewind-apps (Notebook
// remembers a fruit in state), and Debian's Chromium (launched by path through playwright-core)
// checks that "Rewind to here" on a user message restores the state the UI shows and marks the
// rewound events. Skipped without Chromium on a developer's machine; in CI (CI=true) a missing
// browser fails.

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(repo, 'packages/cli/dist/main.js');
const appsDir = 'packages/server/test/e2e/fixtures/rewind-apps';
const POLL = { timeout: 15_000 };

describe.skipIf(!existsSync(CHROMIUM) && !IN_CI)('troupe web: rewind in the dev UI (Chromium)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-dev-ui-rewind-'));
  let server: ChildProcessWithoutNullStreams | undefined;
  let baseUrl = '';
  let browser: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is missing at ${CHROMIUM}, and CI=true requires the dev UI test to run. Install Debian's package: apt-get install -y chromium (.ci/run does this).`);
    }
    await buildIfNeeded();
    ({ server, url: baseUrl } = await startTroupeWeb(join(scratch, 'troupe.db')));
    browser = await chromium.launchPersistentContext(join(scratch, 'chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1440, height: 900 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The state the event details show after the event selected by clicking `event`. */
  async function stateAfter(index: number): Promise<unknown> {
    await page.locator('.event .event-head').nth(index).click();
    const details = page.getByRole('region', { name: /Event #/ }).locator('details').filter({ hasText: 'State after this event' });
    await details.locator('summary').click();
    return JSON.parse(await details.locator('pre.json').innerText()) as unknown;
  }

  async function send(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.getByRole('status').innerText(), POLL).toMatch(/^Session /);
  }

  it('"Rewind to here" on a user message restores the state shown and marks the later events rewound', async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe('notebook');
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();

    await send('Remember apple');
    await expect.poll(() => page.locator('.event').count(), POLL).toBe(4);
    await send('Remember pear');
    await expect.poll(() => page.locator('.event').count(), POLL).toBe(8);
    expect(await stateAfter(7)).toEqual({ fruit: 'pear', second: true });

    // Rewind to before "Remember pear", confirming the dialog.
    page.once('dialog', (dialog) => void dialog.accept());
    const pear = page.locator('.event[data-author="user"]').filter({ hasText: 'Remember pear' });
    await pear.getByRole('button', { name: 'Rewind to here' }).click();

    await expect.poll(() => page.locator('.event').count(), POLL).toBe(9);
    await expect.poll(() => page.locator('.event.rewound').count(), POLL).toBe(4);
    expect((await page.locator('.event.rewound .rewound-label').allInnerTexts()).map((t) => t.toLowerCase())).toEqual(['rewound', 'rewound', 'rewound', 'rewound']);
    expect(await page.locator('.event').nth(8).locator('.rewind-card').innerText()).toMatch(/Rewound to before invocation/);
    // No rewinding to a message already rewound; the first turn's message still offers it.
    expect(await pear.getByRole('button', { name: 'Rewind to here' }).count()).toBe(0);
    expect(await page.locator('.event[data-author="user"]').filter({ hasText: 'Remember apple' }).getByRole('button', { name: 'Rewind to here' }).count()).toBe(1);

    // The state after the rewind is the state before the rewound turn.
    expect(await stateAfter(8)).toEqual({ fruit: 'apple' });
    // The chat leaves the rewound turn out.
    const chat = page.getByRole('log', { name: 'Conversation' });
    expect(await chat.innerText()).not.toMatch(/Remember pear/);
    expect(await chat.innerText()).toMatch(/rewound 4 events/);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

/** `npm test` builds first; build here when this file runs on its own, and always bundle the UI (fast) so it is current. */
async function buildIfNeeded(): Promise<void> {
  const run = promisify(execFile);
  if (!existsSync(bin) || !existsSync(join(repo, 'packages/server/dist/index.js'))) {
    await run(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], { cwd: repo });
  }
  await run(process.execPath, ['packages/server/ui/build.mjs'], { cwd: repo });
}

/** Starts the built `troupe web` on a free port and resolves with its URL once it listens. */
function startTroupeWeb(db: string): Promise<{ server: ChildProcessWithoutNullStreams; url: string }> {
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

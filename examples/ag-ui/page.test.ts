import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExample } from './server.js';

// The example page in Chromium: server.ts bundles it with esbuild and serves it beside the
// concierge app (offline model, no network); Debian's Chromium, driven by playwright-core, chats
// as a guest would. Without Chromium the suite is skipped on a developer's machine and fails in CI.

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const POLL = { timeout: 15_000 };

// The page runs in a browser, so the repository's TypeScript project (Node types) leaves it out;
// it has a project of its own, with the DOM types, checked here.
it('examples/ag-ui: the page type-checks', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await expect(
    promisify(execFile)(process.execPath, [tsc, '-p', fileURLToPath(new URL('./page', import.meta.url))]),
  ).resolves.toBeDefined();
}, 60_000);

describe.skipIf(!existsSync(CHROMIUM) && !IN_CI)('examples/ag-ui: the page in Chromium', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-ag-ui-page-'));
  let example: Awaited<ReturnType<typeof startExample>>;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium is missing at ${CHROMIUM}, and CI=true requires the example's browser test to run. Install Debian's package: apt-get install -y chromium.`,
      );
    example = await startExample({ port: 0 });
    browser = await chromium.launchPersistentContext(join(scratch, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${example.url}/`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await example?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  async function send(text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
  }

  const assistant = () => page.locator('#messages li.assistant');

  it('chats: the streamed answer appears under the agent’s name', async () => {
    await send('Hello there');
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('You said: "Hello there"');
    expect(await assistant().last().locator('.author').textContent()).toBe('Concierge');
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), POLL).toBe(true);
  });

  it('runs the page’s own tool when the agent calls it, and the agent goes on with its result', async () => {
    await send('Show a note: buy flowers');
    await expect.poll(() => page.locator('#notes li').allTextContents(), POLL).toEqual(['Show a note: buy flowers']);
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('show_note returned {"shown":true}');
  });

  it('asks the guest to approve a booking, then books it and shows the state', async () => {
    await send('Book a table for 2 people');
    const question = page.locator('#interrupts .interrupt');
    await expect
      .poll(() => question.textContent(), POLL)
      .toContain('Allow tool \'book_table\' to run with {"people":2}?');
    expect(await page.locator('#state').textContent()).not.toContain('booking');

    await question.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(async () => JSON.parse((await page.locator('#state').textContent()) ?? '{}') as unknown, POLL)
      .toEqual({ booking: { people: 2, reference: 'CT-102' } });
    await expect
      .poll(() => assistant().last().textContent(), POLL)
      .toContain('book_table returned {"people":2,"reference":"CT-102"}');
    expect(await page.locator('#interrupts .interrupt').count()).toBe(0);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(pageErrors).toEqual([]);
  });
});

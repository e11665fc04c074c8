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

// The example page in Chromium: server.ts bundles it (React, useChat) with esbuild and serves it
// beside the box-office app (offline model, no network); Debian's Chromium, driven by
// playwright-core, chats as a guest would. Without Chromium the suite is skipped on a developer's
// machine and fails in CI.

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const POLL = { timeout: 15_000 };

// The page runs in a browser, so the repository's TypeScript project (Node types) leaves it out;
// it has a project of its own, with the DOM types and JSX, checked here.
it('examples/ai-sdk-chat: the page type-checks', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await expect(
    promisify(execFile)(process.execPath, [tsc, '-p', fileURLToPath(new URL('./page', import.meta.url))]),
  ).resolves.toBeDefined();
}, 60_000);

describe.skipIf(!existsSync(CHROMIUM) && !IN_CI)('examples/ai-sdk-chat: the page in Chromium', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-ai-sdk-page-'));
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
    expect(await assistant().last().locator('.author').first().textContent()).toBe('BoxOffice');
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), POLL).toBe(true);
  });

  it('asks the guest to approve a reservation; Approve runs the tool and its result and receipt appear', async () => {
    await send('Reserve 2 tickets');
    const approval = page.getByRole('group', { name: 'Approval' });
    await expect
      .poll(() => approval.textContent(), POLL)
      .toContain('Allow tool \'reserve_tickets\' to run with {"tickets":2}?');
    await approval.getByRole('button', { name: 'Approve' }).click();

    await expect
      .poll(() => assistant().last().textContent(), POLL)
      .toContain('reserve_tickets returned {"tickets":2,"reference":"BX-402"}');
    await expect
      .poll(() => assistant().last().locator('.receipt').textContent(), POLL)
      .toBe('Receipt BX-402: 2 ticket(s), 50 EUR');
    // The offline model's summary of the result, in the same assistant message.
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('Here is what I found');
    expect(await assistant().count()).toBe(2);
    expect(await page.getByRole('group', { name: 'Approval' }).count()).toBe(0);
    expect(await page.locator('#error').textContent()).toBe('');
    expect(pageErrors).toEqual([]);
  });

  it('a denial ends the call without running it', async () => {
    await send('Reserve 3 tickets');
    const approval = page.getByRole('group', { name: 'Approval' });
    await approval.getByRole('button', { name: 'Deny' }).click();
    await expect
      .poll(() => assistant().last().textContent(), POLL)
      .toContain('reserve_tickets was denied and did not run.');
    expect(await assistant().last().locator('.receipt').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});

import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Artifacts in the dev UI, end to end: the built `troupe web` serves the scripted app of
// fixtures/artifact-apps (a tool saves a PNG and a note; another agent shows the PNG inline), and
// Debian's Chromium (launched by path through playwright-core) checks that the Artifacts panel and
// the chat and event views draw the images. Skipped without Chromium on a developer's machine; in
// CI (CI=true) a missing browser fails.

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(repo, 'packages/cli/dist/main.js');
const appsDir = 'packages/server/test/e2e/fixtures/artifact-apps';
const POLL = { timeout: 15_000 };

describe.skipIf(!existsSync(CHROMIUM) && !IN_CI)('troupe web: artifacts in the dev UI (Chromium)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-dev-ui-artifacts-'));
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

  it("lists a tool's PNG artifact and shows it as an image; an inlineData PNG in an event renders as an image", async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe('painter');
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();
    const panel = page.getByRole('region', { name: 'Artifacts' });
    await panel.getByText('No artifacts in this session.').waitFor();

    await page.getByLabel('Message').fill('Paint a swatch');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.getByRole('status').innerText(), POLL).toMatch(/^Session /);

    // The panel lists the session's artifact and the user's note; the PNG opens as an <img>.
    const list = panel.getByRole('list', { name: 'Artifacts of the session' });
    await expect.poll(() => list.getByRole('listitem').allInnerTexts(), POLL).toEqual(['swatch.png', 'user:notes.md']);
    await list.getByRole('button', { name: 'swatch.png' }).click();
    const image = panel.locator('img.artifact-image');
    await image.waitFor();
    expect(await image.getAttribute('alt')).toBe('swatch.png (version 0)');
    expect(await drawnSize(image)).toEqual({ width: 8, height: 8 });
    expect(await panel.getByRole('group', { name: 'Versions of swatch.png' }).getByRole('button').allInnerTexts()).toEqual(['0']);

    // Text shows as text.
    await list.getByRole('button', { name: 'user:notes.md' }).click();
    await expect.poll(() => panel.locator('pre.artifact-text').innerText(), POLL).toBe('Red, 8 by 8.');

    // Framer's message carries the PNG as inlineData: an image in the chat and in its event.
    const chatImage = page.getByRole('log', { name: 'Conversation' }).locator('.msg.image img.inline-image');
    await chatImage.waitFor();
    expect(await drawnSize(chatImage)).toEqual({ width: 8, height: 8 });
    const eventImage = page.locator('.event[data-author="Framer"] .fact-data img.inline-image');
    await eventImage.waitFor();
    expect(await drawnSize(eventImage)).toEqual({ width: 8, height: 8 });
    expect(await page.locator('.event[data-author="Framer"]').innerText()).not.toMatch(/image\/png, \d+ bytes/);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

/** The decoded size of an <img> (0 × 0 when the browser could not draw it). */
function drawnSize(image: Locator): Promise<{ width: number; height: number }> {
  return image.evaluate((element) => {
    const img = element as unknown as { complete: boolean; naturalWidth: number; naturalHeight: number };
    return { width: img.naturalWidth, height: img.naturalHeight };
  });
}

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

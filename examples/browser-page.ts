import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

// What the browser tests of the examples with a page (ag-ui, ai-sdk-chat) share: the page's own
// type check, and Debian's Chromium, driven by playwright-core, on the page the example serves.

export const CHROMIUM = '/usr/bin/chromium';
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** True when a browser suite should be skipped: no Chromium, and not in CI (where a missing browser fails instead). */
export const NO_BROWSER = !existsSync(CHROMIUM) && !IN_CI;
/** expect.poll waits 1 s by default; the machine may be busy with other test files. */
export const POLL = { timeout: 15_000 };

/**
 * The test that the page in `pageDir` type-checks. The page runs in a browser, so the repository's
 * TypeScript project (Node types) leaves it out; it has a project of its own, with the DOM types,
 * checked here.
 */
export function itTypeChecksPage(example: string, pageDir: URL): void {
  it(`${example}: the page type-checks`, async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    await expect(promisify(execFile)(process.execPath, [tsc, '-p', fileURLToPath(pageDir)])).resolves.toBeDefined();
  }, 60_000);
}

/** A started example: where it listens, and how to stop it. */
export interface StartedExample {
  url: string;
  close(): Promise<void>;
}

/** An example's page in Chromium: read its fields inside tests (they are set in `beforeAll`). */
export interface ExamplePage {
  /** The browser's page on the example's `/` (15 s default timeout). */
  readonly page: Page;
  /** The page's uncaught errors so far (a test ends expecting none). */
  readonly pageErrors: readonly string[];
}

/**
 * Registers the `beforeAll`/`afterAll` of an example's browser suite: starts the example, opens
 * Chromium on a fresh profile in a temporary folder named from `scratchPrefix`, and goes to the
 * example's page; afterwards closes the browser and the example and removes the folder. Call it
 * inside `describe`.
 */
export function useExamplePage(scratchPrefix: string, start: () => Promise<StartedExample>): ExamplePage {
  const scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
  let example: StartedExample | undefined;
  let browser: BrowserContext | undefined;
  let page: Page | undefined;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium is missing at ${CHROMIUM}, and CI=true requires the example's browser test to run. Install Debian's package: apt-get install -y chromium.`,
      );
    example = await start();
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

  return {
    get page() {
      if (page === undefined)
        throw new Error("The example's browser suite has no page yet: read it inside a test, after beforeAll.");
      return page;
    },
    pageErrors,
  };
}

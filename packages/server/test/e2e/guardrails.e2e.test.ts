import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfNeeded, CHROMIUM, IN_CI, launchChromium, startTroupeWeb } from './troupe-web.js';

// A run a guardrail blocked, in the dev UI, end to end: the built `troupe web` serves
// fixtures/guardrail-apps (Tutor refuses homework), and Chromium checks that the event shows as a
// "Blocked by guardrail" card and the chat says so. Skipped without Chromium on a developer's
// machine; in CI (CI=true) a missing browser fails.

const POLL = { timeout: 15_000 };

describe.skipIf(!existsSync(CHROMIUM) && !IN_CI)('troupe web: a blocked run in the dev UI (Chromium)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-dev-ui-guardrails-'));
  let server: ChildProcessWithoutNullStreams | undefined;
  let baseUrl = '';
  let browser: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    await buildIfNeeded();
    ({ server, url: baseUrl } = await startTroupeWeb('packages/server/test/e2e/fixtures/guardrail-apps', join(scratch, 'troupe.db')));
    browser = await launchChromium(join(scratch, 'chromium-profile'));
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });

  it("shows the GUARDRAIL_TRIPPED event as a 'Blocked by guardrail' card, and a chat line", async () => {
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe('tutor');
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();

    await page.getByLabel('Message').fill('Do my homework');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const card = page.locator('.event[data-author="Tutor"] .fact-blocked');
    await card.waitFor();
    expect(await card.innerText()).toMatch(/^BLOCKED\s+Blocked by guardrail 'no_homework' — Guardrail 'no_homework' tripped on the input of agent 'Tutor'/);
    expect(await page.locator('.event .fact-error').count()).toBe(0);
    const chat = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => chat.innerText(), POLL).toContain("Blocked by guardrail 'no_homework'");
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

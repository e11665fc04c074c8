import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { WireSession } from '../../src/index.js';
import { NO_BROWSER, POLL, repo, useDevUi, waitUntilIdle } from './troupe-web.js';

// The dev UI end to end: the built `troupe web` serves scripted apps (fixtures/apps: concierge,
// relay for Stop, todo-plan for the Patterns panel; no network), and Debian's Chromium, driven by playwright-core, uses the page as a
// person would. Playwright never downloads a browser here: the system's chromium is launched by
// path. Without it the suite is skipped on a developer's machine, and fails in CI (CI=true), where
// a skipped browser test would prove nothing.

// The screenshot in docs/dev-ui.md is refreshed with TROUPE_UPDATE_SCREENSHOT=1; otherwise the test
// writes it to a temporary folder, so an ordinary test run leaves the work tree unchanged.
const screenshotPath =
  process.env.TROUPE_UPDATE_SCREENSHOT === '1'
    ? join(repo, 'docs/images/dev-ui.png')
    : join(tmpdir(), `troupe-dev-ui-${process.pid}.png`);

const GREETING = 'Hello! I am the concierge of Chez Troupe. Ask me to book a table.';
const CONFIRMATION = 'Done: your table for 2 at 19:30 is booked (reference CT-042).';
const PLAN = 'Plan: research, then write.';
const REBOUND = 'rebound.test';

describe.skipIf(NO_BROWSER)('troupe web: the dev UI in Chromium', () => {
  const web = useDevUi('packages/server/test/e2e/fixtures/apps', {
    scratchPrefix: 'troupe-dev-ui-',
    // Names an attacker controls, resolved to this machine: DNS rebinding without a DNS server.
    chromiumArgs: ['--disable-quic', `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`],
  });

  it('chats with streamed text, shows the events live, and finishes the run after an approval in the UI', async () => {
    const { page, baseUrl } = web;
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${baseUrl}/`);
    await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe('concierge');
    for (const agent of ['Concierge', 'Booker', 'Info']) await page.locator(`[data-agent="${agent}"]`).waitFor();

    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();

    // Turn 1: the greeting streams in chunks while the tree shows who speaks.
    await page.getByLabel('Message').fill('Hello');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    // Read in one go in the page: the streamed text and the highlighted agent at the same moment.
    const midStream = await page.waitForFunction(() => {
      const { document } = globalThis as unknown as {
        document: {
          querySelector(
            selector: string,
          ): { textContent: string | null; getAttribute(name: string): string | null } | null;
        };
      };
      const text = document.querySelector('[data-streaming] .bubble')?.textContent ?? '';
      const speaking = document.querySelector('.agent-node.speaking')?.getAttribute('data-agent');
      return text.includes('Hello!') ? { text, speaking } : false;
    });
    const partial = (await midStream.jsonValue()) as { text: string; speaking?: string };
    expect(partial.speaking).toBe('Concierge');
    expect(partial.text.replace('▍', '')).not.toContain('Ask me to book a table.');
    await chat(page).getByText(GREETING, { exact: true }).waitFor();
    await expect.poll(() => page.locator('[data-streaming]').count(), POLL).toBe(0);
    await waitUntilIdle(page);
    const greetingEvent = page.locator('.event[data-author="Concierge"]').filter({ hasText: GREETING });
    expect(await greetingEvent.locator('.fact-usage').count()).toBe(1);
    expect(await greetingEvent.locator('.where').innerText()).toContain('path Concierge');

    // Turn 2: a transfer to Booker, whose tool waits for approval.
    await page.getByLabel('Message').fill('Book a table for two at 19:30');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const interrupt = page.getByRole('article', { name: 'Confirmation for book_table' });
    await interrupt.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    expect(await interrupt.innerText()).toContain(`Allow tool 'book_table' to run with {"guests":2,"time":"19:30"}?`);
    await expect.poll(() => page.getByRole('status').innerText(), POLL).toBe('Paused: 1 interrupt waiting');
    expect(
      await page
        .locator('.event')
        .filter({ has: page.locator('.fact-transfer', { hasText: 'to Booker' }) })
        .count(),
    ).toBe(1);
    expect(
      await page
        .locator('.event[data-author="Booker"]')
        .filter({ has: page.locator('.fact-call', { hasText: 'book_table' }) })
        .count(),
    ).toBe(1);
    expect(await page.getByLabel('Message').getAttribute('placeholder')).toBe('Answer the open interrupt above first');

    // The state diff of the greeting (outputKey 'greeting'), shown while the run waits: the screenshot of the docs.
    await greetingEvent.getByRole('button').first().click();
    const detail = page.getByRole('region', { name: /Event #\d+ by Concierge/ });
    await detail.getByRole('table').waitFor();
    expect(await detail.getByRole('row', { name: /greeting/ }).innerText()).toContain('(unset)');
    mkdirSync(dirname(screenshotPath), { recursive: true });
    await page.screenshot({ path: screenshotPath });

    // Approve: the tool runs, the rest of the run streams, the interrupt is gone.
    await interrupt.getByRole('button', { name: 'Approve', exact: true }).click();
    await chat(page).getByText(CONFIRMATION, { exact: true }).waitFor();
    await waitUntilIdle(page);
    expect(await page.getByRole('article').count()).toBe(0);
    expect(await chat(page).innerText()).toContain('You approved book_table');

    const toolResult = page.locator('.event').filter({ has: page.locator('.fact-result', { hasText: 'book_table' }) });
    await toolResult.getByRole('button').first().click();
    const booking = page.getByRole('region', { name: /Event #\d+ by Booker/ }).getByRole('row', { name: /booking/ });
    expect(await booking.innerText()).toContain('"reference": "CT-042"');
    expect(pageErrors).toEqual([]);
  }, 90_000);

  it('reopens the stored session from its URL and steps through its events', async () => {
    const { page, baseUrl } = web;
    const url = new URL(page.url());
    const sessionId = url.searchParams.get('session');
    expect(sessionId).toBeTruthy();
    const stored = (await (
      await fetch(`${baseUrl}/apps/concierge/users/user/sessions/${sessionId}`)
    ).json()) as WireSession;

    await page.reload();
    await chat(page).getByText(CONFIRMATION, { exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: /^Events/ }).textContent()).toBe(
      `Events (${stored.events!.length})`,
    );
    expect(await chat(page).getByText(GREETING, { exact: true }).count()).toBe(1);

    await page.locator('.event').first().locator('.event-head').click();
    await page.getByRole('button', { name: 'Next ▶' }).click();
    await page.getByRole('region', { name: /^Event #2 by Concierge/ }).waitFor();
    expect(await page.locator('.agent-node.active').getAttribute('data-agent')).toBe('Concierge');

    await page.getByRole('button', { name: '▶ Replay' }).click();
    await page.getByRole('button', { name: '■ Stop' }).click();
    await page.getByRole('button', { name: '▶ Replay' }).waitFor();
  }, 60_000);

  it("shows a plan-execute run's plan with its finished steps, and why it stopped before the last", async () => {
    const { page, baseUrl } = web;
    await page.goto(baseUrl);
    await page.getByLabel('App').selectOption('todo-plan');
    await page.locator('[data-agent="Checklist"]').waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();
    await page.getByLabel('Message').fill('Get the house ready');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const plan = page.getByRole('list', { name: 'Plan of Checklist' });
    const steps = async () =>
      (await plan.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).join(' | ');
    await expect.poll(steps, POLL).toBe('✓ Pack (done) | ✓ Lock the door (done) | ○ Water the plants (open)');
    expect(await page.locator('.plan-status').innerText()).toBe('Plan stopped: reached its maximum of 2 steps');
  });

  it('Stop cancels a run: the stored cancellation is shown at once, and the session takes the next message', async () => {
    const { page, baseUrl } = web;
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${baseUrl}/`);
    await page.getByLabel('App').selectOption('relay');
    await page.locator('[data-agent="Researcher"]').waitFor();
    await page.getByRole('button', { name: 'New session' }).click();
    await page.locator('.session-item[aria-current="true"]').waitFor();

    // Researcher works for a minute on this message: Stop while it does.
    await page.getByLabel('Message').fill('Take it slowly');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await chat(page).getByText(PLAN, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Stop run' }).click();

    // The cancellation the server stored is in the chat and the events, and the run is over.
    await chat(page)
      .getByText(/CANCELLED: The run was cancelled on request/)
      .waitFor();
    await waitUntilIdle(page);
    const sessionId = new URL(page.url()).searchParams.get('session');
    const stored = (await (
      await fetch(`${baseUrl}/apps/relay/users/user/sessions/${sessionId}`)
    ).json()) as WireSession;
    expect(stored.events!.map((e) => e.errorCode ?? e.author)).toEqual(['user', 'Planner', 'CANCELLED']);
    expect(await page.getByRole('heading', { name: /^Events/ }).textContent()).toBe('Events (3)');
    expect(await page.locator('.event.has-error').count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);

    // The session is free: the next message runs all three steps.
    await page.getByLabel('Message').fill('Quick one');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await chat(page).getByText('Report: written.', { exact: true }).waitFor();
    await waitUntilIdle(page);
    expect(await chat(page).getByText('Research: done.', { exact: true }).count()).toBe(1);
    expect(
      await chat(page)
        .getByText(/CANCELLED:/)
        .count(),
    ).toBe(1);
    expect(await page.getByRole('heading', { name: /^Events/ }).textContent()).toBe('Events (7)');
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('works at http://localhost too; a page on a rebound name or another origin cannot read or change sessions', async () => {
    const { page, baseUrl } = web;
    const port = new URL(baseUrl).port;
    const sessions = async () =>
      ((await (await fetch(`${baseUrl}/apps/concierge/users/user/sessions`)).json()) as WireSession[]).length;
    const before = await sessions();

    // The dev UI opened by another loopback name is the server's own page.
    await page.goto(`http://localhost:${port}/`);
    await expect.poll(() => page.getByLabel('App').inputValue(), POLL).toBe('concierge');
    await page.locator('.session-item').first().waitFor();

    // The rebound name gets nothing from the server, not even the UI; its script cannot list or create sessions.
    const rebound = await page.goto(`http://${REBOUND}:${port}/`);
    expect(rebound!.status()).toBe(403);
    expect(await rebound!.text()).toContain('HOST_NOT_ALLOWED');
    const fromRebound = await page.evaluate(async () => {
      const list = await fetch('/apps/concierge/users/user/sessions');
      const create = await fetch('/apps/concierge/users/user/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      return [list.status, create.status];
    });
    expect(fromRebound).toEqual([403, 403]);

    // A page of another origin (another local dev server): its JSON call fails the preflight, and its
    // "simple" no-cors POST, which needs none, is refused by the server.
    const elsewhere = createServer((_request, response) =>
      response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'),
    );
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://localhost:${(elsewhere.address() as AddressInfo).port}/`);
      const fromForeign = await page.evaluate(async (api) => {
        const url = `${api}/apps/concierge/users/user/sessions`;
        const outcome = (request: Promise<Response>) =>
          request.then(
            (response) => `answered ${response.type} ${response.status}`,
            (error: Error) => `blocked: ${error.message}`,
          );
        return [
          await outcome(fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })),
          await outcome(
            fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{}' }),
          ),
        ];
      }, baseUrl);
      expect(fromForeign).toEqual(['blocked: Failed to fetch', 'answered opaque 0']);
    } finally {
      elsewhere.close();
    }
    expect(await sessions()).toBe(before);
    expect(web.serverOutput).not.toContain('failed');
  }, 60_000);

  it('stops gracefully on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => web.server.once('exit', (code) => resolve(code)));
    web.server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(web.serverOutput).toContain('Stopping');
  }, 30_000);
});

function chat(page: Page) {
  return page.getByRole('log', { name: 'Conversation' });
}

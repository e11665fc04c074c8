import { describe, expect, it } from 'vitest';
import { itTypeChecksPage, NO_BROWSER, POLL, useExamplePage } from '../browser-page.js';
import { startExample } from './server.js';

// The example page in Chromium: server.ts bundles it with esbuild and serves it beside the
// concierge app (offline model, no network); Debian's Chromium, driven by playwright-core, chats
// as a guest would. Without Chromium the suite is skipped on a developer's machine and fails in CI.

itTypeChecksPage('examples/ag-ui', new URL('./page', import.meta.url));

describe.skipIf(NO_BROWSER)('examples/ag-ui: the page in Chromium', () => {
  const example = useExamplePage('troupe-ag-ui-page-', () => startExample({ port: 0 }));

  async function send(text: string): Promise<void> {
    await example.page.getByLabel('Message').fill(text);
    await example.page.getByRole('button', { name: 'Send' }).click();
  }

  const assistant = () => example.page.locator('#messages li.assistant');

  it('chats: the streamed answer appears under the agent’s name', async () => {
    const { page } = example;
    await send('Hello there');
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('You said: "Hello there"');
    expect(await assistant().last().locator('.author').textContent()).toBe('Concierge');
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), POLL).toBe(true);
  });

  it('runs the page’s own tool when the agent calls it, and the agent goes on with its result', async () => {
    const { page } = example;
    await send('Show a note: buy flowers');
    await expect.poll(() => page.locator('#notes li').allTextContents(), POLL).toEqual(['Show a note: buy flowers']);
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('show_note returned {"shown":true}');
  });

  it('asks the guest to approve a booking, then books it and shows the state', async () => {
    const { page, pageErrors } = example;
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

import { describe, expect, it } from 'vitest';
import { itTypeChecksPage, NO_BROWSER, POLL, useExamplePage } from '../browser-page.js';
import { startExample } from './server.js';

// The example page in Chromium: server.ts bundles it (React, useChat) with esbuild and serves it
// beside the box-office app (offline model, no network); Debian's Chromium, driven by
// playwright-core, chats as a guest would. Without Chromium the suite is skipped on a developer's
// machine and fails in CI.

itTypeChecksPage('examples/ai-sdk-chat', new URL('./page', import.meta.url));

describe.skipIf(NO_BROWSER)('examples/ai-sdk-chat: the page in Chromium', () => {
  const example = useExamplePage('troupe-ai-sdk-page-', () => startExample({ port: 0 }));

  async function send(text: string): Promise<void> {
    await example.page.getByLabel('Message').fill(text);
    await example.page.getByRole('button', { name: 'Send' }).click();
  }

  const assistant = () => example.page.locator('#messages li.assistant');

  it('chats: the streamed answer appears under the agent’s name', async () => {
    const { page } = example;
    await send('Hello there');
    await expect.poll(() => assistant().last().textContent(), POLL).toContain('You said: "Hello there"');
    expect(await assistant().last().locator('.author').first().textContent()).toBe('BoxOffice');
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).isEnabled(), POLL).toBe(true);
  });

  it('asks the guest to approve a reservation; Approve runs the tool and its result and receipt appear', async () => {
    const { page, pageErrors } = example;
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
    const { page, pageErrors } = example;
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

import { describe, expect, it } from 'vitest';
import { NO_BROWSER, openNewSession, POLL, useDevUi, waitUntilIdle } from './troupe-web.js';

// Rewind in the dev UI, end to end: the built `troupe web` serves fixtures/rewind-apps (Notebook
// remembers a fruit in state), and Debian's Chromium (launched by path through playwright-core)
// checks that "Rewind to here" on a user message restores the state the UI shows and marks the
// rewound events. Skipped without Chromium on a developer's machine; in CI (CI=true) a missing
// browser fails.

describe.skipIf(NO_BROWSER)('troupe web: rewind in the dev UI (Chromium)', () => {
  const web = useDevUi('packages/server/test/e2e/fixtures/rewind-apps', { scratchPrefix: 'troupe-dev-ui-rewind-' });

  /** The state the event details show after the event selected by clicking `event`. */
  async function stateAfter(index: number): Promise<unknown> {
    const { page } = web;
    await page.locator('.event .event-head').nth(index).click();
    const details = page
      .getByRole('region', { name: /Event #/ })
      .locator('details')
      .filter({ hasText: 'State after this event' });
    await details.locator('summary').click();
    return JSON.parse(await details.locator('pre.json').innerText()) as unknown;
  }

  async function send(text: string): Promise<void> {
    const { page } = web;
    await page.getByLabel('Message').fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await waitUntilIdle(page);
  }

  it('"Rewind to here" on a user message restores the state shown and marks the later events rewound', async () => {
    const { page } = web;
    const pageErrors = await openNewSession(web, 'notebook');

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
    expect((await page.locator('.event.rewound .rewound-label').allInnerTexts()).map((t) => t.toLowerCase())).toEqual([
      'rewound',
      'rewound',
      'rewound',
      'rewound',
    ]);
    expect(await page.locator('.event').nth(8).locator('.rewind-card').innerText()).toMatch(
      /Rewound to before invocation/,
    );
    // No rewinding to a message already rewound; the first turn's message still offers it.
    expect(await pear.getByRole('button', { name: 'Rewind to here' }).count()).toBe(0);
    expect(
      await page
        .locator('.event[data-author="user"]')
        .filter({ hasText: 'Remember apple' })
        .getByRole('button', { name: 'Rewind to here' })
        .count(),
    ).toBe(1);

    // The state after the rewind is the state before the rewound turn.
    expect(await stateAfter(8)).toEqual({ fruit: 'apple' });
    // The chat leaves the rewound turn out.
    const chat = page.getByRole('log', { name: 'Conversation' });
    expect(await chat.innerText()).not.toMatch(/Remember pear/);
    expect(await chat.innerText()).toMatch(/rewound 4 events/);
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

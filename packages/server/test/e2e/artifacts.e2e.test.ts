import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { NO_BROWSER, openNewSession, POLL, useDevUi, waitUntilIdle } from './troupe-web.js';

// Artifacts in the dev UI, end to end: the built `troupe web` serves the scripted app of
// fixtures/artifact-apps (a tool saves a PNG and a note; another agent shows the PNG inline), and
// Debian's Chromium (launched by path through playwright-core) checks that the Artifacts panel and
// the chat and event views draw the images. Skipped without Chromium on a developer's machine; in
// CI (CI=true) a missing browser fails.

describe.skipIf(NO_BROWSER)('troupe web: artifacts in the dev UI (Chromium)', () => {
  const web = useDevUi('packages/server/test/e2e/fixtures/artifact-apps', {
    scratchPrefix: 'troupe-dev-ui-artifacts-',
  });

  it("lists a tool's PNG artifact and shows it as an image; an inlineData PNG in an event renders as an image", async () => {
    const { page } = web;
    const pageErrors = await openNewSession(web, 'painter');
    const panel = page.getByRole('region', { name: 'Artifacts' });
    await panel.getByText('No artifacts in this session.').waitFor();

    await page.getByLabel('Message').fill('Paint a swatch');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await waitUntilIdle(page);

    // The panel lists the session's artifact and the user's note; the PNG opens as an <img>.
    const list = panel.getByRole('list', { name: 'Artifacts of the session' });
    await expect.poll(() => list.getByRole('listitem').allInnerTexts(), POLL).toEqual(['swatch.png', 'user:notes.md']);
    await list.getByRole('button', { name: 'swatch.png' }).click();
    const image = panel.locator('img.artifact-image');
    await image.waitFor();
    expect(await image.getAttribute('alt')).toBe('swatch.png (version 0)');
    expect(await drawnSize(image)).toEqual({ width: 8, height: 8 });
    expect(
      await panel.getByRole('group', { name: 'Versions of swatch.png' }).getByRole('button').allInnerTexts(),
    ).toEqual(['0']);

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

import { describe, expect, it } from 'vitest';
import { NO_BROWSER, openNewSession, POLL, useDevUi } from './troupe-web.js';

// A run a guardrail blocked, in the dev UI, end to end: the built `troupe web` serves
// fixtures/guardrail-apps (Tutor refuses homework), and Chromium checks that the event shows as a
// "Blocked by guardrail" card and the chat says so. Skipped without Chromium on a developer's
// machine; in CI (CI=true) a missing browser fails.

describe.skipIf(NO_BROWSER)('troupe web: a blocked run in the dev UI (Chromium)', () => {
  const web = useDevUi('packages/server/test/e2e/fixtures/guardrail-apps', {
    scratchPrefix: 'troupe-dev-ui-guardrails-',
  });

  it("shows the GUARDRAIL_TRIPPED event as a 'Blocked by guardrail' card, and a chat line", async () => {
    const { page } = web;
    const pageErrors = await openNewSession(web, 'tutor');

    await page.getByLabel('Message').fill('Do my homework');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    const card = page.locator('.event[data-author="Tutor"] .fact-blocked');
    await card.waitFor();
    expect(await card.innerText()).toMatch(
      /^BLOCKED\s+Blocked by guardrail 'no_homework' — Guardrail 'no_homework' tripped on the input of agent 'Tutor'/,
    );
    expect(await page.locator('.event .fact-error').count()).toBe(0);
    const chat = page.getByRole('log', { name: 'Conversation' });
    await expect.poll(() => chat.innerText(), POLL).toContain("Blocked by guardrail 'no_homework'");
    expect(pageErrors).toEqual([]);
  }, 90_000);
});

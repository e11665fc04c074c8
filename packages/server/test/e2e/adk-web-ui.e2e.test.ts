import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvent, InMemorySessionService, node, RequestInput, Workflow } from '@troupe/core';
import { createApp, serve, type ServerHandle, type WireSession } from '../../src/index.js';
import { IN_CI, launchChromium, NO_BROWSER, POLL, repo } from './troupe-web.js';

// Google ADK's own web UI (the Angular bundle of @google/adk-devtools 2.0.0) on a Troupe server
// running a graph workflow: it shows the nodes' events with their outputs and paths, draws the
// graph from the ADK graph routes and lights the selected event's node, and answers a RequestInput
// through its adk_request_input card; the run resumes and completes. The bundle comes from the ADK
// install beside the workspace (test/interop/adk-js) or ADK_WEB_UI_DIR; without it the suite is
// skipped, and in CI it fails once test/interop/adk-js declares @google/adk-devtools. No network:
// the UI's Google Fonts requests are refused in the browser.

const INTEROP = join(repo, 'test/interop/adk-js/');
const UI_DIR = process.env.ADK_WEB_UI_DIR ?? join(INTEROP, 'node_modules/@google/adk-devtools/dist/browser');
const HAVE_UI = existsSync(join(UI_DIR, 'index.html'));
const DECLARED = existsSync(join(INTEROP, 'package.json'))
  ? readFileSync(join(INTEROP, 'package.json'), 'utf8').includes('"@google/adk-devtools"')
  : false;
if (!HAVE_UI && !(IN_CI && DECLARED)) {
  console.warn(
    `Skipping the ADK web UI test: ${UI_DIR} is missing. Add "@google/adk-devtools": "2.0.0" to test/interop/adk-js/package.json and run npm ci --prefix test/interop/adk-js, or set ADK_WEB_UI_DIR to an unpacked bundle's dist/browser.`,
  );
}

function intake(): Workflow {
  const greet = node(
    (_ctx, text: string) =>
      createEvent({ output: text.toUpperCase(), route: 'ask', content: { role: 'model', parts: [{ text: 'Hi!' }] } }),
    { name: 'greet' },
  );
  const askName = node(
    (_ctx, greeting: string) => new RequestInput({ message: 'What is your name?', payload: { greeting } }),
    { name: 'askName' },
  );
  const welcome = node((_ctx, name: string) => `Welcome, ${name}!`, { name: 'welcome' });
  return new Workflow({
    name: 'intake',
    edges: [
      ['START', greet, { ask: askName }],
      [askName, welcome],
    ],
  });
}

describe.skipIf(NO_BROWSER || (!HAVE_UI && !(IN_CI && DECLARED)))("ADK's web UI on a Troupe workflow app", () => {
  const sessionService = new InMemorySessionService();
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-adk-web-'));
  let server: ServerHandle;
  let browser: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!HAVE_UI)
      throw new Error(
        `ADK's web UI bundle is missing at ${UI_DIR}, and CI=true with @google/adk-devtools declared in test/interop/adk-js requires this test to run. Install it with: npm ci --prefix test/interop/adk-js.`,
      );
    server = await serve(createApp({ apps: { intake: intake() }, sessionService, staticDir: UI_DIR }), { port: 0 });
    browser = await launchChromium(join(scratch, 'profile'));
    // Only this server: the bundle's Google Fonts links are refused, so the test needs no network.
    await browser.route(/^(?!http:\/\/127\.0\.0\.1)/, (route) => route.abort());
    page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('shows the node events, asks with the adk_request_input card, resumes with the answer, and lights the selected node in the graph', async () => {
    await page.goto(`${server.url}/?app=intake`);
    const input = page.getByPlaceholder('Type a message...');
    await input.fill('hello');
    await input.press('Enter');

    // The pause: ADK's card for the long-running adk_request_input call, with the node's question.
    const card = page.getByPlaceholder('Enter your response...');
    await expect.poll(() => card.count(), POLL).toBe(1);
    await expect.poll(() => page.getByText('What is your name?').count(), POLL).toBeGreaterThan(0);
    // greet's output, as ADK's UI shows an event's output.
    await expect.poll(() => page.getByText('"HELLO"').count(), POLL).toBeGreaterThan(0);

    await card.fill('Ada');
    await card.press('Enter');
    await expect.poll(() => page.getByText('"Welcome, Ada!"').count(), POLL).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('intake completed!').count(), POLL).toBe(1);
    expect(await card.count()).toBe(0);

    // The run went on in the paused invocation and ended with the workflow's output.
    const {
      sessions: [session],
    } = await sessionService.listSessions({ appName: 'intake', userId: 'user' });
    const stored = await sessionService.getSession({ appName: 'intake', userId: 'user', sessionId: session!.id });
    expect(new Set(stored!.events.map((e) => e.invocationId)).size).toBe(1);
    expect(stored!.events.at(-1)).toMatchObject({ author: 'intake', output: 'Welcome, Ada!' });

    // Selecting greet's end event shows its node path, and the graph (from build_graph_image) lights intake.greet.
    await page.getByText('#4', { exact: true }).click();
    await expect.poll(() => page.getByText('intake.greet').count(), POLL).toBeGreaterThan(0);
    const lit = page.locator('svg g.node', { has: page.locator('title', { hasText: /^intake\.greet$/ }) });
    await expect.poll(() => lit.count(), POLL).toBe(1);
    // The UI colours the nodes on the path to the selected event; later ones keep the fill the server gave them.
    const fills = Object.fromEntries(
      await page
        .locator('svg g.node')
        .evaluateAll((nodes) =>
          nodes.map((g) => [
            g.querySelector('title')?.textContent ?? '',
            g.querySelector('polygon,path,ellipse')?.getAttribute('fill') ?? '',
          ]),
        ),
    ) as Record<string, string>;
    const unlit = ['#1e293b', '#ffffff'];
    expect(unlit).toContain(fills['intake.askName']?.toLowerCase());
    expect(unlit).toContain(fills['intake.welcome']?.toLowerCase());
    expect(unlit).not.toContain(fills['intake.greet']?.toLowerCase());

    // A reload reads the session: the request shows as answered (ADK's functionResponse on the resume record).
    await page.reload();
    await expect.poll(() => page.getByText('"Welcome, Ada!"').count(), POLL).toBeGreaterThan(0);
    expect(await page.getByPlaceholder('Enter your response...').count()).toBe(0);
    const wire = (await (
      await fetch(`${server.url}/apps/intake/users/user/sessions/${session!.id}`)
    ).json()) as WireSession;
    expect(
      wire.events!.some((e) =>
        e.content?.parts.some((p) => 'functionResponse' in p && p.functionResponse.name === 'adk_request_input'),
      ),
    ).toBe(true);
  });
});

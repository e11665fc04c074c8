import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { WireSession } from '../../src/index.js';
import { NO_BROWSER, openNewSession, POLL, repo, useDevUi, waitUntilIdle } from './troupe-web.js';

// The workflow graph, end to end: the built `troupe web` serves fixtures/workflow-apps/triage (a
// graph workflow of function nodes, a route map with DEFAULT_ROUTE, a JoinNode, a scripted
// LlmAgent, a RequestInput approval and a loop back with maxIterations), and Debian's Chromium,
// launched by path through playwright-core, checks that the Graph tab draws every node and
// labelled edge, lights what ran as of the selected event, and shows a node's input and output.
// Skipped without Chromium on a developer's machine; in CI (CI=true) a missing browser fails.

// docs/images/workflow-graph.png is refreshed with TROUPE_UPDATE_SCREENSHOT=1; otherwise the
// screenshot goes to a temporary folder, so an ordinary test run leaves the work tree unchanged.
const shotDir =
  process.env.TROUPE_UPDATE_SCREENSHOT === '1'
    ? join(repo, 'docs/images')
    : join(tmpdir(), `troupe-workflow-graph-${process.pid}`);
mkdirSync(shotDir, { recursive: true });

const APPS = 'packages/server/test/e2e/fixtures/workflow-apps';
const NODES = ['classify', 'logs', 'repro', 'answer', 'escalate', 'merge', 'writer', 'approve', 'decide', 'file'];

/** Each node's status as drawn (`data-status` of its box), by name. */
async function drawnStatuses(page: Page): Promise<Record<string, string | null>> {
  const nodes = page.locator('.wf-node');
  const names = await nodes.evaluateAll((all) => all.map((n) => n.getAttribute('data-node')));
  const states = await nodes.evaluateAll((all) => all.map((n) => n.getAttribute('data-status')));
  return Object.fromEntries(names.map((name, i) => [name, states[i]]));
}

function expected(finished: string[], others: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(NODES.map((n) => [n, others[n] ?? (finished.includes(n) ? 'finished' : 'idle')]));
}

describe.skipIf(NO_BROWSER)('troupe web: the workflow graph (Chromium)', () => {
  const web = useDevUi(APPS, { scratchPrefix: 'troupe-workflow-graph-' });

  it('draws every node and labelled edge, lights what ran, and shows a node’s input and output', async () => {
    const { page, baseUrl } = web;
    const pageErrors = await openNewSession(web, 'triage');
    await page.getByRole('tab', { name: 'Graph' }).click();
    const graph = page.getByRole('group', { name: 'Graph of workflow triage' });
    await graph.waitFor();

    // Every node, START, and every edge with its routes (DEFAULT_ROUTE as default).
    expect(Object.keys(await drawnStatuses(page)).sort()).toEqual([...NODES].sort());
    expect(await graph.locator('.wf-start').count()).toBe(1);
    const edges = await page
      .locator('.wf-edge')
      .evaluateAll((all) => all.map((e) => [e.getAttribute('data-edge'), e.getAttribute('data-label')]));
    expect(Object.fromEntries(edges)).toEqual({
      'START→classify': '',
      'classify→logs': 'bug',
      'classify→repro': 'bug',
      'classify→answer': 'question',
      'classify→escalate': 'default',
      'logs→merge': '',
      'repro→merge': '',
      'merge→writer': '',
      'writer→approve': '',
      'approve→decide': '',
      'decide→file': 'approved',
      'decide→writer': 'rejected · max 2×',
    });
    const labels = await page.locator('.wf-edge-label text').allTextContents();
    expect(labels.sort()).toEqual(['approved', 'bug', 'bug', 'default', 'question', 'rejected · max 2×'].sort());
    expect(await page.locator('.wf-edge.back').getAttribute('data-edge')).toBe('decide→writer');
    // Nothing ran yet.
    expect(await drawnStatuses(page)).toEqual(expected([]));

    // A bug ticket runs up to the approval, which waits for an answer.
    await page.getByLabel('Message').fill('The app crashes on save');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.getByRole('status').innerText(), POLL).toMatch(/^Paused: 1 interrupt/);
    await expect
      .poll(() => drawnStatuses(page), POLL)
      .toEqual(expected(['classify', 'logs', 'repro', 'merge', 'writer'], { approve: 'waiting' }));

    // Answered: every node on the bug path finished; the question and default branches never ran.
    await page.getByRole('textbox', { name: 'Answer' }).fill('yes');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await waitUntilIdle(page);
    await expect
      .poll(() => drawnStatuses(page), POLL)
      .toEqual(expected(['classify', 'logs', 'repro', 'merge', 'writer', 'approve', 'decide', 'file']));
    const taken = await page
      .locator('.wf-edge.taken')
      .evaluateAll((all) => all.map((e) => e.getAttribute('data-edge')));
    expect(taken.sort()).toEqual(
      [
        'START→classify',
        'classify→logs',
        'classify→repro',
        'logs→merge',
        'repro→merge',
        'merge→writer',
        'writer→approve',
        'approve→decide',
        'decide→file',
      ].sort(),
    );
    expect(await page.getByTestId('workflow-summary').innerText()).toContain('8 finished');
    expect(await page.getByTestId('workflow-summary').innerText()).toContain('ended');

    // Clicking a node shows its input, output and route.
    await page.getByRole('button', { name: /^classify, function node, finished/ }).click();
    const detail = page.getByRole('region', { name: /^Node classify/ });
    await detail.waitFor();
    const classifyRun = detail.locator('.wf-run');
    expect(await classifyRun.locator('dd').nth(0).innerText()).toBe('"The app crashes on save"');
    expect(await classifyRun.locator('dd').nth(1).innerText()).toBe('"The app crashes on save"');
    expect(await classifyRun.locator('dd').nth(2).innerText()).toBe('bug');
    expect(await page.locator('.wf-node[data-node="classify"]').getAttribute('aria-pressed')).toBe('true');

    // By keyboard: Tab from escalate to the join, the next node, and press Enter; its input is
    // both branches' outputs.
    await page.locator('.wf-node[data-node="escalate"]').focus();
    await page.keyboard.press('Tab');
    const focused = () =>
      page.evaluate(() =>
        (
          globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }
        ).document.activeElement?.getAttribute('data-node'),
      );
    expect(await focused()).toBe('merge');
    await page.keyboard.press('Enter');
    const merge = page.getByRole('region', { name: /^Node merge/ });
    await merge.waitFor();
    const mergeInput = JSON.parse(await merge.locator('.wf-run dd').nth(0).innerText()) as unknown;
    expect(mergeInput).toEqual({ logs: { lines: 2, last: 'TypeError at save()' }, repro: ['ok', 'crash'] });

    // The approval's output is the human's answer; repro lists the child runs it started.
    await page.locator('.wf-node[data-node="approve"]').click();
    const approve = page.getByRole('region', { name: /^Node approve/ });
    expect(await approve.locator('.wf-run dd').nth(1).innerText()).toBe('"yes"');
    await page.locator('.wf-node[data-node="repro"]').press(' ');
    const repro = page.getByRole('region', { name: /^Node repro/ });
    await repro.waitFor();
    expect(
      await repro.locator('.wf-children > li').evaluateAll((all) => all.map((li) => li.getAttribute('data-child'))),
    ).toEqual(['step@1', 'step@2']);
    await repro.locator('.wf-children > li').nth(1).locator('summary').click();
    expect(await repro.locator('.wf-children > li').nth(1).innerText()).toContain('"crash"');

    // The screenshot: the whole graph, lit after the run, above the picked node's runs.
    await page.setViewportSize({ width: 1440, height: 1400 });
    try {
      await page.locator('.panel.workflow').evaluate((panel) => panel.scrollTo(0, 0));
      await page.screenshot({ path: join(shotDir, 'workflow-graph.png') });
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }

    // An earlier event, selected in the Events tab: only classify had run by then.
    const sessionId = new URL(page.url()).searchParams.get('session')!;
    const stored = (await (
      await fetch(`${baseUrl}/apps/triage/users/user/sessions/${sessionId}`)
    ).json()) as WireSession;
    const events = stored.events!;
    const classifyEnd = events.findIndex(
      (e) => e.nodeInfo?.path === 'triage.classify' && e.actions.agentState?.node === 'ended',
    );
    expect(classifyEnd).toBeGreaterThan(0);
    await page.getByRole('tab', { name: 'Events' }).click();
    await page.locator('.event').nth(classifyEnd).locator('.event-head').click();
    await page.getByRole('tab', { name: 'Graph' }).click();
    expect(await page.getByTestId('graph-event').innerText()).toBe(`event #${classifyEnd + 1} of ${events.length}`);
    expect(await drawnStatuses(page)).toEqual(expected(['classify']));
    expect(await page.locator('.wf-edge.taken').count()).toBe(1);

    // One step back, classify had started and not ended: running.
    await page.getByRole('group', { name: 'Graph as of event' }).getByRole('button', { name: '◀ Prev' }).click();
    expect(await drawnStatuses(page)).toEqual(expected([], { classify: 'running' }));

    // At the approval's interrupt: the nodes before it finished, the approval waiting.
    const interrupt = events.findIndex((e) => e.interrupt !== undefined);
    await page.getByRole('tab', { name: 'Events' }).click();
    await page.locator('.event').nth(interrupt).locator('.event-head').click();
    await page.getByRole('tab', { name: 'Graph' }).click();
    expect(await drawnStatuses(page)).toEqual(
      expected(['classify', 'logs', 'repro', 'merge', 'writer'], { approve: 'waiting' }),
    );
    // The picked node's runs follow the event too: repro's children as they were.
    expect(
      await page
        .getByRole('region', { name: /^Node repro/ })
        .locator('.wf-children > li')
        .count(),
    ).toBe(2);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

// Google ADK for JS 2.0 as a client of the Troupe HTTP server: a separate node process from
// test/interop/adk-js (its own install) finds a paused run's confirmation with ADK's own
// getPendingUserInputRequests and answers it as ADK's web UI does. Outside CI the suite is skipped
// when that install is missing; in CI (CI=true) it runs and fails, because a CI run that skipped it
// would prove nothing.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '@troupe/core';
import { createApp, serve } from '../src/index.js';
import { bankAgent } from './helpers.js';

const ADK_DIR = fileURLToPath(new URL('../../../test/interop/adk-js/', import.meta.url));
const HAVE_ADK = existsSync(`${ADK_DIR}node_modules/@google/adk/package.json`);
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
if (!HAVE_ADK && !IN_CI) {
  console.warn(
    `Skipping the ADK JS client interoperability tests: ${ADK_DIR}node_modules is missing. Install it with: npm ci --prefix test/interop/adk-js`,
  );
}

interface AdkView {
  requests: {
    kind: string;
    interruptId: string;
    functionCallName: string;
    toolName: string;
    message?: string;
    author: string;
  }[];
  resumedTexts: string[];
  pendingAfter: number;
}

async function adkClient(decision: 'approve' | 'reject'): Promise<{ view: AdkView; sent: number[] }> {
  if (!HAVE_ADK) {
    throw new Error(
      `Google ADK for JS is not installed in ${ADK_DIR}, and CI=true requires the ADK interoperability tests to run. Install it with: npm ci --prefix test/interop/adk-js (.ci/run does this).`,
    );
  }
  const { agent, sent } = bankAgent([
    { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
    decision === 'approve' ? 'Done: sent 500.' : 'Cancelled.',
  ]);
  const sessionService = new InMemorySessionService();
  const server = await serve(createApp({ apps: { bank: agent }, sessionService }), { port: 0 });
  try {
    const session = await sessionService.createSession({ appName: 'bank', userId: 'alice' });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['confirmation-client.mjs', server.url, 'bank', 'alice', session.id, 'Send 500 to Bob', decision],
      { cwd: ADK_DIR, timeout: 30_000 },
    );
    return { view: JSON.parse(stdout) as AdkView, sent };
  } finally {
    await server.close();
  }
}

describe.skipIf(!HAVE_ADK && !IN_CI)('an ADK JS 2.0 client approving a Troupe tool', () => {
  it("ADK's getPendingUserInputRequests finds the confirmation; its approval runs the tool once and leaves nothing pending", async () => {
    const { view, sent } = await adkClient('approve');
    expect(view.requests).toEqual([
      {
        kind: 'confirmation',
        interruptId: 'Banker:c1',
        functionCallName: 'adk_request_confirmation',
        toolName: 'transfer_money',
        message: 'Allow tool \'transfer_money\' to run with {"amount":500}?',
        author: 'Banker',
      },
    ]);
    expect(sent).toEqual([500]);
    expect(view.resumedTexts).toEqual(['Done: sent 500.']);
    expect(view.pendingAfter).toBe(0);
  });

  it('its rejection never runs the tool', async () => {
    const { view, sent } = await adkClient('reject');
    expect(view.requests.map((r) => r.interruptId)).toEqual(['Banker:c1']);
    expect(sent).toEqual([]);
    expect(view.resumedTexts).toEqual(['Cancelled.']);
    expect(view.pendingAfter).toBe(0);
  });
});

// Google ADK for JS 2.0 calling a Troupe agent served by a2aApp: ADK's RemoteA2AAgent (on
// @a2a-js/sdk 0.3, so the 0.3 card and method names) is the root agent of an ADK runner in a child
// process whose script lives in test/interop/adk-js (its own install). Outside CI the suite is
// skipped when that install is missing; in CI (CI=true) it runs and fails, because a CI run that
// skipped it would prove nothing.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerProcesses, freePort, requireBuilt, scratch, type ServerProcess } from './helpers/server-process.js';

const ADK_DIR = fileURLToPath(new URL('../../../../test/interop/adk-js/', import.meta.url));
const HAVE_ADK = existsSync(`${ADK_DIR}node_modules/@google/adk/package.json`);
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
if (!HAVE_ADK && !IN_CI) {
  console.warn(
    `Skipping the ADK JS → a2aApp interoperability test: ${ADK_DIR}node_modules is missing. Install it with: npm ci --prefix test/interop/adk-js`,
  );
}

const run = promisify(execFile);

interface AdkEvent {
  author: string;
  partial: boolean;
  text: string;
  errorMessage?: string;
  contextId?: string;
  taskId?: string;
}

describe.skipIf(!HAVE_ADK && !IN_CI)("ADK JS 2.0's RemoteA2AAgent consuming a Troupe a2aApp", () => {
  const processes = new ServerProcesses();
  const files = scratch();
  let server: ServerProcess;

  beforeAll(async () => {
    if (!HAVE_ADK) {
      throw new Error(
        `Google ADK for JS is not installed in ${ADK_DIR}, and CI=true requires the A2A interoperability tests to run. Install it with: npm ci --prefix test/interop/adk-js (.ci/run does this).`,
      );
    }
    requireBuilt();
    server = await processes.start({ db: files.db, port: await freePort(), toolLog: files.toolLog });
  }, 30_000); // above the 20 s that start() gives the server, whose own error says why it did not start
  afterAll(async () => {
    await processes.killAll();
    files.remove();
  });

  // The client process spends most of its time importing @google/adk (seconds of CPU): on a loaded
  // 2-core machine it can take well over the default 20 s per test. Its bounds are ones only a hang
  // exceeds: 60 s for the client, 90 s for the test, so that a client that hangs fails with its output.
  it('streams the answer into the ADK session, stores it once, and continues the same Troupe session on the next turn', async () => {
    const { stdout } = await run(
      process.execPath,
      ['remote-a2a-client.mjs', server.baseUrl, 'hello from adk', 'second turn'],
      { cwd: ADK_DIR, timeout: 60_000 },
    );
    const [first, second, stored] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown) as [AdkEvent[], AdkEvent[], { storedTexts: string[] }];

    expect(first.every((e) => e.author === 'bank' && e.errorMessage === undefined)).toBe(true);
    // Streamed chunks first (partial, not stored by ADK), then one final answer: the task's output.
    const partial = first.filter((e) => e.partial).map((e) => e.text);
    expect(partial.join('')).toBe('You said: hello from adk (turn 1)');
    expect(first.filter((e) => !e.partial && e.text !== '').map((e) => e.text)).toEqual([
      'You said: hello from adk (turn 1)',
    ]);

    // ADK sends the second turn on the context the first one returned: the same Troupe session.
    const final = (events: AdkEvent[]) => events.filter((e) => !e.partial && e.text !== '').at(-1)!;
    expect(final(second).text).toBe('You said: second turn (turn 2)');
    expect(final(second).contextId).toBe(final(first).contextId);
    expect(stored.storedTexts).toEqual(['You said: hello from adk (turn 1)', 'You said: second turn (turn 2)']);

    const session = (await (
      await fetch(`${server.apiUrl}/apps/bank/users/a2a/sessions/${final(first).contextId}`)
    ).json()) as { events: { invocationId: string }[] };
    expect(new Set(session.events.map((e) => e.invocationId)).size).toBe(2);
  }, 90_000);
});

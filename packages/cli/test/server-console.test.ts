import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { startServing } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('troupe api / web: the server console', () => {
  it('logs a line per request (method, path, status, ms) and per run (app, session, status), no stack for a 4xx, and a stopped line', async () => {
    const { io, url, exit } = await startServing(fixtures, 'api', 'serve-apps', '--port', '0', '--memory');
    expect((await fetch(`${url}/list-apps?secret=x`)).status).toBe(200);
    expect((await fetch(`${url}/apps/nowhere/users/u/sessions/s`)).status).toBe(404);
    const created = await fetch(`${url}/apps/echo/users/u/sessions/s1`, { method: 'POST' });
    expect(created.status).toBe(200);
    const run = await fetch(`${url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'echo',
        userId: 'u',
        sessionId: 's1',
        newMessage: { role: 'user', parts: [{ text: 'hi' }] },
      }),
    });
    expect(run.status).toBe(200);
    await run.json();
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);

    const lines = io.err().split('\n');
    // The query string may carry secrets: only the path is logged.
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/list-apps 200 \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/apps\/nowhere\/users\/u\/sessions\/s 404 \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^run echo session s1 user u completed \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/apps\/echo\/users\/u\/sessions\/s1 200 \d+ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/run 200 \d+ms$/));
    expect(io.err()).not.toContain('    at ');
    expect(lines).toContain('Troupe API stopped.');
  });

  it("serves examples/team-yaml, whose definition is team.yaml, as an app of 'troupe web examples'", async () => {
    const { io, url, exit } = await startServing(repo, 'web', 'examples', '--port', '0', '--memory');
    expect(io.out()).toMatch(/Apps in examples: .*\bteam-yaml\b/);
    const apps = (await (await fetch(`${url}/list-apps`)).json()) as string[];
    expect(apps).toContain('team-yaml');
    const graph = (await (await fetch(`${url}/apps/team-yaml/graph`)).json()) as { name: string };
    expect(graph.name).toBe('test_team_agent');
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
    expect(io.err()).toContain('Troupe dev UI stopped.');
  });

  it('a second Ctrl-C while runs in flight finish quits at once with exit code 130', async () => {
    const { io, url, exit } = await startServing(fixtures, 'api', 'slow.ts', '--port', '0', '--memory');
    const codes: number[] = [];
    Object.assign(io, { exit: (code: number) => codes.push(code) });
    await fetch(`${url}/apps/slow/users/u/sessions/s`, { method: 'POST' });
    // A run that waits until it is cancelled: the server's graceful stop waits for it.
    const controller = new AbortController();
    const inFlight = fetch(`${url}/run_sse`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'slow',
        userId: 'u',
        sessionId: 's',
        newMessage: { role: 'user', parts: [{ text: 'wait' }] },
      }),
      signal: controller.signal,
    }).catch(() => undefined);
    // In flight once its message is stored.
    for (const deadline = Date.now() + 10_000; ;) {
      const session = (await (await fetch(`${url}/apps/slow/users/u/sessions/s`)).json()) as { events: unknown[] };
      if (session.events.length > 0) break;
      if (Date.now() > deadline) throw new Error('The run did not start within 10 s.');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    io.interrupt();
    for (let waited = 0; !io.err().includes('Stopping') && waited < 5000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    io.interrupt();
    expect(codes).toEqual([ExitCode.cancelled]);
    expect(io.err()).toContain('Quit without waiting for the runs in flight.');
    controller.abort();
    await inFlight;
    // In a real process io.exit has ended it; here the graceful stop goes on to its end.
    expect(await exit).toBe(ExitCode.ok);
  }, 30_000);
});

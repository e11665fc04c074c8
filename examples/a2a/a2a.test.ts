/**
 * The README's two commands, as two processes: `troupe api --a2a` serves the weather agent, and
 * `troupe run` runs the trip planner, whose WeatherAgent sub-agent calls it over A2A. Both use the
 * offline model (no network beyond 127.0.0.1, no key). They run the built CLI (npm run build).
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TROUPE = fileURLToPath(new URL('../../packages/cli/bin/troupe.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../packages/a2a/dist/index.js', import.meta.url));
const run = promisify(execFile);

interface StoredEvent {
  author: string;
  path: string;
  output?: unknown;
  content?: { parts: { text?: string; functionCall?: { name: string; args: Record<string, unknown> } }[] };
}

describe('examples/a2a: a trip planner calls a weather agent in another process over A2A', () => {
  let api: ChildProcessWithoutNullStreams;
  let url = '';

  beforeAll(async () => {
    if (!existsSync(BUILT))
      throw new Error(`This example runs the built CLI and ${BUILT} is missing. Run npm run build first.`);
    api = spawn(
      process.execPath,
      [TROUPE, 'api', 'examples/a2a/weather/agent.ts', '--a2a', '--port', '0', '--memory'],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`troupe api did not start within 30 s: ${err}`)), 30_000);
      api.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      api.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Troupe API: (http:\/\/[^/\s]+)/.exec(out);
        if (match && out.includes('A2A: ')) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      api.once('exit', (code) => reject(new Error(`troupe api exited with ${code}: ${err}`)));
    });
  }, 40_000);

  afterAll(async () => {
    if (api.exitCode === null && api.signalCode === null) {
      const exited = new Promise((resolve) => api.once('exit', resolve));
      api.kill('SIGKILL');
      await exited;
    }
  });

  it('serves the weather agent card with its tool as a skill', async () => {
    const card = (await (
      await fetch(`${url}/a2a/weather/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as { name: string; description: string; skills: { id: string }[] };
    expect(card).toMatchObject({ name: 'WeatherAgent', description: 'Answers weather forecast questions for a city.' });
    expect(card.skills.map((s) => s.id)).toEqual(['WeatherAgent', 'WeatherAgent.get_forecast']);
  });

  it('troupe run: the planner transfers to the remote WeatherAgent, whose answer comes back over A2A', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        TROUPE,
        'run',
        'examples/a2a/trip-planner',
        '--input',
        'What is the weather forecast for Lisbon?',
        '--memory',
        '--json',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, WEATHER_A2A_URL: `${url}/a2a/weather` },
        timeout: 60_000,
      },
    );
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as StoredEvent);
    // --json prints the user's own message first, as the API stores it.
    expect(events[0]).toMatchObject({ author: 'user' });
    expect(events[1]!.content?.parts[0]?.functionCall).toEqual({
      id: expect.any(String),
      name: 'transfer_to_agent',
      args: { agent_name: 'WeatherAgent' },
    });
    const answer = events.at(-1)!;
    expect(answer).toMatchObject({ author: 'WeatherAgent', path: 'TripPlanner/WeatherAgent' });
    expect(answer.output).toMatch(
      /^Here is what I found: get_forecast returned \{.*"forecast":"sunny, 24°C, light wind from the north"\}\.$/,
    );

    // The weather process kept the task in its own session: the A2A context.
    const sessions = (await (await fetch(`${url}/apps/weather/users/a2a/sessions`)).json()) as { id: string }[];
    expect(sessions).toHaveLength(1);
    const remote = (await (await fetch(`${url}/apps/weather/users/a2a/sessions/${sessions[0]!.id}`)).json()) as {
      events: StoredEvent[];
    };
    expect(remote.events.some((e) => e.content?.parts.some((p) => p.functionCall?.name === 'get_forecast'))).toBe(true);
  });
});

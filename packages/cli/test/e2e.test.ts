import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '@troupe/core';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
// The runs keep their sessions in <cwd>/.troupe/troupe.db: a fresh folder, not the repository.
const cwd = mkdtempSync(join(tmpdir(), 'troupe-e2e-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Runs the built `troupe` bin in a scratch directory, as a user would. */
function troupe(args: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

describe('troupe run (built bin, child process)', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(bin) && existsSync(fileURLToPath(new URL('../../core/dist/index.js', import.meta.url)))) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('answers --input with the offline model, says so on stderr, and exits 0', async () => {
    const result = await troupe(['run', fixture('hello.ts'), '--input', 'hello troupe']);
    expect(result.err).toContain('Greeter will answer with the offline demo model, which is not an LLM');
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      'Greeter: (offline model, not an LLM) My task: Greet the user warmly. You said: "hello troupe".\n',
    );
  });

  it('shows transfers, tool calls and tool results of a directory agent', async () => {
    const result = await troupe(['run', fixture('team'), '--input', 'what is the weather forecast in Paris']);
    expect(result.code).toBe(0);
    expect(result.out.split('\n').slice(0, 3)).toEqual([
      'Coordinator: ⇢ transferred to Forecaster',
      'Forecaster: → get_forecast {"city":"what is the weather forecast in Paris"}',
      '            ← get_forecast: {"city":"what is the weather forecast in Paris","forecast":"sunny","celsius":21}',
    ]);
  });

  it('runs a YAML agent whose tool is a TypeScript module (tsx registered, one copy of @troupe/core)', async () => {
    const result = await troupe([
      'run',
      fixture('yaml-agent'),
      '--memory',
      '--input',
      'what is the weather forecast in Paris',
    ]);
    expect(result.code).toBe(0);
    expect(result.out.split('\n').slice(0, 2)).toEqual([
      'Forecaster: → get_forecast {"city":"what is the weather forecast in Paris"}',
      '            ← get_forecast: {"city":"what is the weather forecast in Paris","forecast":"sunny","celsius":21}',
    ]);
    expect(result.err).toContain('Forecaster will answer with the offline demo model');
  });

  it('prints one JSON event per line and nothing else on stdout with --json', async () => {
    const result = await troupe([
      'run',
      fixture('team'),
      '--input',
      'what is the weather forecast in Paris',
      '--json',
      '--session',
      'ci',
      '--user',
      'bot',
    ]);
    expect(result.code).toBe(0);
    const events = result.out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    // The user's event, then the agents' four.
    expect(events).toHaveLength(6);
    expect(events[0]).toMatchObject({
      author: 'user',
      content: { parts: [{ text: 'what is the weather forecast in Paris' }] },
    });
    expect(events.every((e) => !e.partial && e.invocationId === events[0]!.invocationId)).toBe(true);
    expect(events[3]!.content?.parts[0]).toEqual({
      functionCall: {
        id: expect.any(String),
        name: 'get_forecast',
        args: { city: 'what is the weather forecast in Paris' },
      },
    });
    expect(events[5]!.output).toContain('get_forecast returned');
    // Timestamps as the HTTP API sends them: seconds since the epoch (with milliseconds as decimals).
    for (const event of events) expect(Math.abs(event.timestamp - Date.now() / 1000)).toBeLessThan(600);
  });

  it('exits non-zero with the error on stderr when the model fails, in text and JSON mode', async () => {
    const text = await troupe(['run', fixture('failing-model.ts'), '--input', 'hi']);
    expect(text.code).toBe(1);
    expect(text.err).toContain(
      "Model 'unreachable/model-1' answered agent 'Fragile' with error UNAVAILABLE: endpoint for 'unreachable/model-1' is unreachable.",
    );
    expect(text.out).toBe('');

    const json = await troupe(['run', fixture('failing-model.ts'), '--input', 'hi', '--json']);
    expect(json.code).toBe(1);
    const last = JSON.parse(json.out.trim().split('\n').at(-1)!) as Event;
    expect(last).toMatchObject({ author: 'Fragile', errorCode: 'MODEL' });
    expect(json.err).toContain("Error: Model 'unreachable/model-1' answered agent");
  });

  it('chats over stdin until exit', async () => {
    const result = await troupe(['run', fixture('hello.ts')], 'one\ntwo\nexit\n');
    expect(result.code).toBe(0);
    expect(result.out).toContain('You said: "one"');
    expect(result.out).toContain('You said: "two"');
  });

  it('exits with 2 and names the path when the agent file is missing', async () => {
    const result = await troupe(['run', fixture('nope.ts'), '--input', 'hi']);
    expect(result.code).toBe(2);
    expect(result.err).toContain(`No agent file or directory at '${fixture('nope.ts')}'`);
  });

  it('exits with 2 on an unknown flag', async () => {
    const result = await troupe(['run', fixture('hello.ts'), '--verbose']);
    expect(result.code).toBe(2);
    expect(result.err).toContain("Unknown option '--verbose' for 'troupe run'");
  });
});

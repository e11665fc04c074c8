import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, printed, spawnTroupe, stopTroupe } from './cli-process.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

// `troupe api --openai` as users run it: the built bin in its own process, driven by OpenAI's client.
describe('troupe api --openai (a real process)', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(BIN)) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('serves the app as a model: completions, a streamed pause for approval answered by the next message, the token as API key', async () => {
    const api = spawnTroupe(
      ['api', 'approvals.ts', '--openai', '--memory', '--port', '0', '--token', 'desk-secret'],
      fixtures,
    );
    try {
      const [, url] = await printed(api, /Troupe API: (http:\/\/[^/\s]+)/);
      await printed(api, /OpenAI-compatible API: http:\/\/\S+\/v1 \(each app a model, e.g. model 'approvals'/);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'desk-secret', maxRetries: 0, timeout: 20_000 });

      expect((await client.models.list()).data.map((m) => m.id)).toEqual(['approvals']);
      const wrongKey = await new OpenAI({ baseURL: `${url}/v1`, apiKey: 'guess', maxRetries: 0 }).models
        .list()
        .catch((e: unknown) => e);
      expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);

      const hello = await client.chat.completions.create({
        model: 'approvals',
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(hello.choices[0]!.message.content).toBe('You said: hello');

      const { data: stream, response } = await client.chat.completions
        .create({
          model: 'approvals',
          messages: [{ role: 'user', content: 'send 5' }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
        `Allow tool 'transfer_money' to run with {"amount":5}? Answer yes or no.`,
      );
      expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
      const sessionId = response.headers.get('x-session-id')!;
      const interruptId = response.headers.get('x-troupe-interrupt-id');
      expect(interruptId).toBeTruthy();

      const sent = await client.chat.completions.create(
        { model: 'approvals', messages: [{ role: 'user', content: 'yes' }] },
        { headers: { 'X-Session-Id': sessionId } },
      );
      expect(sent.choices[0]!.message.content).toBe('transfer_money said {"status":"sent","amount":5}');

      // The admin token's chats are the 'openai' user's sessions, which the rest of the API shows.
      const stored = await fetch(`${url}/apps/approvals/users/openai/sessions/${sessionId}`, {
        headers: { Authorization: 'Bearer desk-secret' },
      });
      expect(stored.status).toBe(200);
      const session = (await stored.json()) as { events: { interrupt?: { id: string } }[] };
      expect(session.events.some((e) => e.interrupt?.id === interruptId)).toBe(true);

      expect(await stopTroupe(api)).toBe(0);
    } finally {
      await stopTroupe(api);
    }
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { PlainChat } from '../../server/test/ai-sdk/plain-chat.js';
import { BIN, printed, spawnTroupe, stopTroupe } from './cli-process.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

// `troupe api` as users run it, its /chat route driven by the AI SDK's own chat client (the logic
// under useChat): a streamed answer, then an approval clicked and sent back by the client itself.
describe('troupe api: the AI SDK chat route (a real process)', () => {
  beforeAll(async () => {
    // `npm test` builds first; build here only when running this file on a fresh checkout.
    if (existsSync(BIN)) return;
    await promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
      cwd: repo,
    });
  }, 120_000);

  it('answers useChat, and an approval resumes the same assistant message: the tool runs once', async () => {
    const api = spawnTroupe(['api', 'approvals.ts', '--memory', '--port', '0', '--token', 'desk-secret'], fixtures);
    try {
      const [, url] = await printed(api, /Troupe API: (http:\/\/[^/\s]+)/);
      const chat = new PlainChat<UIMessage>({
        id: 'desk-1',
        transport: new DefaultChatTransport({
          api: `${url}/apps/approvals/users/ana/sessions/desk-1/chat`,
          headers: { Authorization: 'Bearer desk-secret' },
        }),
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      });

      await chat.sendMessage({ text: 'hello' });
      expect(chat.error).toBeUndefined();
      expect(chat.messages.at(-1)!.parts.filter((p) => p.type === 'text')).toEqual([
        expect.objectContaining({ text: 'You said: hello' }),
      ]);

      await chat.sendMessage({ text: 'send 5' });
      const asking = chat.messages.at(-1)!;
      const part = asking.parts.find(isToolUIPart)!;
      expect(part).toMatchObject({ type: 'tool-transfer_money', state: 'approval-requested', input: { amount: 5 } });

      await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
      const state = () => chat.messages.at(-1)!.parts.find(isToolUIPart)?.state;
      await expect.poll(state, { timeout: 20_000 }).toBe('output-available');
      await expect.poll(() => chat.status, { timeout: 20_000 }).toBe('ready');
      expect(chat.error).toBeUndefined();
      // One assistant message for the whole turn, its id kept by the resumed stream.
      expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(chat.messages.at(-1)!.id).toBe(asking.id);
      expect(chat.messages.at(-1)!.parts.find(isToolUIPart)).toMatchObject({ output: { status: 'sent', amount: 5 } });

      // The session the chat id named holds the turn, the approval answered once.
      const stored = await fetch(`${url}/apps/approvals/users/ana/sessions/desk-1`, {
        headers: { Authorization: 'Bearer desk-secret' },
      });
      const session = (await stored.json()) as {
        events: { content?: { parts: { functionResponse?: { name: string } }[] } }[];
      };
      const transfers = session.events.filter((e) =>
        e.content?.parts.some((p) => p.functionResponse?.name === 'transfer_money'),
      );
      expect(transfers).toHaveLength(1);
      expect(await stopTroupe(api)).toBe(0);
    } finally {
      await stopTroupe(api);
    }
  }, 60_000);
});

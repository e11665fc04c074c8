import { isToolUIPart, type UIMessage } from 'ai';
import { expect, it } from 'vitest';
import { describeRedis, useRedis } from '../../../queue/test/redis-server.js';
import { chatPath, type ChatServer, send, userMessage } from '../ai-sdk/helpers.js';
import { bankAgent } from '../helpers.js';
import { queuedApp } from './queued-app.js';

// The AI SDK's /chat route with createApp({ queue }): like AG-UI, chat runs execute in the API's
// own process, their chunks streaming to the client that asked. No worker runs here, so a run
// that went to the queue would never answer.

describeRedis('AI SDK chat with a queue', () => {
  const redis = useRedis();

  it('streams in the API’s process, approval round trip included, with no worker', async () => {
    const { agent, sent } = bankAgent([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 30 }, id: 'c1' }] },
      'Sent 30.',
    ]);
    const api = await queuedApp(redis().url, { bank: agent }, { worker: false });
    try {
      const server: ChatServer = {
        app: api.app,
        sessionService: api.sessionService,
        fetch: async (path, init) => api.app.request(path, init),
      };
      const path = chatPath('bank', 'alice', 'queued-chat');
      const ask = userMessage('Send 30');
      const paused = await send(server, path, [ask]);
      expect(paused.message.parts.find(isToolUIPart)).toMatchObject({ state: 'approval-requested' });
      const approved = {
        ...paused.message,
        parts: paused.message.parts.map((part) =>
          isToolUIPart(part) && part.state === 'approval-requested'
            ? { ...part, state: 'approval-responded', approval: { id: part.approval.id, approved: true } }
            : part,
        ),
      } as UIMessage;
      const resumed = await send(server, path, [ask, approved], { continues: approved });
      expect(resumed.message.parts.map((p) => p.type)).toEqual(['tool-transfer_money', 'text']);
      expect(sent).toEqual([30]);
    } finally {
      await api.close();
    }
  });
});

import { modelAdapterContract, type ScriptedProviderTurn } from '@troupe/core/testing/contracts';
import { FakeServer, hang, type RecordedRequest, type Reply } from './fake-server.js';
import type { WireKit } from './kit.js';

/**
 * Runs the model-adapter contract that `@troupe/core/testing/contracts` publishes for outside
 * provider authors against one of this package's adapters, its provider played by the fake server.
 * `userText` reads the last user message's text from a request in the provider's format.
 */
export function publishedAdapterContract(name: string, kit: WireKit, userText: (req: RecordedRequest) => string): void {
  modelAdapterContract(name, async () => {
    const server = await FakeServer.start();
    const lastRequest = (): RecordedRequest => {
      const req = server.requests[server.requests.length - 1];
      if (!req) throw new Error(`The fake ${kit.label} server has received no request.`);
      return req;
    };
    return {
      model: kit.model(server, { retry: false }),
      reply: (turn) => server.reply(toReply(kit, turn)),
      received: () => ({
        systemInstruction: kit.system(lastRequest()),
        toolNames: kit.toolNames(lastRequest()),
        userText: userText(lastRequest()),
      }),
      close: () => server.close(),
    };
  });
}

function toReply(kit: WireKit, turn: ScriptedProviderTurn): Reply {
  if ('hang' in turn) return hang();
  if ('error' in turn) return kit.error(turn.error.status, turn.error.message);
  const usage = turn.usage ? { usage: turn.usage } : {};
  if (turn.calls && turn.calls.length > 0)
    return kit.toolCalls(
      turn.calls.map((call) => ({ id: call.id, name: call.name, json: JSON.stringify(call.args ?? {}) })),
      usage,
    );
  return kit.text(turn.text ?? '', usage);
}

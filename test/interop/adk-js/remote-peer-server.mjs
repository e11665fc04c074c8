// Google ADK for JS 2.0 serving an agent over A2A with its own server (toA2a: ADK's A2AAgentExecutor
// on @a2a-js/sdk 0.3, A2A v0.3 on the wire), as the peer of Troupe's RemoteA2aAgent in
// packages/a2a/test/remote/adk-interop.test.ts. No network and no keys: the agent's model is a
// BaseLlm subclass with scripted answers. Prints `READY <base url>` once it listens on 127.0.0.1.
import process from 'node:process';
import { createServer } from 'node:net';
import { BaseLlm, LlmAgent } from '@google/adk';
import { toA2a } from '@google/adk/a2a';

/** Streams its answer in two chunks, then the whole text, naming the request and the turn. */
class ScriptedLlm extends BaseLlm {
  constructor() {
    super({ model: 'scripted-concierge' });
  }

  async *generateContentAsync(request, stream) {
    const userTurns = request.contents.filter((c) => c.role === 'user');
    const asked = (userTurns.at(-1)?.parts ?? [])
      .map((p) => p.text ?? '')
      .join(' ')
      .trim();
    const answer = `Bonjour! Turn ${userTurns.length}: you asked "${asked}".`;
    if (stream) {
      yield { content: { role: 'model', parts: [{ text: 'Bonjour! ' }] }, partial: true };
      yield { content: { role: 'model', parts: [{ text: answer.slice('Bonjour! '.length) }] }, partial: true };
    }
    yield { content: { role: 'model', parts: [{ text: answer }] }, turnComplete: true };
  }

  async connect() {
    throw new Error('ScriptedLlm has no live mode.');
  }
}

const agent = new LlmAgent({
  name: 'adk_concierge',
  description: 'A concierge served by Google ADK for JS over A2A.',
  instruction: 'Answer the guest.',
  model: new ScriptedLlm(),
});

const port = await freePort();
const app = await toA2a(agent, { host: '127.0.0.1', port, allowUnauthenticated: true });
app.listen(port, '127.0.0.1', () => process.stdout.write(`READY http://127.0.0.1:${port}\n`));

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: found } = probe.address();
      probe.close(() => resolve(found));
    });
  });
}

// ADK JS 2.0 on the calling side of A2A: its RemoteA2AAgent, as the root agent of an ADK runner,
// calls a Troupe agent served by a2aApp. The remote agent is the root, so ADK needs no model of its
// own (no network, no API key). It lives here so that '@google/adk' (and the @a2a-js/sdk 0.3 it
// uses) resolve from this folder's own node_modules.
// Arguments: <agent base URL> <message>... Prints one JSON line per turn: what ADK's session got.
import process from 'node:process';
import { InMemoryRunner, RemoteA2AAgent } from '@google/adk';

const [baseUrl, ...messages] = process.argv.slice(2);
// The SDK resolves '.well-known/agent-card.json' against the URL: the trailing slash keeps the app's path.
const remote = new RemoteA2AAgent({ name: 'bank', description: 'A Troupe agent over A2A.', agentCard: `${baseUrl}/` });
const runner = new InMemoryRunner({ agent: remote, appName: 'adk-caller' });
const session = await runner.sessionService.createSession({ appName: 'adk-caller', userId: 'u' });

for (const text of messages) {
  const events = [];
  for await (const event of runner.runAsync({
    userId: 'u',
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text }] },
  })) {
    events.push({
      author: event.author,
      partial: event.partial === true,
      text: (event.content?.parts ?? []).map((p) => p.text ?? '').join(''),
      errorMessage: event.errorMessage,
      contextId: event.customMetadata?.['a2a:context_id'],
      taskId: event.customMetadata?.['a2a:task_id'],
    });
  }
  process.stdout.write(`${JSON.stringify(events)}\n`);
}
const stored = await runner.sessionService.getSession({ appName: 'adk-caller', userId: 'u', sessionId: session.id });
process.stdout.write(
  `${JSON.stringify({ storedTexts: stored.events.filter((e) => e.author === 'bank').map((e) => (e.content?.parts ?? []).map((p) => p.text ?? '').join('')) })}\n`,
);

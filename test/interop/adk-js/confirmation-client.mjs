// ADK JS 2.0 as the client of a Troupe HTTP server (ADK's /run_sse and session routes): it finds
// the confirmation a paused run asks for with ADK's own getPendingUserInputRequests, answers it with
// a function response named REQUEST_CONFIRMATION_FUNCTION_CALL_NAME holding a ToolConfirmation,
// as ADK's web UI does, and reads the session back. It lives here so that '@google/adk' resolves
// from this folder's own node_modules.
// Arguments: <server URL> <app> <user> <session id> <message> <approve|reject>
// Prints one JSON line: what ADK saw.
import process from 'node:process';
import { getPendingUserInputRequests, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, ToolConfirmation } from '@google/adk';

const [baseUrl, appName, userId, sessionId, text, decision] = process.argv.slice(2);
const { fetch } = globalThis;

async function runSse(newMessage) {
  const res = await fetch(`${baseUrl}/run_sse`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ appName, userId, sessionId, newMessage, streaming: true, stateDelta: null }),
  });
  if (res.status !== 200) throw new Error(`/run_sse answered ${res.status}: ${await res.text()}`);
  const body = await res.text();
  return body
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice('data: '.length)));
}

const paused = await runSse({ role: 'user', parts: [{ text }] });
const requests = getPendingUserInputRequests(paused);
const answers = requests
  .filter((request) => request.kind === 'confirmation')
  .map((request) => {
    const confirmation = new ToolConfirmation({
      hint: request.message,
      confirmed: decision === 'approve',
      payload: request.payload,
    });
    return {
      functionResponse: {
        id: request.interruptId,
        name: REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        response: { ...confirmation },
      },
    };
  });
const resumed = answers.length > 0 ? await runSse({ role: 'user', parts: answers }) : [];
const session = await (await fetch(`${baseUrl}/apps/${appName}/users/${userId}/sessions/${sessionId}`)).json();

process.stdout.write(
  `${JSON.stringify({
    requests: requests.map(({ kind, interruptId, functionCallName, toolName, message, author }) => ({
      kind,
      interruptId,
      functionCallName,
      toolName,
      message,
      author,
    })),
    resumedTexts: resumed
      .filter((event) => !event.partial)
      .flatMap((event) => (event.content?.parts ?? []).filter((part) => part.text).map((part) => part.text)),
    pendingAfter: getPendingUserInputRequests(session.events).length,
  })}\n`,
);

import { InMemorySessionService } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { slowAgent } from './apps.js';
import { connectHttp, startApi, textOf, waitFor } from './helpers.js';

// The client's cancel (notifications/cancelled, sent by the SDK when the call's signal aborts)
// cancels the run; the session stays usable.

describe('cancelling a call', () => {
  it('cancels the run, which stores its cancellation; the next call in the session runs', async () => {
    const sessionService = new InMemorySessionService();
    const slow = slowAgent();
    const { mcpUrl } = await startApi({ apps: { slow: slow.agent }, sessionService });
    const client = await connectHttp(mcpUrl);

    const controller = new AbortController();
    const call = client
      .callTool({ name: 'slow', arguments: { message: 'wait' } }, undefined, { signal: controller.signal })
      .then(
        () => 'answered',
        (error: unknown) => error,
      );
    await slow.started;
    controller.abort(new Error('The user stopped it.'));
    expect(String(await call)).toBe('McpError: MCP error -32001: Error: The user stopped it.');
    await slow.cancelled;

    const [listed] = (await sessionService.listSessions({ appName: 'slow', userId: 'mcp' })).sessions;
    const key = { appName: 'slow', userId: 'mcp', sessionId: listed!.id };
    await waitFor(
      async () => (await sessionService.getSession(key))!.events.at(-1)?.errorCode === 'CANCELLED',
      'the run to store its cancellation',
    );

    const next = await client.callTool({ name: 'slow', arguments: { message: 'again', sessionId: key.sessionId } });
    expect(next.isError).toBeFalsy();
    expect(textOf(next as never)).toBe('Second turn answered.');
  });
});

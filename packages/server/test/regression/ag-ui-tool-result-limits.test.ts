import { describe, expect, it } from 'vitest';
import { getFunctionResponses, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { AG_UI_USER } from '../../src/index.js';
import { client, post, runOnce, say, serveApps } from '../ag-ui/helpers.js';

// Regression (issue #28 item 12, "the same limits on every protocol route"): an AG-UI tool
// message's content is JSON text the client tool's result is parsed from. The body's limits held
// for the text as a string only, so a result nested 5,000 levels deep (a few kilobytes) was parsed
// and handed to the run, where JSON.stringify overflows the stack on it. The text is now held to
// the body's JSON limits and refused with a 400 naming the field, before anything is stored.

const showNote = {
  name: 'show_note',
  description: 'Shows a note on the page.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
};

describe('AG-UI tool results are held to the JSON limits', () => {
  it('a tool message whose JSON is nested deeper than maxDepth is a 400 naming it; a result within the limits is taken', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'show_note', args: { text: 'Buy milk' }, id: 'n1' }] },
      'The note is on your screen.',
    ]);
    const served = await serveApps({ notes: new LlmAgent({ name: 'Notes', model }) });
    const agent = client(served, 'notes');
    say(agent, 'Remind me to buy milk');
    const first = await runOnce(agent, { tools: [showNote] });
    expect(first.finished!.outcome).toEqual({ type: 'success', pendingToolCallIds: ['Notes:n1'] });

    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const answer = (content: string) => ({
      threadId: agent.threadId,
      runId: 'run-answer',
      messages: [...agent.messages, { id: 'tool-1', role: 'tool', toolCallId: 'Notes:n1', content }],
      tools: [showNote],
      context: [],
      state: {},
      forwardedProps: {},
    });
    const refused = await post(served, 'notes', answer(deep));
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { code: string; message: string; field: string } };
    expect(body.error.code).toBe('LIMIT_EXCEEDED');
    expect(body.error.field).toBe('messages.2.content');
    expect(body.error.message).toMatch(
      /^Invalid request body: field 'messages\.2\.content' holds JSON whose field 'a(\.a)+' is nested deeper than 64 levels\. Send less, or raise createApp's jsonLimits\.maxDepth\.$/,
    );
    const tooMany = await post(
      served,
      'notes',
      answer(JSON.stringify({ rows: Array.from({ length: 20_000 }, () => 1) })),
    );
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toBe(
      "Invalid request body: field 'messages.2.content' holds JSON whose field 'rows' has 20000 elements, over the limit of 10000. Send less, or raise createApp's jsonLimits.maxItems.",
    );
    const session = async () =>
      served.sessionService.getSession({ appName: 'notes', userId: AG_UI_USER, sessionId: agent.threadId });
    expect((await session())!.events.flatMap(getFunctionResponses)).toEqual([]);

    agent.addMessage({ id: 'tool-1', role: 'tool', toolCallId: 'Notes:n1', content: JSON.stringify({ shown: true }) });
    const second = await runOnce(agent, { tools: [showNote] });
    expect(second.finished).toMatchObject({ outcome: { type: 'success' }, result: 'The note is on your screen.' });
    expect((await session())!.events.flatMap(getFunctionResponses).map((r) => r.response)).toEqual([{ shown: true }]);
  });
});

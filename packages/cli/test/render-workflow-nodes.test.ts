import { describe, expect, it } from 'vitest';
import { createEvent, type EventInit } from '@troupe/core';
import { finishRender, initialRenderState, renderEvent } from '../src/index.js';

/** Renders events in order as the transcript sink does; returns the stdout text. */
function render(events: EventInit[]): string {
  let state = initialRenderState;
  let text = '';
  for (const init of events) {
    const out = renderEvent(createEvent(init), state);
    text += out.text;
    state = out.state;
  }
  return text + finishRender(state).text;
}

const info = (path: string, runId = '1') => ({ path, runId, attempt: 1 });
const started = (author: string, path: string, input?: unknown): EventInit => ({
  author,
  nodeInfo: info(path),
  actions: { agentState: { node: 'started', input } },
});
const ended = (author: string, path: string, output?: unknown, runId = '1'): EventInit => ({
  author,
  nodeInfo: info(path, runId),
  ...(output !== undefined ? { output } : {}),
  actions: { agentState: { node: 'ended' } },
});
const said = (author: string, path: string, text: string, partial = false): EventInit => ({
  author,
  nodeInfo: info(path),
  content: { role: 'model', parts: [{ text }] },
  ...(partial ? { partial } : {}),
});

describe('renderEvent on graph workflow nodes', () => {
  it('prints a node output on its own line, named by its path in the workflow; starts print nothing', () => {
    expect(
      render([
        started('classify', 'triage.classify', 'hi'),
        ended('classify', 'triage.classify', 'hi'),
        ended('count', 'triage.tally.count', 2),
        ended('fan', 'triage.fan.fan@0', { n: 1 }, '0'),
      ]),
    ).toBe('[classify] hi\n[tally.count] 2\n[fan.fan@0] {"n":1}\n');
  });

  it('indents a multi-line output under its label and names the next speaker again', () => {
    expect(render([ended('draft', 'w.draft', 'line one\nline two\n'), said('editor', 'w.editor', 'Looks good.')])).toBe(
      '[draft] line one\n        line two\neditor: Looks good.\n',
    );
  });

  it("does not repeat an agent node's streamed answer, nor its answer given as JSON", () => {
    expect(
      render([
        said('writer', 'w.writer', 'Once ', true),
        said('writer', 'w.writer', 'upon a time', true),
        said('writer', 'w.writer', 'Once upon a time'),
        ended('writer', 'w.writer', 'Once upon a time'),
        said('judge', 'w.judge', '{"score": 3}'),
        ended('judge', 'w.judge', { score: 3 }),
      ]),
    ).toBe('writer: Once upon a time\njudge: {"score": 3}\n');
  });

  it("prints an agent node's output when it differs from what the agent said", () => {
    expect(render([said('pick', 'w.pick', 'I choose B.'), ended('pick', 'w.pick', 'B')])).toBe(
      'pick: I choose B.\n[pick] B\n',
    );
  });

  it('shows a RequestInput pause by its node; an end waiting for output or without one prints nothing', () => {
    const text = render([
      {
        author: 'confirm',
        nodeInfo: info('w.confirm'),
        interrupt: {
          id: 'w.confirm@1',
          kind: 'input',
          agentPath: 'w',
          toolCallId: 'w.confirm@1',
          toolName: 'adk_request_input',
          args: { interruptId: 'w.confirm@1', message: 'Ship it?' },
          message: 'Ship it?',
        },
      },
      { author: 'idle', nodeInfo: info('w.idle'), actions: { agentState: { node: 'ended', waiting: true } } },
      ended('quiet', 'w.quiet'),
    ]);
    expect(text).toBe('[confirm] ⏸ waits for input: Ship it?\n');
  });
});

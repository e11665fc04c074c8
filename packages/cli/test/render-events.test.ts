import { describe, expect, it } from 'vitest';
import { createEvent, type Event, type EventInit } from '@troupe/core';
import { finishRender, initialRenderState, renderEvent, type RenderOptions } from '../src/index.js';

/** Renders events in order as the transcript sink does; returns stdout text and stderr lines. */
function render(events: EventInit[], options?: RenderOptions): { text: string; errors: string[] } {
  let state = initialRenderState;
  let text = '';
  const errors: string[] = [];
  for (const init of events) {
    const out = renderEvent(createEvent(init), state, options);
    text += out.text;
    if (out.error) errors.push(out.error);
    state = out.state;
  }
  text += finishRender(state).text;
  return { text, errors };
}

const say = (author: string, text: string, partial?: boolean): EventInit => ({
  author,
  content: { role: 'model', parts: [{ text }] },
  ...(partial ? { partial } : {}),
});

describe('renderEvent', () => {
  it('names the speaker once and indents its later lines under the name', () => {
    const { text } = render([say('Helper', 'First line.\nSecond line.'), say('Helper', 'Another answer.')]);
    expect(text).toBe('Helper: First line.\n        Second line.\n        Another answer.\n');
  });

  it('prints streamed chunks as they come and does not repeat them when the final response arrives', () => {
    let state = initialRenderState;
    const pieces: string[] = [];
    for (const init of [
      say('Writer', 'Once ', true),
      say('Writer', 'upon a time', true),
      say('Writer', 'Once upon a time'),
    ]) {
      const out = renderEvent(createEvent(init), state);
      pieces.push(out.text);
      state = out.state;
    }
    pieces.push(finishRender(state).text);
    expect(pieces).toEqual(['Writer: Once ', 'upon a time', '\n', '']);
  });

  it('indents streamed text that spans lines', () => {
    const { text } = render([
      say('Poet', 'Roses are red,\n', true),
      say('Poet', 'violets', true),
      say('Poet', ' are blue.', true),
      say('Poet', 'Roses are red,\nviolets are blue.'),
    ]);
    expect(text).toBe('Poet: Roses are red,\n      violets are blue.\n');
  });

  it('prints the final text when it differs from what was streamed', () => {
    const { text } = render([say('Writer', 'Draft', true), say('Writer', 'Edited answer')]);
    expect(text).toBe('Writer: Draft\n        Edited answer\n');
  });

  it('closes a streamed line at the end of the turn even without a final event', () => {
    expect(render([say('Writer', 'cut off', true)]).text).toBe('Writer: cut off\n');
  });

  it('shows tool calls with their arguments and short tool results', () => {
    const longResult = { rows: 'x'.repeat(500) };
    const { text } = render(
      [
        {
          author: 'Analyst',
          content: { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'query', args: { sql: 'select 1' } } }] },
        },
        {
          author: 'Analyst',
          content: { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'query', response: longResult } }] },
        },
      ],
      { maxResultLength: 30 },
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('Analyst: → query {"sql":"select 1"}');
    expect(lines[1]).toBe(`         ← query: ${JSON.stringify(longResult).slice(0, 29)}…`);
    expect(lines[1]!.length).toBe('         ← query: '.length + 30);
  });

  it('shows a transfer as one line and the new speaker after it', () => {
    const { text } = render([
      {
        author: 'Coordinator',
        content: {
          role: 'model',
          parts: [{ functionCall: { id: 't1', name: 'transfer_to_agent', args: { agent_name: 'Booker' } } }],
        },
      },
      {
        author: 'Coordinator',
        content: {
          role: 'user',
          parts: [
            { functionResponse: { id: 't1', name: 'transfer_to_agent', response: { transferred_to: 'Booker' } } },
          ],
        },
        actions: { transferToAgent: 'Booker' },
      },
      say('Booker', 'Booked.'),
    ]);
    expect(text).toBe('Coordinator: ⇢ transferred to Booker\nBooker: Booked.\n');
  });

  it('shows a refused transfer with its error', () => {
    const { text } = render([
      {
        author: 'Coordinator',
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 't1',
                name: 'transfer_to_agent',
                response: { error: 'Allowed targets: Booker.' },
              },
            },
          ],
        },
      },
    ]);
    expect(text).toBe('Coordinator: ← transfer_to_agent: {"error":"Allowed targets: Booker."}\n');
  });

  it('returns error events for stderr and ends the open line first', () => {
    const { text, errors } = render([
      say('Writer', 'Half', true),
      { author: 'Writer', errorCode: 'MODEL', errorMessage: 'The provider answered 503.' },
    ]);
    expect(text).toBe('Writer: Half\n');
    expect(errors).toEqual(['✖ Writer: The provider answered 503. (MODEL)']);
  });

  it('shows an interrupt with its hint', () => {
    const event: Event = createEvent({
      author: 'Booker',
      interrupt: {
        id: 'i1',
        kind: 'confirmation',
        agentPath: 'Booker',
        toolCallId: 'c1',
        toolName: 'pay',
        args: {},
        hint: 'Pay 120 EUR?',
      },
    });
    expect(renderEvent(event, initialRenderState).text).toBe('Booker: ⏸ pay waits for confirmation: Pay 120 EUR?\n');
  });

  it("ignores the user's own events", () => {
    expect(render([say('user', 'hello')]).text).toBe('');
  });

  it('does not change the state it is given', () => {
    const state = initialRenderState;
    renderEvent(createEvent(say('Helper', 'Hi', true)), state);
    expect(state).toEqual({ speaker: undefined, cursor: 'none', nodeTexts: {}, streamed: '' });
  });
  it('prints a custom event (ctx.emit) as a dimmed line of its author, with its data as compact JSON', () => {
    const progress = (data?: unknown): EventInit => ({
      author: 'Fetcher',
      customEvent: { name: 'fetch.progress', ...(data === undefined ? {} : { data }) },
    });
    const { text } = render([progress({ page: 1, of: 2 }), progress(), say('Fetcher', 'Done.')]);
    expect(text).toBe('Fetcher: ◦ fetch.progress {"page":1,"of":2}\n         ◦ fetch.progress\n         Done.\n');
    const dim = render([progress({ page: 1 })], {
      style: { colored: true, paint: (role, t) => `<${role}>${t}</${role}>` },
    });
    expect(dim.text).toContain('<muted>◦ fetch.progress {"page":1}</muted>');
  });
});

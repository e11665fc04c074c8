import { describe, expect, it } from 'vitest';
import { FunctionTool, LlmAgent, SequentialAgent, getFunctionCalls } from '@troupe/core';
import { runOnce } from '../helpers.js';

describe('offline model', () => {
  it('routes a transfer by word overlap with sub-agent descriptions, deterministically', async () => {
    const booker = new LlmAgent({
      name: 'Booker',
      description: 'Handles flight and hotel bookings.',
      instruction: 'Book travel.',
    });
    const info = new LlmAgent({ name: 'Info', description: 'Provides general information and answers questions.' });
    const root = new LlmAgent({
      name: 'Coordinator',
      model: 'offline',
      instruction: 'Route requests.',
      subAgents: [booker, info],
    });
    const result = await runOnce(root, 'Please book a flight to Paris');
    expect(result.events.find((e) => e.actions.transferToAgent)?.actions.transferToAgent).toBe('Booker');
    expect(result.output).toMatch(
      /^\(offline model, not an LLM\) My task: Book travel\. You said: "Please book a flight to Paris"/,
    );
  });

  it('calls a matching tool with arguments from the message and summarises the result', async () => {
    const add = new FunctionTool({
      name: 'add_numbers',
      description: 'Adds two numbers together.',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      execute: (args) => Number(args.a) + Number(args.b),
    });
    const result = await runOnce(
      new LlmAgent({ name: 'Calc', model: 'offline', tools: [add] }),
      'add numbers 2 and 40',
    );
    expect(getFunctionCalls(result.events[0]!)[0]).toMatchObject({ name: 'add_numbers', args: { a: 2, b: 40 } });
    expect(result.output).toBe('Here is what I found: add_numbers returned {"result":42}.');
  });

  // Regression: other agents' turns ("[A] said: ...") were taken for the user's message.
  it("answers the user's message, not the previous agent's text", async () => {
    const first = new LlmAgent({ name: 'First', model: 'offline', instruction: 'Validate the input.' });
    const second = new LlmAgent({ name: 'Second', model: 'offline', instruction: 'Report the result.' });
    const result = await runOnce(new SequentialAgent({ name: 'Flow', subAgents: [first, second] }), 'check order 42');
    expect(result.output).toBe('(offline model, not an LLM) My task: Report the result. You said: "check order 42".');
  });
});

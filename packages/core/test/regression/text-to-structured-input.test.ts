import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionAgent, InMemoryRunner, InputValidationError, LlmAgent, TeamAgent, type BaseAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

// A text message to an agent that runs on its structured input (a team, a function agent) ran it on
// `{ request: text }`, which holds none of its fields: the team of examples/team-yaml "finished"
// with `{ sections: [] }`. The runner now refuses the message, naming the shape the agent takes,
// before anything is stored.

async function send(agent: BaseAgent, text: string) {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const run = runner.run({ userId: 'u', sessionId: session.id, newMessage: text });
  const stored = async () =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!.events;
  return { run, stored };
}

const sections = {
  type: 'object',
  properties: { sections: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } } },
};

describe('a text message to an agent with an inputSchema', () => {
  it('is refused when the schema has no request field, naming the shape, and nothing is stored', async () => {
    const team = new TeamAgent({
      name: 'Sections',
      inputSchema: sections,
      iterateOn: 'sections',
      skills: [new FunctionAgent({ name: 'Count', run: () => ({ words: 1 }) })],
    });
    const { run, stored } = await send(team, 'Write about intros');
    await expect(run).rejects.toThrow(InputValidationError);
    await expect(run).rejects.toThrow(
      `Agent 'Sections' takes a structured input, { sections?: { title?: string }[] }, and was given a text message`,
    );
    await expect(run).rejects.toThrow("give the inputSchema a 'request' string field to take text");
    expect(await stored()).toEqual([]);
  });

  it('is taken as { request } when the schema names it, and checked against the rest of the schema', async () => {
    const seen: unknown[] = [];
    const echo = (inputSchema: z.ZodType) =>
      new FunctionAgent({ name: 'Echo', inputSchema, run: (input) => (seen.push(input), 'ok') });
    const taken = await send(echo(z.object({ request: z.string(), tone: z.string().optional() })), 'hello');
    expect((await taken.run).status).toBe('completed');
    expect(seen).toEqual([{ request: 'hello' }]);

    const refused = await send(echo(z.object({ request: z.string(), city: z.string() })), 'hello');
    await expect(refused.run).rejects.toThrow(
      /Agent 'Echo' was given a text message, .* its inputSchema, \{ request: string, city: string \}, wants more: city: /,
    );
    expect(await refused.stored()).toEqual([]);
  });

  it('still runs an agent without an inputSchema, and one that reads the message itself (an LlmAgent)', async () => {
    const seen: unknown[] = [];
    const plain = new FunctionAgent({ name: 'Plain', run: (input) => (seen.push(input), 'ok') });
    expect((await (await send(plain, 'hi')).run).status).toBe('completed');
    expect(seen).toEqual([{ request: 'hi' }]);
    // Its inputSchema is for callers that give an input (an AgentTool, a form); a message is read as text.
    const scout = new LlmAgent({
      name: 'Scout',
      model: new ScriptedModel(['Sunny in Oslo.']),
      inputSchema: z.object({ city: z.string() }),
    });
    const chat = await (await send(scout, 'Weather in Oslo')).run;
    expect([chat.status, chat.output]).toEqual(['completed', 'Sunny in Oslo.']);
  });
});

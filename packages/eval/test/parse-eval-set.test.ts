import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectEvalSetFormat, EvalSetError, loadEvalSet, parseEvalSet } from '@troupe/eval';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('reading eval sets', () => {
  it('reads the Troupe format', async () => {
    const set = await loadEvalSet(fixture('weather.evalset.json'));
    expect(set.id).toBe('weather');
    expect(set.cases.map((c) => c.id)).toEqual(['paris', 'rome-and-oslo']);
    expect(set.cases[1]!.state).toEqual({ units: 'metric' });
    expect(set.cases[1]!.turns[1]).toEqual({
      user: 'What about in Oslo?',
      response: 'Sunny and 21 degrees in Oslo.',
      toolCalls: [{ name: 'get_weather', agent: 'Weather' }],
    });
  });

  it("reads ADK's snake_case EvalSet: user content, final response, tool uses, session input", async () => {
    const set = await loadEvalSet(fixture('weather.adk.evalset.json'));
    expect(set).toEqual({
      id: 'weather_adk',
      name: 'Weather (ADK format)',
      description: 'Written the way adk web saves an eval set.',
      cases: [
        {
          id: 'paris',
          userId: 'ada',
          state: { units: 'metric' },
          turns: [
            {
              user: { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] },
              response: 'It is sunny and 21 degrees in Paris.',
              toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
            },
          ],
        },
        // No intermediate data: as in ADK, no tool call is expected. Text parts join with newlines.
        {
          id: 'greeting',
          turns: [
            { user: { role: 'user', parts: [{ text: 'Hello' }] }, response: 'Hi!\nHow can I help?', toolCalls: [] },
          ],
        },
      ],
    });
  });

  it("reads ADK's camelCase EvalSet with invocation events, keeping each call's author as its agent", async () => {
    const set = await loadEvalSet(fixture('weather.camel.evalset.json'));
    expect(set.id).toBe('weather_camel');
    expect(set.cases[0]).toMatchObject({ id: 'rome', userId: 'bob', state: {} });
    expect(set.cases[0]!.turns[0]!.toolCalls).toEqual([
      { name: 'get_weather', args: { city: 'Rome' }, agent: 'Weather' },
    ]);
  });

  it('tells the formats apart', () => {
    expect(detectEvalSetFormat({ cases: [] })).toBe('troupe');
    expect(detectEvalSetFormat({ eval_cases: [] })).toBe('adk');
    expect(detectEvalSetFormat({ evalCases: [] })).toBe('adk');
    expect(detectEvalSetFormat([])).toBeUndefined();
  });

  it('takes the id from the file name when the set has none', () => {
    const set = parseEvalSet({ cases: [{ id: 'a', turns: [{ user: 'hi' }] }] }, { source: 'evals/smoke.evalset.json' });
    expect(set.id).toBe('smoke');
  });

  it.each([
    [
      { cases: [{ id: 'a', turns: [{ response: 'x' }] }] },
      's.json: cases[0].turns[0].user is missing. Give the user message as text',
    ],
    [{ cases: [{ turns: [{ user: 'hi' }] }] }, 's.json: cases[0].id must be a non-empty string; got nothing.'],
    [{ cases: [{ id: 'a', turns: [] }] }, 's.json: cases[0].turns is empty.'],
    [{ cases: [] }, 's.json: cases is empty. Give the eval set at least one case.'],
    [
      {
        cases: [
          { id: 'a', turns: [{ user: 'hi' }] },
          { id: 'a', turns: [{ user: 'hi' }] },
        ],
      },
      "s.json: cases has two cases with id 'a'.",
    ],
    [
      { cases: [{ id: 'a', turns: [{ user: 'hi', toolCalls: [{ args: {} }] }] }] },
      's.json: cases[0].turns[0].toolCalls[0].name must be a non-empty string',
    ],
    [
      { cases: [{ id: 'a', turns: [{ user: 'hi', toolCalls: [{ name: 'x', args: [1] }] }] }] },
      's.json: cases[0].turns[0].toolCalls[0].args must be an object; got [1].',
    ],
    [
      { eval_cases: [{ eval_id: 'a', conversation_scenario: { starting_prompt: 'hi' } }] },
      's.json: eval_cases[0] has a conversation_scenario (a simulated user). Troupe evaluates static conversations only',
    ],
    [
      { eval_cases: [{ eval_id: 'a', conversation: [{ final_response: { parts: [{ text: 'x' }] } }] }] },
      's.json: eval_cases[0].conversation[0].user_content is missing.',
    ],
    [
      [{ query: 'hi', expected_tool_use: [], reference: 'hello' }],
      "s.json: the top level is an array (ADK's older *.test.json format of single turns).",
    ],
    [
      { name: 'nothing' },
      's.json: the top level is not an eval set: it needs "cases" (Troupe format) or "eval_cases" (ADK format).',
    ],
  ])('rejects %j, naming the field', (json, message) => {
    expect(() => parseEvalSet(json, { source: 's.json' })).toThrow(EvalSetError);
    expect(() => parseEvalSet(json, { source: 's.json' })).toThrow(message);
  });

  it('names the file when it is missing or not JSON', async () => {
    await expect(loadEvalSet(fixture('missing.json'))).rejects.toThrow(/Cannot read eval set file '.*missing\.json'/);
    await expect(loadEvalSet(fixture('agents.ts'))).rejects.toThrow(/Eval set file '.*agents\.ts' is not valid JSON/);
  });
});

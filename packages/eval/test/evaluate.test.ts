import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type BaseTool, BaseToolset, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { EvalConfigError, type EvalSet, evaluate } from '@troupe/eval';
import { conciergeAgent, notesAgent, weatherAgent } from './fixtures/agents.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('evaluate', () => {
  it('runs every case turn by turn and passes when the trajectory and response match', async () => {
    const report = await evaluate({ agent: weatherAgent, evalSetPath: fixture('weather.evalset.json') });
    expect(report.passed).toBe(true);
    expect(report.evalSetId).toBe('weather');
    expect(report.metrics).toEqual(['trajectory_exact', 'response_match']);
    expect(report.thresholds).toEqual({ trajectory_exact: 1, response_match: 0.8 });
    expect(report.cases.map((c) => [c.evalId, c.passed])).toEqual([
      ['paris', true],
      ['rome-and-oslo', true],
    ]);
    const [, multi] = report.cases;
    expect(multi!.turns.map((t) => t.actualResponse)).toEqual([
      'It is sunny and 21 degrees in Rome.',
      'It is sunny and 21 degrees in Oslo.',
    ]);
    expect(multi!.turns[1]!.actualToolCalls).toEqual([
      { name: 'get_weather', args: { city: 'Oslo' }, agent: 'Weather' },
    ]);
    // "Sunny and 21 degrees in Oslo." against the actual answer: P = 6/8, R = 1; the mean over both turns.
    const response = multi!.metrics.find((m) => m.metric === 'response_match')!;
    expect(response.score).toBeCloseTo((1 + (2 * 0.75) / 1.75) / 2);
    expect(response.passed).toBe(true);
  });

  it('reads ADK eval sets and reports each case and metric on its own', async () => {
    const report = await evaluate({ agent: weatherAgent, evalSetPath: fixture('weather.adk.evalset.json') });
    expect(report.passed).toBe(false);
    const [paris, greeting] = report.cases;
    expect(paris).toMatchObject({ evalId: 'paris', passed: true });
    expect(greeting!.passed).toBe(false);
    expect(greeting!.error).toBeUndefined();
    expect(greeting!.metrics).toEqual([
      { metric: 'trajectory_exact', score: 0, threshold: 1, passed: false },
      { metric: 'response_match', score: 0, threshold: 0.8, passed: false },
    ]);
    expect(greeting!.turns[0]).toMatchObject({
      user: 'Hello',
      expectedResponse: 'Hi!\nHow can I help?',
      expectedToolCalls: [],
      status: 'completed',
    });

    const camel = await evaluate({ agent: weatherAgent, evalSetPath: fixture('weather.camel.evalset.json') });
    expect(camel.passed).toBe(true);
  });

  it('applies thresholds, by our names or ADK aliases, and adds the metrics they name', async () => {
    const evalSet: EvalSet = {
      id: 'loose',
      cases: [
        {
          id: 'paris',
          turns: [
            {
              user: 'Weather in Paris?',
              response: 'Sunny in Paris today.',
              toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_forecast' }],
            },
          ],
        },
      ],
    };
    const strict = await evaluate({ agent: weatherAgent, evalSet });
    expect(strict.passed).toBe(false);
    const lenient = await evaluate({
      agent: weatherAgent,
      evalSet,
      thresholds: { response_match_score: 0.4, trajectory_f1: 0.6 },
      metrics: ['trajectory_f1', 'response_match'],
    });
    expect(lenient.metrics).toEqual(['trajectory_f1', 'response_match']);
    const [f1, response] = lenient.cases[0]!.metrics;
    // One call of two expected: P = 1, R = 1/2.
    expect(f1).toEqual({
      metric: 'trajectory_f1',
      score: expect.closeTo(2 / 3, 5) as number,
      threshold: 0.6,
      passed: true,
    });
    // "sunny", "in", "paris" of 4 expected and 8 actual words: P = 3/8, R = 3/4.
    expect(response!.score).toBeCloseTo(0.5);
    expect(response!.passed).toBe(true);
    expect(lenient.passed).toBe(true);

    const added = await evaluate({ agent: weatherAgent, evalSet, thresholds: { trajectory_any_order: 1 } });
    expect(added.metrics).toEqual(['trajectory_exact', 'response_match', 'trajectory_any_order']);
  });

  it('puts tool calls made inside an AgentTool in the trajectory, in call order, with their agent path', async () => {
    const report = await evaluate({
      agent: conciergeAgent,
      metrics: ['trajectory_exact', 'trajectory_in_order', 'trajectory_any_order'],
      evalSet: {
        id: 'nested',
        cases: [
          {
            id: 'desk',
            turns: [
              {
                user: 'What is the weather in Paris?',
                toolCalls: [
                  { name: 'WeatherDesk', args: { request: 'What is the weather in Paris?' }, agent: 'Concierge' },
                  { name: 'get_weather', args: { city: 'Paris' }, agent: 'Concierge/WeatherDesk' },
                ],
              },
            ],
          },
          {
            id: 'nested-first',
            turns: [
              {
                user: 'And in Rome?',
                toolCalls: [{ name: 'get_weather', agent: 'WeatherDesk' }, { name: 'WeatherDesk' }],
              },
            ],
          },
          {
            id: 'wrong-agent',
            turns: [{ user: 'And in Rome?', toolCalls: [{ name: 'get_weather', agent: 'Concierge' }] }],
          },
        ],
      },
    });
    const [desk, nestedFirst, wrongAgent] = report.cases;
    expect(desk!.turns[0]!.actualToolCalls).toEqual([
      { name: 'WeatherDesk', args: { request: 'What is the weather in Paris?' }, agent: 'Concierge' },
      { name: 'get_weather', args: { city: 'Paris' }, agent: 'Concierge/WeatherDesk' },
    ]);
    expect(desk!.turns[0]!.actualResponse).toBe('The desk says: sunny, 21 degrees.');
    expect(desk!.passed).toBe(true);
    expect(nestedFirst!.metrics.map((m) => [m.metric, m.score])).toEqual([
      ['trajectory_exact', 0],
      ['trajectory_in_order', 0],
      ['trajectory_any_order', 1],
    ]);
    expect(wrongAgent!.metrics.map((m) => m.score)).toEqual([0, 0, 0]);
  });

  it('runs multi-turn cases on one session each, and every case on a fresh one', async () => {
    const agent = notesAgent();
    const report = await evaluate({
      agent,
      evalSet: {
        id: 'notes',
        cases: [
          {
            id: 'remembers',
            turns: [
              {
                user: 'Remember that my name is Ada',
                response: 'Noted.',
                toolCalls: [{ name: 'save_note', args: { text: 'Remember that my name is Ada' } }],
              },
              { user: 'What is my name?', response: 'Your name is Ada.', toolCalls: [] },
            ],
          },
          {
            id: 'fresh-session',
            turns: [{ user: 'What is my name?', response: 'I do not know your name.', toolCalls: [] }],
          },
        ],
      },
    });
    expect(report.cases.map((c) => c.passed)).toEqual([true, true]);
    expect(report.cases[0]!.turns.map((t) => t.actualResponse)).toEqual(['Noted.', 'Your name is Ada.']);
  });

  it('scores with an LLM judge, showing it the request, the reference and the answer', async () => {
    const judge = new ScriptedModel(['```json\n{"score": 0.9, "reason": "Same forecast."}\n```']);
    const report = await evaluate({
      agent: weatherAgent,
      judgeModel: judge,
      evalSet: {
        id: 'judged',
        cases: [{ id: 'paris', turns: [{ user: 'Weather in Paris?', response: 'Sunny, 21 °C.' }] }],
      },
    });
    expect(report.metrics).toEqual(['trajectory_exact', 'response_match', 'llm_judge']);
    const [, response, judged] = report.cases[0]!.metrics;
    expect(response!.passed).toBe(false);
    expect(judged).toEqual({ metric: 'llm_judge', score: 0.9, threshold: 0.7, passed: true });
    expect(report.cases[0]!.turns[0]!.judgeReason).toBe('Same forecast.');
    const prompt = judge.requests[0]!.contents[0]!.parts.map((p) => ('text' in p ? p.text : '')).join('');
    expect(prompt).toContain('Weather in Paris?');
    expect(prompt).toContain('Sunny, 21 °C.');
    expect(prompt).toContain('It is sunny and 21 degrees in Paris.');
    expect(judge.requests[0]!.config.systemInstruction).toContain('Reply with only a JSON object');
    judge.assertDone();
  });

  it('asks the judge again when its reply has no score, and scores 0 when it still has none', async () => {
    const evalSet = {
      id: 'judged',
      cases: [{ id: 'paris', turns: [{ user: 'Weather in Paris?', response: 'Sunny.' }] }],
    };
    const retried = new ScriptedModel(['Looks right to me.', '{"score": 1, "reason": "ok"}']);
    const first = await evaluate({ agent: weatherAgent, evalSet, metrics: ['llm_judge'], judgeModel: retried });
    expect(first.cases[0]!.metrics[0]!.score).toBe(1);
    retried.assertDone();

    const hopeless = new ScriptedModel(['Looks right to me.', 'Really, it is fine.']);
    const second = await evaluate({ agent: weatherAgent, evalSet, metrics: ['llm_judge'], judgeModel: hopeless });
    expect(second.cases[0]!.metrics[0]).toMatchObject({ score: 0, passed: false });
    expect(second.cases[0]!.turns[0]!.judgeReason).toBe(`The judge's reply had no score: "Really, it is fine."`);
  });

  it('fails a case whose run fails, skipping its later turns', async () => {
    const broken = () =>
      new LlmAgent({
        name: 'Broken',
        instruction: 'x',
        model: new ScriptedModel([{ error: 'provider down', status: 503 }]),
      });
    const report = await evaluate({
      agent: broken,
      evalSet: {
        id: 'broken',
        cases: [
          {
            id: 'two-turns',
            turns: [
              { user: 'hi', response: 'hello' },
              { user: 'again', response: 'hello', toolCalls: [] },
            ],
          },
        ],
      },
    });
    const [result] = report.cases;
    expect(result!.passed).toBe(false);
    expect(result!.error).toMatch(/^Turn 1: the run failed: .*provider down/);
    expect(result!.turns.map((t) => t.status)).toEqual(['failed', 'skipped']);
    expect(result!.metrics).toEqual([
      { metric: 'trajectory_exact', score: 0, threshold: 1, passed: false },
      { metric: 'response_match', score: 0, threshold: 0.8, passed: false },
    ]);
  });

  it('gives the default model to agents without one, and the case state to the session', async () => {
    const agent = new LlmAgent({ name: 'Echo', instruction: 'Say the city: {city}' });
    const model = new ScriptedModel([
      (request) => `City: ${request.config.systemInstruction?.match(/Say the city: (\w+)/)?.[1]}`,
    ]);
    const report = await evaluate({
      agent,
      runnerOptions: { defaultModel: model },
      evalSet: {
        id: 's',
        cases: [{ id: 'state', state: { city: 'Lima' }, turns: [{ user: 'go', response: 'City: Lima' }] }],
      },
    });
    expect(report.cases[0]!.turns[0]!.actualResponse).toBe('City: Lima');
    expect(report.passed).toBe(true);
  });

  it("closes a shared agent's toolsets once, after the last case, and a built agent's after its case", async () => {
    class CountingToolset extends BaseToolset {
      closed = 0;
      async getTools(): Promise<readonly BaseTool[]> {
        return [];
      }
      override async close(): Promise<void> {
        this.closed++;
      }
    }
    const evalSet = {
      id: 's',
      cases: [
        { id: 'a', turns: [{ user: 'hi' }] },
        { id: 'b', turns: [{ user: 'hi' }] },
      ],
    };
    const shared = new CountingToolset();
    const agent = new LlmAgent({
      name: 'Shared',
      instruction: 'x',
      tools: [shared],
      model: new ScriptedModel(['one', 'two']),
    });
    await evaluate({ agent, evalSet });
    expect(shared.closed).toBe(1);

    const built: CountingToolset[] = [];
    await evaluate({
      agent: () => {
        const toolset = new CountingToolset();
        built.push(toolset);
        return new LlmAgent({ name: 'Built', instruction: 'x', tools: [toolset], model: new ScriptedModel(['hello']) });
      },
      evalSet,
    });
    expect(built.map((t) => t.closed)).toEqual([1, 1]);
  });

  it.each([
    [{ metrics: ['llm_judge'] }, 'The llm_judge metric needs a judgeModel'],
    [
      { thresholds: { response_match: 1.5 } },
      "The threshold of 'response_match' must be a number from 0 to 1; got 1.5.",
    ],
    [
      { metrics: ['response_match'], thresholds: { trajectory_f1: 0.5 } },
      'There are thresholds for trajectory_f1, which metrics (response_match) does not include.',
    ],
    [{ metrics: [] }, 'metrics is empty'],
    [{ metrics: ['bleu'] }, "Unknown metric 'bleu'"],
    [{ evalSetPath: 'x.json' }, 'evaluate needs exactly one of evalSet (an object) and evalSetPath (a JSON file).'],
  ])('rejects bad options %j', async (options, message) => {
    const evalSet = { id: 's', cases: [{ id: 'a', turns: [{ user: 'hi' }] }] };
    await expect(evaluate({ agent: weatherAgent, evalSet, ...options })).rejects.toThrow(EvalConfigError);
    await expect(evaluate({ agent: weatherAgent, evalSet, ...options })).rejects.toThrow(message);
  });
});

import { describe, expect, it } from 'vitest';
import { InMemoryRunner, getFunctionCalls, type Content, type LlmRequest } from '@troupe/core';
import { ScriptedModel, type ScriptedReply } from '@troupe/core/testing';
import { rootAgent } from './agent.js';

const TOPIC = 'James Webb Space Telescope';
const FACTS =
  '- JWST launched on 25 December 2021 and observes in infrared.\n- It has a 6.5 m gold-coated mirror near L2.';
const NOTES = 'JWST, launched in December 2021, is an infrared observatory with a 6.5 m mirror near L2.';
const REPORT =
  'Report: the James Webb Space Telescope is an infrared observatory launched in December 2021; its 6.5 m mirror sits near L2.';

const call = (name: string, args: Record<string, unknown>) => ({ functionCalls: [{ name, args }] });
const lastParts = (request: LlmRequest) => request.contents.at(-1)!.parts;

describe('research-report example', () => {
  it('ReportWriter -> ResearchAssistant -> WebSearch/Summarizer: nested tool calls, results flow back up', async () => {
    const model = new ScriptedModel([
      call('ResearchAssistant', { request: TOPIC }), // 0 ReportWriter
      call('WebSearch', { request: TOPIC }), // 1 ResearchAssistant
      call('search_web', { query: 'James Webb telescope' }), // 2 WebSearch
      FACTS, // 3 WebSearch
      call('Summarizer', { request: FACTS }), // 4 ResearchAssistant
      NOTES, // 5 Summarizer
      NOTES, // 6 ResearchAssistant
      REPORT, // 7 ReportWriter
    ]);
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });

    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: `Write a report on the ${TOPIC}.`,
    });

    expect(result.status).toBe('completed');
    expect(result.output).toBe(REPORT);
    model.assertDone();

    // The calls happen at three levels; each event's path says who made it.
    const calls = result.events.flatMap((e) => getFunctionCalls(e).map((c) => [e.path, c.name]));
    expect(calls).toEqual([
      ['ReportWriter', 'ResearchAssistant'],
      ['ReportWriter/ResearchAssistant', 'WebSearch'],
      ['ReportWriter/ResearchAssistant/WebSearch', 'search_web'],
      ['ReportWriter/ResearchAssistant', 'Summarizer'],
    ]);
    // Each AgentTool call runs on <caller branch>.<caller>.<agent>.
    expect(result.events.find((e) => e.author === 'ResearchAssistant')!.branch).toBe('ReportWriter.ResearchAssistant');
    expect(result.events.find((e) => e.author === 'WebSearch')!.branch).toBe(
      'ReportWriter.ResearchAssistant.ResearchAssistant.WebSearch',
    );
    expect(result.events.find((e) => e.author === 'Summarizer')!.path).toBe(
      'ReportWriter/ResearchAssistant/Summarizer',
    );

    // WebSearch sees only its call's input, and the fake search results come back to it.
    expect(model.requests[2]!.contents).toEqual([{ role: 'user', parts: [{ text: TOPIC }] }]);
    const searchResponse = lastParts(model.requests[3]!)[0]!;
    expect(searchResponse).toMatchObject({
      functionResponse: { name: 'search_web', response: { query: 'James Webb telescope' } },
    });
    expect(JSON.stringify(searchResponse)).toContain('launched on 25 December 2021');

    // Results flow up as tool responses: WebSearch -> ResearchAssistant -> ReportWriter.
    expect(lastParts(model.requests[4]!)).toEqual([
      { functionResponse: expect.objectContaining({ name: 'WebSearch', response: { result: FACTS } }) },
    ]);
    expect(lastParts(model.requests[6]!)).toEqual([
      { functionResponse: expect.objectContaining({ name: 'Summarizer', response: { result: NOTES } }) },
    ]);
    expect(lastParts(model.requests[7]!)).toEqual([
      { functionResponse: expect.objectContaining({ name: 'ResearchAssistant', response: { result: NOTES } }) },
    ]);

    // Every inner event is stored in the session...
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    });
    const paths = new Set(stored!.events.filter((e) => e.author !== 'user').map((e) => e.path));
    expect(paths).toEqual(
      new Set([
        'ReportWriter',
        'ReportWriter/ResearchAssistant',
        'ReportWriter/ResearchAssistant/WebSearch',
        'ReportWriter/ResearchAssistant/Summarizer',
      ]),
    );
    // Token usage is totalled over the whole tree, inner agents included.
    expect(Object.keys(result.usage.byAgent).sort()).toEqual([
      'ReportWriter',
      'ResearchAssistant',
      'Summarizer',
      'WebSearch',
    ]);
    // ...but ReportWriter's model sees only its own call and the result, never the inner conversation.
    const writerFinal = model.requests[7]!;
    expect(writerFinal.contents.map((c: Content) => c.role)).toEqual(['user', 'model', 'user']);
    for (const writerRequest of [model.requests[0]!, writerFinal]) {
      const seen = JSON.stringify(writerRequest.contents);
      for (const inner of ['WebSearch', 'Summarizer', 'search_web', 'gold-coated']) expect(seen).not.toContain(inner);
    }
  });

  it("the inner conversation stays out of ReportWriter's history on later turns too", async () => {
    const model = new ScriptedModel([
      call('ResearchAssistant', { request: TOPIC }),
      call('WebSearch', { request: TOPIC }),
      call('search_web', { query: TOPIC }),
      FACTS,
      NOTES, // ResearchAssistant answers without summarising
      REPORT,
      'Short report: JWST is an infrared telescope launched in 2021.',
    ]);
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: `Write a report on the ${TOPIC}.` });

    const second = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Make it one sentence.' });

    expect(second.events.map((e) => e.author)).toEqual(['ReportWriter']);
    const followUp = model.requests[6]!;
    expect(followUp.contents.map((c) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
    expect(JSON.stringify(followUp.contents)).not.toContain('WebSearch');
    expect(JSON.stringify(followUp.contents)).not.toContain('search_web');
    model.assertDone();
  });

  it('ResearchAssistant can run two searches at once; each WebSearch call sees only its own query', async () => {
    // WebSearch's replies depend on its own conversation: search for the request, then report what came back.
    const webSearchReply: ScriptedReply = (request) => {
      const last = request.contents.at(-1)!.parts[0]!;
      if ('functionResponse' in last) return `Found: ${JSON.stringify(last.functionResponse.response.results)}`;
      const query = request.contents[0]!.parts[0]!;
      return call('search_web', { query: 'text' in query ? query.text : '' });
    };
    const model = new ScriptedModel([
      call('ResearchAssistant', { request: 'Compare Webb and Hubble' }),
      {
        functionCalls: [
          { name: 'WebSearch', args: { request: 'James Webb' } },
          { name: 'WebSearch', args: { request: 'Hubble' } },
        ],
      },
      webSearchReply,
      webSearchReply,
      webSearchReply,
      webSearchReply,
      'Webb observes in infrared since 2021; Hubble in visible light since 1990.',
      'Report: Webb (2021, infrared) extends what Hubble (1990, visible light) began.',
    ]);
    const runner = new InMemoryRunner({ agent: rootAgent, defaultModel: model });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });

    const result = await runner.run({
      userId: 'u',
      sessionId: session.id,
      newMessage: 'Compare the Webb and Hubble telescopes.',
    });

    expect(result.status).toBe('completed');
    model.assertDone();
    // Both results come back to ResearchAssistant in call order.
    const assistantFinal = model.requests.find((r) =>
      r.contents.at(-1)!.parts.some((p) => 'functionResponse' in p && p.functionResponse.name === 'WebSearch'),
    )!;
    const results = assistantFinal.contents
      .at(-1)!
      .parts.map((p) => ('functionResponse' in p ? String(p.functionResponse.response.result) : ''));
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('James Webb Space Telescope');
    expect(results[0]).not.toContain('Hubble');
    expect(results[1]).toContain('Hubble Space Telescope');
    // Each of the two concurrent WebSearch runs saw only its own request.
    const webSearchRequests = model.requests.filter((r) => r.config.systemInstruction?.startsWith('Search the web'));
    expect(webSearchRequests).toHaveLength(4);
    for (const request of webSearchRequests) {
      const seen = JSON.stringify(request.contents);
      expect(seen.includes('James Webb') !== seen.includes('Hubble')).toBe(true);
    }
    expect(result.events.filter((e) => e.author === 'WebSearch' && getFunctionCalls(e).length > 0)).toHaveLength(2);
  });
});

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FunctionAgent, InMemoryRunner, LlmAgent, TeamAgent, loadAgent, type LlmRequest } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { barrier } from '../../packages/core/test/wait.js';

const teamFile = fileURLToPath(new URL('./team.yaml', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The section title the chat skill was asked about (its instruction names it). */
const titleOf = (request: LlmRequest): string =>
  /titled "([^"]*)"/.exec(request.config.systemInstruction ?? '')?.[1] ?? '?';

/**
 * A model for the chat skill: answers one sentence per section after a delay (shorter for later
 * sections, so they would finish out of order), recording how many calls overlap. The calls for
 * the sections named in `together` wait for each other first, so they provably run at once.
 */
function timedChatModel(delays: Record<string, number>, together: string[]) {
  const log = { active: 0, maxActive: 0, starts: {} as Record<string, number>, ends: {} as Record<string, number> };
  const meeting = barrier(together.length, 'sections in a chat call at once');
  const reply = async (request: LlmRequest) => {
    const title = titleOf(request);
    log.starts[title] = performance.now();
    log.active++;
    log.maxActive = Math.max(log.maxActive, log.active);
    if (together.includes(title)) await meeting.arrive();
    await sleep(delays[title] ?? 50);
    log.active--;
    log.ends[title] = performance.now();
    return `The ${title.toLowerCase()} section, in one sentence.`;
  };
  return { model: new ScriptedModel(Object.keys(delays).map(() => reply)), log };
}

const sections = [
  { title: 'introduction', description: 'Why this matters' },
  { title: 'the METHOD', description: 'How we did it, step by step' },
  { title: 'results', description: '' },
  { title: 'next steps' },
];

describe('team-yaml example (seed 002 TeamAgent in YAML)', () => {
  it('loads the seed YAML: a parallel team of sandbox.js and chat.yaml iterating over sections', async () => {
    const team = await loadAgent(teamFile, { model: new ScriptedModel([]) });
    expect(team).toBeInstanceOf(TeamAgent);
    expect(team).toMatchObject({
      name: 'test_team_agent',
      description: 'Test team agent',
      mode: 'parallel',
      iterateOn: 'sections',
      concurrency: 2,
      iterateWithPreviousOutput: false,
      includeAllStepsOutput: true,
    });
    const [sandbox, chat] = (team as TeamAgent).skills;
    expect(sandbox).toBeInstanceOf(FunctionAgent);
    expect(sandbox).toMatchObject({
      name: 'sandbox',
      description: expect.stringContaining('Tidies a section') as string,
    });
    expect(sandbox!.inputSchema).toMatchObject({ required: ['title'] });
    expect(chat).toBeInstanceOf(LlmAgent);
    expect(chat).toMatchObject({ name: 'chat', outputKey: 'description' });
    expect((team as TeamAgent).outputSchema).toMatchObject({ properties: { sections: { type: 'array' } } });
  });

  it('runs each section through both skills, 2 sections at a time, with results in input order', async () => {
    const { model, log } = timedChatModel({ introduction: 150, 'the METHOD': 90, results: 60, 'next steps': 30 }, [
      'introduction',
      'the METHOD',
    ]);
    const team = await loadAgent(teamFile, { model });
    const runner = new InMemoryRunner({ agent: team });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });

    const result = await runner.run({ userId: 'u', sessionId: session.id, input: { sections } });

    expect(result.status).toBe('completed');
    expect(result.output).toEqual({
      sections: [
        { title: 'Introduction', word_count: 3, description: 'The introduction section, in one sentence.' },
        { title: 'The Method', word_count: 7, description: 'The the method section, in one sentence.' },
        { title: 'Results', word_count: 0, description: 'The results section, in one sentence.' },
        { title: 'Next Steps', word_count: 0, description: 'The next steps section, in one sentence.' },
      ],
    });
    model.assertDone();

    // Two sections at a time: the first two met in their chat calls, never more than two ran at
    // once, and each of the last two sections starts only when an earlier one has finished.
    expect(log.maxActive).toBe(2);
    const [intro, method, results, next] = sections.map((section) => section.title);
    expect(log.starts[results!]!).toBeGreaterThanOrEqual(Math.min(log.ends[intro!]!, log.ends[method!]!) - 1);
    expect(log.starts[next!]!).toBeGreaterThanOrEqual(log.ends[method!]! - 1);

    // Each section's skills stream on their own branch: <team>.<skill>[i].
    const branches = new Set(result.events.map((e) => e.branch).filter((b) => b?.includes('[')));
    for (let i = 0; i < sections.length; i++) {
      expect(branches).toContain(`test_team_agent.sandbox[${i}]`);
      expect(branches).toContain(`test_team_agent.chat[${i}]`);
    }
  });

  it("the chat skill's instruction is filled from the section it works on", async () => {
    const model = new ScriptedModel(['A sentence.']);
    const team = await loadAgent(teamFile, { model });
    const runner = new InMemoryRunner({ agent: team });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({
      userId: 'u',
      sessionId: session.id,
      input: { sections: [{ title: 'Scope', description: 'What is in and out' }] },
    });
    expect(model.requests[0]!.config.systemInstruction).toBe(
      'Write one sentence describing the section titled "Scope".\nIts current description, possibly empty: What is in and out\n',
    );
  });
});

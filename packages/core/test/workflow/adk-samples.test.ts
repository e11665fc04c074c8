/**
 * ADK JS 2.x's offline workflow samples (samples/workflows/**), ported by changing the import line
 * to '@troupe/core', run turn by turn as ADK's sample harness runs them. The expected outputs are
 * the samples' own.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createEvent,
  DEFAULT_ROUTE,
  FunctionNode,
  JoinNode,
  LlmAgent,
  node,
  RequestInput,
  Workflow,
  type LlmRequest,
  type NodeContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { nodeRuns, session } from './harness.js';

describe('ADK workflow samples', () => {
  it('routes/function_node', async () => {
    const myFunctionNode = node((_ctx, x: string) => x.toUpperCase(), { name: 'my_function_node' });
    const addSuffix = node((_ctx, x: string) => createEvent({ output: `${x} IS AWESOME!` }), { name: 'add_suffix' });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', myFunctionNode, addSuffix]] }));
    expect((await s.send('hello world')).output).toBe('HELLO WORLD IS AWESOME!');
  });

  it('routes/sequence', async () => {
    const a = node((_ctx, x: string) => `Summary: ${x.trim()}`, { name: 'task_A_node' });
    const b = node((_ctx, x: string) => x.toUpperCase(), { name: 'task_B_node' });
    const c = node((_ctx, x: string) => `${x} (done)`, { name: 'task_C_node' });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', a, b, c]] }));
    expect((await s.send('hello world')).output).toBe('SUMMARY: HELLO WORLD (done)');
  });

  it('routes/fan_out_join', async () => {
    const a = node((_ctx, x: string) => x.toUpperCase(), { name: 'parallel_task_A' });
    const b = node((_ctx, x: string) => x.length, { name: 'parallel_task_B' });
    const c = node((_ctx, x: string) => [...x].reverse().join(''), { name: 'parallel_task_C' });
    const join = new JoinNode({ name: 'my_join_node' });
    const d = node(
      (_ctx, r: Record<string, unknown>) =>
        `Uppercase: ${String(r.parallel_task_A)}\nLength:    ${String(r.parallel_task_B)}\nReversed:  ${String(r.parallel_task_C)}`,
      { name: 'final_task_D' },
    );
    const s = await session(
      new Workflow({
        name: 'root_agent',
        edges: [
          ['START', a, join],
          ['START', b, join],
          ['START', c, join],
          [join, d],
        ],
      }),
    );
    expect((await s.send('abc')).output).toBe('Uppercase: ABC\nLength:    3\nReversed:  cba');
    expect((await s.starts()).get('root_agent.my_join_node')).toBe(1);
  });

  it('routes/nested_workflow', async () => {
    const a1 = node((_ctx, x: string) => x, { name: 'task_A1' });
    const router = node(
      (_ctx, x: string) =>
        createEvent({ output: x, route: x === x.toUpperCase() ? 'RUN_WORKFLOW_C' : 'RUN_WORKFLOW_B' }),
      { name: 'router' },
    );
    const titleCase = node((_ctx, x: string) => x.replace(/\p{L}+/gu, (w) => w[0]!.toUpperCase() + w.slice(1)), {
      name: 'b_title_case',
    });
    const bFrame = node((_ctx, x: string) => `[B] ${x}`, { name: 'b_frame' });
    const lower = node((_ctx, x: string) => x.toLowerCase(), { name: 'c_lower_case' });
    const cFrame = node((_ctx, x: string) => `[C] ${x}`, { name: 'c_frame' });
    const workflowB = new Workflow({ name: 'workflow_B', edges: [['START', titleCase, bFrame]] });
    const workflowC = new Workflow({ name: 'workflow_C', edges: [['START', lower, cFrame]] });
    const s = await session(
      new Workflow({
        name: 'parent_workflow',
        edges: [['START', a1, router, { RUN_WORKFLOW_B: workflowB, RUN_WORKFLOW_C: workflowC }]],
      }),
    );
    expect((await s.send('ünïcödé strässe test')).output).toBe('[B] Ünïcödé Strässe Test');
    expect(await s.ended()).toContain('parent_workflow.workflow_B.b_frame@1');
    expect((await s.send('LOUD')).output).toBe('[C] loud');
  });

  it('routes/loop_escalation', async () => {
    interface Draft {
      topic: string;
      bullets: string[];
    }
    const seed = node((_ctx, topic: string): Draft => ({ topic, bullets: [] }), { name: 'seed_draft' });
    const critic = node(
      (_ctx, d: Draft) => createEvent({ output: d, route: d.bullets.length >= 3 ? 'DONE' : 'REVISE' }),
      { name: 'critic' },
    );
    const refine = node(
      (_ctx, d: Draft): Draft => ({ ...d, bullets: [...d.bullets, `${d.topic} — point ${d.bullets.length + 1}`] }),
      {
        name: 'refine',
      },
    );
    const finalize = node(
      (_ctx, d: Draft) => `Approved after ${d.bullets.length} bullets:\n${d.bullets.map((b) => `  • ${b}`).join('\n')}`,
      { name: 'finalize' },
    );
    const s = await session(
      new Workflow({
        name: 'root_agent',
        edges: [
          ['START', seed, critic],
          [critic, { REVISE: refine, DONE: finalize }],
          [refine, critic],
        ],
      }),
    );
    const result = await s.send('graph workflows');
    expect(result.output).toBe(
      'Approved after 3 bullets:\n  • graph workflows — point 1\n  • graph workflows — point 2\n  • graph workflows — point 3',
    );
    const starts = await s.starts();
    expect(starts.get('root_agent.critic')).toBe(4);
    expect(starts.get('root_agent.refine')).toBe(3);
  });

  it('data_handling/node_output', async () => {
    const raw = node((_ctx, x: string) => x.toUpperCase(), { name: 'return_raw_value' });
    const ev = node((_ctx, x: string) => createEvent({ output: `${x}!` }), { name: 'return_event_output' });
    const gen = node(
      async function* (_ctx: NodeContext, x: string) {
        yield createEvent({ content: { role: 'model', parts: [{ text: 'Working on it...' }] } });
        yield createEvent({ output: `<<${x}>>` });
      },
      { name: 'yield_progress_then_output' },
    );
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', raw, ev, gen]] }));
    expect((await s.send('hello world')).output).toBe('<<HELLO WORLD!>>');
  });

  it('data_handling/structured_output: schemas on both sides', async () => {
    const CityTime = z.object({ cityName: z.string(), cityTime: z.string() });
    const emit = node(() => ({ cityName: 'Paris', cityTime: '10:10 AM' }), {
      name: 'emit_structured_output',
      outputSchema: CityTime,
    });
    const consume = node((_ctx, c: z.infer<typeof CityTime>) => `It is ${c.cityTime} in ${c.cityName} right now.`, {
      name: 'consume_structured_output',
      inputSchema: CityTime,
    });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', emit, consume]] }));
    expect((await s.send('go')).output).toBe('It is 10:10 AM in Paris right now.');
  });

  it('data_handling/routing_output: an unmatched route takes DEFAULT_ROUTE', async () => {
    const router = node(
      (_ctx, x: string) => createEvent({ output: x, route: /bug|crash|error/i.test(x) ? 'BUG' : 'OTHER' }),
      {
        name: 'router',
      },
    );
    const bug = node((_ctx, x: string) => `Filed a bug for: ${x}`, { name: 'handle_bug' });
    const other = node((_ctx, x: string) => `No bug detected in: ${x}`, { name: 'handle_anything_else' });
    const s = await session(
      new Workflow({ name: 'root_agent', edges: [['START', router, { BUG: bug, [DEFAULT_ROUTE]: other }]] }),
    );
    expect((await s.send('this is a bug report')).output).toBe('Filed a bug for: this is a bug report');
    expect((await s.send('hello')).output).toBe('No bug detected in: hello');
  });

  it('data_handling/user_message: content-only events pass no output on', async () => {
    const userMessage = node(
      (_ctx, x: string) =>
        createEvent({ content: { role: 'model', parts: [{ text: `Beginning research process for "${x}"...` }] } }),
      { name: 'user_message' },
    );
    const research = node(
      async function* (_ctx: NodeContext, input: unknown) {
        expect(input).toBeUndefined();
        yield createEvent({ content: { role: 'model', parts: [{ text: 'Gathering sources...' }] } });
        yield createEvent({ output: ['source-a', 'source-b', 'source-c'] });
      },
      { name: 'research' },
    );
    const report = node((_ctx, s: string[]) => `Research complete. ${s.length} sources: ${s.join(', ')}.`, {
      name: 'report',
    });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', userMessage, research, report]] }));
    expect((await s.send('llamas')).output).toBe('Research complete. 3 sources: source-a, source-b, source-c.');
  });

  it('data_handling/session_state', async () => {
    const init = node(
      (ctx: NodeContext, x: string) => {
        ctx.state.set('topic', x);
        ctx.state.set('temp:started_at', '2026-11-28T00:00:00Z');
        ctx.state.set('attempts', 0);
      },
      { name: 'init_state_node' },
    );
    const attempt = node(
      (ctx: NodeContext) => {
        ctx.state.set('attempts', ctx.state.get<number>('attempts')! + 1);
      },
      { name: 'task_attempt_node' },
    );
    const read = node(
      (ctx: NodeContext) =>
        `attempts state: ${ctx.state.get('attempts')} (topic: ${ctx.state.get('topic')}, started: ${ctx.state.get('temp:started_at')})`,
      { name: 'read_state_node' },
    );
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', init, attempt, read]] }));
    const result = await s.send('hello world');
    expect(result.output).toBe('attempts state: 1 (topic: hello world, started: 2026-11-28T00:00:00Z)');
    expect(result.state.attempts).toBe(1);
  });

  it('human_input/get_started: a text message answers the one open request', async () => {
    const step1 = node(
      function* () {
        yield new RequestInput({ message: 'Enter a number:' });
      },
      { name: 'step1' },
    );
    const step2 = node((_ctx, x: string) => (Number.isNaN(Number(x)) ? `"${x}" is not a number.` : Number(x) * 2), {
      name: 'step2',
    });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', step1, step2]] }));
    const paused = await s.send('start');
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]).toMatchObject({
      kind: 'input',
      message: 'Enter a number:',
      toolName: 'adk_request_input',
    });
    const done = await s.send('21');
    expect(done.status).toBe('completed');
    expect(done.output).toBe(42);
    expect((await s.starts()).get('root_agent.step1')).toBe(1);
  });

  it('human_input/rerun_on_resume: the same request id, asked again in a loop', async () => {
    const processInput = node(
      (ctx: NodeContext, x: string) => {
        if (ctx.state.get('complaint') === undefined) ctx.state.set('complaint', x);
      },
      { name: 'process_input' },
    );
    const draftReply = node(
      (ctx: NodeContext) => {
        const feedback = ctx.state.get<string>('feedback');
        return `Dear customer, we are sorry about "${ctx.state.get('complaint')}".${feedback ? ` (revised for: ${feedback})` : ''}`;
      },
      { name: 'draft_reply' },
    );
    const humanReview = new FunctionNode(
      'human_review',
      (ctx: NodeContext, draft: string) => {
        const answer = ctx.resumeInputs.human_review as string | undefined;
        if (answer === undefined)
          return new RequestInput({
            interruptId: 'human_review',
            message: `Review the draft and reply 'approve', 'reject', or feedback to revise.\n\n---\n${draft}\n---`,
          });
        if (answer === 'approve') return createEvent({ route: 'approved' });
        if (answer === 'reject') return createEvent({ route: 'rejected' });
        ctx.state.set('feedback', answer);
        return createEvent({ route: 'revise' });
      },
      { rerunOnResume: true },
    );
    const send = node(() => 'Draft approved and sent successfully.', { name: 'send_reply' });
    const reject = node(() => 'Draft rejected.', { name: 'reject_reply' });
    const workflow = () =>
      new Workflow({
        name: 'root_agent',
        edges: [
          ['START', processInput, draftReply, humanReview],
          [humanReview, { revise: draftReply, approved: send, rejected: reject }],
        ],
      });
    const s = await session(workflow());
    expect((await s.send('my order is late')).status).toBe('interrupted');
    const again = await s.send('make it shorter');
    expect(again.status).toBe('interrupted');
    expect(again.interrupts[0]!.message).toContain('(revised for: make it shorter)');
    const done = await s.send('approve');
    expect(done.output).toBe('Draft approved and sent successfully.');
    expect((await s.starts()).get('root_agent.draft_reply')).toBe(2);

    const s2 = await session(workflow());
    await s2.send('broken');
    expect((await s2.send('reject')).output).toBe('Draft rejected.');
  });

  it('human_input/payload_and_schema: an object answer is checked, a text answer passes', async () => {
    const build = node((_ctx, city: string) => [`${city} museum`, `${city} park`, `${city} food tour`], {
      name: 'build_itinerary',
    });
    const feedback = node(
      (_ctx, itinerary: string[]) =>
        new RequestInput({
          message: itinerary.map((a, i) => `${i + 1}. ${a}`).join('\n'),
          payload: itinerary,
          responseSchema: z.object({ userResponse: z.string() }),
        }),
      { name: 'get_user_feedback' },
    );
    const apply = node(
      (_ctx, r: string | { userResponse: string }) =>
        `Noted. Building the final itinerary around: ${typeof r === 'string' ? r : r.userResponse}`,
      { name: 'apply_feedback' },
    );
    const wf = () => new Workflow({ name: 'root_agent', edges: [['START', build, feedback, apply]] });
    const s = await session(wf());
    const paused = await s.send('Paris');
    const id = paused.interrupts[0]!.id;
    expect(paused.interrupts[0]!.payload).toEqual(['Paris museum', 'Paris park', 'Paris food tour']);
    await expect(s.resume({ [id]: { userResponse: 3 } })).rejects.toThrow(/userResponse/);
    expect((await s.resume({ [id]: { userResponse: 'the museum' } })).output).toBe(
      'Noted. Building the final itinerary around: the museum',
    );
    const t = await session(wf());
    await t.send('Rome');
    expect((await t.send('the museum')).output).toBe('Noted. Building the final itinerary around: the museum');
  });

  it('dynamic/get_started and dynamic/nodes', async () => {
    const hello = node(() => 'Hello World', { name: 'hello_node' });
    const root = node(async (ctx: NodeContext) => (await ctx.runNode(hello, 'hello')).output, {
      name: 'my_workflow',
      rerunOnResume: true,
    });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', root]] }));
    expect((await s.send('hi')).output).toBe('Hello World');
    expect(await s.ended()).toContain('root_agent.my_workflow.hello_node@1@1');

    const fn = (_ctx: NodeContext, x?: string) => `Hello ${x ?? 'World'}`;
    const helloNode = node(fn, { name: 'hello_node' });
    const helloFn = new FunctionNode('hello', fn, { rerunOnResume: true });
    const format = node((_ctx, x: string) => `>> ${x} <<`, { name: 'my_formatting_node' });
    const chain = node(
      async (ctx: NodeContext, x: string) => {
        const a = await ctx.runNode(helloNode, x);
        const b = await ctx.runNode(helloFn, a.output);
        return (await ctx.runNode(format, b.output)).output;
      },
      { name: 'my_workflow' },
    );
    const t = await session(new Workflow({ name: 'root_agent', edges: [['START', chain]] }));
    expect((await t.send('hello world')).output).toBe('>> Hello Hello hello world <<');
  });

  it('dynamic/parallel_route: Promise.all over runNode fans out', async () => {
    const analyze = node((_ctx, item: string) => ({ item, length: item.length }), { name: 'analyze_item' });
    const supervisor = node(
      async (ctx: NodeContext, x: string) =>
        (await Promise.all(x.split(',').map((i) => ctx.runNode(analyze, i.trim())))).map((r) => r.output),
      { name: 'parallel_supervisor' },
    );
    const summarize = node(
      (_ctx, results: { item: string; length: number }[]) =>
        results.map((r) => `${r.item}: ${r.length} chars`).join('\n'),
      { name: 'summarize' },
    );
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', supervisor, summarize]] }));
    expect((await s.send('alpha, beta, gamma')).output).toBe('alpha: 5 chars\nbeta: 4 chars\ngamma: 5 chars');
    expect((await s.ended()).filter((p) => p.includes('analyze_item'))).toHaveLength(3);
  });

  it('dynamic/human_input: a child that pauses resolves with its interruptIds', async () => {
    const approval = node(() => new RequestInput({ message: 'Please approve this request (Yes/No)' }), {
      name: 'get_user_approval',
    });
    let parentRuns = 0;
    const handle = node(
      async (ctx: NodeContext) => {
        parentRuns += 1;
        const result = await ctx.runNode(approval);
        if (result.interruptIds.length > 0) return undefined;
        return String(result.output).toLowerCase() === 'yes' ? 'Approved' : 'Denied';
      },
      { name: 'handle_process', rerunOnResume: true },
    );
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', handle]] }));
    expect((await s.send('please approve')).status).toBe('interrupted');
    expect((await s.send('yes')).output).toBe('Approved');
    expect(parentRuns).toBe(2);
    expect((await s.starts()).get('root_agent.handle_process.get_user_approval@1')).toBe(1);
  });

  it('dynamic/custom_run_ids', async () => {
    const orders = [
      { id: 'a91', items: 2 },
      { id: 'b02', items: 1 },
      { id: 'c73', items: 3 },
    ];
    const processOrder = node((_ctx, o: { id: string; items: number }) => `order ${o.id}: ${o.items} item(s) shipped`, {
      name: 'process_order',
    });
    const all = node(
      async (ctx: NodeContext) => {
        const out: string[] = [];
        for (const o of orders)
          out.push((await ctx.runNode(processOrder, o, { runId: `order-${o.id}` })).output as string);
        return out.join('\n');
      },
      { name: 'process_all_orders' },
    );
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', all]] }));
    expect((await s.send('ship')).output).toBe(
      'order a91: 2 item(s) shipped\norder b02: 1 item(s) shipped\norder c73: 3 item(s) shipped',
    );
    expect(await s.ended()).toContain('root_agent.process_all_orders.process_order@order-a91@order-a91');
  });

  it('retry: exactly the tries needed, each an event', async () => {
    let tries = 0;
    const getWeather = node(
      async function* (ctx: NodeContext) {
        tries += 1;
        yield createEvent({
          content: { role: 'model', parts: [{ text: `Getting weather... attempt ${ctx.attemptCount}` }] },
        });
        if (tries < 3) throw new Error('weather service unavailable');
        yield 'sunny';
      },
      { name: 'get_weather', retryConfig: { maxAttempts: 5, initialDelayMs: 1, jitter: 0 } },
    );
    const report = node((_ctx, w: string) => `The weather is ${w}`, { name: 'report_weather' });
    const s = await session(new Workflow({ name: 'root_agent', edges: [['START', getWeather, report]] }));
    const result = await s.send('weather?');
    expect(result.output).toBe('The weather is sunny');
    expect(tries).toBe(3);
    const events = await s.events();
    expect(events.filter((e) => e.actions.agentState?.node === 'failed')).toHaveLength(2);
    // get_weather awaits (a start record per try); report_weather returns at once (its end record alone).
    expect(events.filter((e) => e.actions.agentState?.node === 'started').map((e) => e.nodeInfo!.path)).toEqual([
      'root_agent.get_weather',
      'root_agent.get_weather',
      'root_agent.get_weather',
    ]);
    expect(events.filter((e) => e.actions.agentState?.node === 'started').map((e) => e.nodeInfo!.attempt)).toEqual([
      1, 2, 3,
    ]);
    expect(nodeRuns(events).map((r) => r.path)).toEqual(['root_agent.get_weather', 'root_agent.report_weather']);
  });

  it('multi_triggers: a node without a join runs once per trigger', async () => {
    const up = node((_ctx, x: string) => x.toUpperCase(), { name: 'make_uppercase' });
    const count = node((_ctx, x: string) => x.length, { name: 'count_characters' });
    const rev = node((_ctx, x: string) => [...x].reverse().join(''), { name: 'reverse_string' });
    const seen: unknown[] = [];
    const send = node(
      (_ctx, x: unknown) => {
        seen.push(x);
        return `Triggered for input: ${String(x)}`;
      },
      { name: 'send_message' },
    );
    const s = await session(
      new Workflow({ name: 'root_agent', inputSchema: z.string(), edges: [['START', [up, count, rev], send]] }),
    );
    await s.send('go');
    expect(seen.sort()).toEqual([2, 'GO', 'og'].sort());
  });

  it('node_as_tool: a workflow and a node in LlmAgent.tools, a RequestInput answered by functionResponse', async () => {
    const lookup = node(
      (_ctx, input: { user_id: string }) => ({ user_id: input.user_id, tier: 'Verified VIP Member' }),
      {
        name: 'lookup',
      },
    );
    const customerLookup = new Workflow({
      name: 'customer_lookup_workflow',
      description: 'Looks a customer up.',
      inputSchema: z.object({ user_id: z.string() }),
      edges: [['START', lookup]],
    });
    const discount = node(
      (ctx: NodeContext, input: { tier: string }) => {
        const answer = ctx.resumeInputs.confirm_vip_discount as { text?: string } | undefined;
        if (answer === undefined)
          return new RequestInput({ interruptId: 'confirm_vip_discount', message: `Give ${input.tier} 20%?` });
        return answer.text === 'yes' ? '20% off' : 'no discount';
      },
      { name: 'calculate_discount', inputSchema: z.object({ tier: z.string() }), rerunOnResume: true },
    );
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'customer_lookup_workflow', args: { user_id: 'c123' } }] },
      { functionCalls: [{ name: 'calculate_discount', args: { tier: 'Verified VIP Member' } }] },
      'You get 20% off.',
    ]);
    const agent = new LlmAgent({ name: 'root_agent', model, tools: [customerLookup, discount] });
    const s = await session(agent);
    const paused = await s.send('What discount do I get? I am c123.');
    expect(paused.status).toBe('interrupted');
    expect(paused.interrupts[0]!.id).toBe('confirm_vip_discount');
    const done = await s.runner.run({
      userId: 'u',
      sessionId: s.sessionId,
      newMessage: {
        role: 'user',
        parts: [
          { functionResponse: { id: 'confirm_vip_discount', name: 'adk_request_input', response: { text: 'yes' } } },
        ],
      },
    });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('You get 20% off.');
    const toolResult = JSON.stringify(model.requests[2]!.contents);
    expect(toolResult).toContain('Verified VIP Member');
    expect(toolResult).toContain('20% off');
  });
});

describe('ADK workflow samples that need a model (scripted)', () => {
  it('graphs/get_started and structured_access: {Class.field} and <Class.field from node> in instructions', async () => {
    const CityTime = z.object({ timeInfo: z.string(), city: z.string() });
    const cityModel = new ScriptedModel(['Paris']);
    const reportModel = new ScriptedModel([
      (req) => `It is 10:10 AM in ${String(req.config?.systemInstruction ?? '').match(/in (\w+)/)![1]} right now.`,
    ]);
    const cityGenerator = new LlmAgent({
      name: 'city_generator_agent',
      model: cityModel,
      instruction: 'Name one city.',
    });
    const lookupTime = node((_ctx, city: string) => ({ timeInfo: '10:10 AM', city }), { name: 'lookup_time_function' });
    const cityReport = new LlmAgent({
      name: 'city_report_agent',
      model: reportModel,
      instruction:
        'Say: It is {CityTime.timeInfo} in {CityTime.city} (checked <CityTime.timeInfo from lookup_time_function>).',
    });
    const completed = node(
      (_ctx, text: string) =>
        createEvent({ content: { role: 'model', parts: [{ text: `${text}\n WORKFLOW COMPLETED.` }] } }),
      {
        name: 'completed_message_function',
      },
    );
    const s = await session(
      new Workflow({
        name: 'root_agent',
        edges: [['START', cityGenerator, lookupTime, node(cityReport, { inputSchema: CityTime }), completed]],
      }),
    );
    const result = await s.send('go');
    expect(result.status).toBe('completed');
    expect(String(reportModel.requests[0]!.config?.systemInstruction)).toContain(
      'Say: It is 10:10 AM in Paris (checked 10:10 AM).',
    );
    const last = (await s.events()).filter((e) => e.author === 'completed_message_function' && e.content)[0]!;
    expect(last.content!.parts[0]).toEqual({ text: 'It is 10:10 AM in Paris right now.\n WORKFLOW COMPLETED.' });
    // The last node emits content and no output: the workflow has none (ADK).
    expect(result.output).toBeUndefined();
  });

  it('an LlmAgent node with outputSchema outputs the parsed object; routes/branches routes to an agent', async () => {
    const Verdict = z.object({ label: z.string(), score: z.number() });
    const judge = new LlmAgent({
      name: 'judge',
      model: new ScriptedModel(['{"label":"spam","score":0.9}']),
      outputSchema: Verdict,
      instruction: 'Classify.',
    });
    const router = node(
      (_ctx, v: z.infer<typeof Verdict>) =>
        createEvent({ output: v.label, route: v.score > 0.5 ? 'RUN_TASK_B' : 'RUN_TASK_C' }),
      {
        name: 'router',
      },
    );
    const taskB = new LlmAgent({
      name: 'task_B_agent',
      model: new ScriptedModel(['Marked as spam.']),
      instruction: 'Answer the user in a single short sentence.',
    });
    const taskC = node(() => 'Task C completed', { name: 'task_C_node' });
    const s = await session(
      new Workflow({ name: 'root_agent', edges: [['START', judge, router, { RUN_TASK_B: taskB, RUN_TASK_C: taskC }]] }),
    );
    const result = await s.send('buy cheap watches');
    expect(result.output).toBe('Marked as spam.');
    const ended = await s.ended();
    expect(ended).toContain('root_agent.judge@1');
    expect(ended).not.toContain('root_agent.task_C_node@1');
    const judgeEnd = (await s.events()).find(
      (e) => e.nodeInfo?.path === 'root_agent.judge' && e.actions.agentState?.node === 'ended',
    );
    expect(judgeEnd!.output).toEqual({ label: 'spam', score: 0.9 });
  });

  it('parallel_worker: a function node and an LlmAgent node as parallel workers (at most 2 at a time)', async () => {
    const Explanation = z.object({ topic: z.string(), explanation: z.string() });
    const processInput = node(
      (ctx: NodeContext, topic: string) => {
        ctx.state.set('topic', topic);
        return topic;
      },
      { name: 'process_input' },
    );
    const related = node((_ctx, topic: string) => [`${topic} history`, `${topic} science`, `${topic} art`], {
      name: 'find_related_topics',
    });
    const upper = node((_ctx, t: string) => t.toUpperCase(), {
      name: 'make_upper_case',
      parallelWorker: true,
      maxParallelWorkers: 2,
    });
    let inFlight = 0;
    let peak = 0;
    const model = new ScriptedModel(
      Array.from({ length: 3 }, () => async (req: LlmRequest) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        const first = req.contents.at(-1)!.parts[0];
        const topic = first && 'text' in first ? first.text : '';
        return JSON.stringify({ topic, explanation: `${topic.toLowerCase()} explained` });
      }),
    );
    const explain = new LlmAgent({
      name: 'explain_topic',
      model,
      outputSchema: Explanation,
      instruction: 'Explain the topic.',
    });
    const aggregate = node(
      (_ctx, items: z.infer<typeof Explanation>[]) =>
        createEvent({
          content: { role: 'model', parts: [{ text: items.map((i) => `${i.topic}: ${i.explanation}`).join('\n') }] },
        }),
      { name: 'aggregate' },
    );
    const s = await session(
      new Workflow({
        name: 'root_agent',
        edges: [
          [
            'START',
            processInput,
            related,
            upper,
            node(explain, { parallelWorker: true, maxParallelWorkers: 2 }),
            aggregate,
          ],
        ],
      }),
    );
    const result = await s.send('tea');
    expect(result.status).toBe('completed');
    const text = (await s.events()).find((e) => e.author === 'aggregate' && e.content)!.content!.parts[0]!;
    expect(text).toEqual({
      text: 'TEA HISTORY: tea history explained\nTEA SCIENCE: tea science explained\nTEA ART: tea art explained',
    });
    expect(peak).toBeLessThanOrEqual(2);
    expect(result.state.topic).toBe('tea');
  });
});

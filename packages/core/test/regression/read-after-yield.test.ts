import { describe, expect, it } from 'vitest';
import { BaseAgent, createEvent, InMemoryRunner, ParallelAgent, type InvocationContext } from '@troupe/core';

// [bug elsewhere] an agent read the session right after yielding and missed its own write,
// because the runner appended the event only after resuming the agent.
describe('regression: no read-after-yield race', () => {
  it('the event (and its state delta) is stored before the agent continues, in every branch', async () => {
    class Counter extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext) {
        for (let i = 1; i <= 5; i++) {
          const key = `${this.name}_count`;
          yield createEvent({ actions: { stateDelta: { [key]: i } } });
          const stored = await ctx.sessionService.getSession({
            appName: ctx.session.appName,
            userId: ctx.session.userId,
            sessionId: ctx.session.id,
          });
          if (ctx.session.state[key] !== i || stored!.state[key] !== i)
            throw new Error(`${this.name} read a stale state after yielding ${i}`);
          if (
            stored!.events.at(-1)!.actions.stateDelta[key] === undefined &&
            !stored!.events.some((e) => e.actions.stateDelta[key] === i)
          ) {
            throw new Error('event not stored');
          }
        }
      }
    }
    const runner = new InMemoryRunner({
      agent: new ParallelAgent({
        name: 'P',
        subAgents: [new Counter({ name: 'C1' }), new Counter({ name: 'C2' }), new Counter({ name: 'C3' })],
      }),
    });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ C1_count: 5, C2_count: 5, C3_count: 5 });
  });
});

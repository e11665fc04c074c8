import { InMemoryRunner, Runner, type BaseAgent, type Event, type RunResult, type SessionService } from '@troupe/core';

/** One session of a workflow app, driven turn by turn as ADK's sample harness does (in memory, or on `sessionService`). */
export async function session(agent: BaseAgent, sessionService?: SessionService) {
  const runner = sessionService ? new Runner({ appName: 'app', agent, sessionService }) : new InMemoryRunner({ agent });
  const { id } = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const events = async (): Promise<Event[]> =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: id }))!.events;
  return {
    runner,
    sessionId: id,
    events,
    /** Sends a text message; answers the open request when one is pending. */
    send: (text: string): Promise<RunResult> => runner.run({ userId: 'u', sessionId: id, newMessage: text }),
    resume: (responses: Record<string, unknown>): Promise<RunResult> =>
      runner.resume({ userId: 'u', sessionId: id, responses }),
    /** Paths of node runs that ended (in order), with their run ids. */
    ended: async (): Promise<string[]> =>
      (await events())
        .filter((e) => e.actions.agentState?.node === 'ended')
        .map((e) => `${e.nodeInfo!.path}@${e.nodeInfo!.runId}`),
    /** How many times each path started a new run (retries not counted). */
    starts: async (): Promise<Map<string, number>> => {
      const counts = new Map<string, number>();
      for (const run of nodeRuns(await events())) counts.set(run.path, (counts.get(run.path) ?? 0) + 1);
      return counts;
    },
  };
}

/**
 * The node runs the events record, in the order they started: a run starts at its start record,
 * or at its end record when that is its only one (a node that returned at once stores no start).
 */
export function nodeRuns(events: readonly Event[]): { path: string; runId: string }[] {
  const runs: { path: string; runId: string }[] = [];
  const open = new Set<string>();
  for (const e of events) {
    const record = e.actions.agentState?.node;
    if (!e.nodeInfo || e.nodeInfo.runId === undefined || (record !== 'started' && record !== 'ended')) continue;
    const key = `${e.nodeInfo.path}#${e.nodeInfo.runId}`;
    if (!open.has(key)) runs.push({ path: e.nodeInfo.path, runId: e.nodeInfo.runId });
    if (record === 'started') open.add(key);
    else open.delete(key);
  }
  return runs;
}

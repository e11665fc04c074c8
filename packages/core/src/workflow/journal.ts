import type { Event, InterruptInfo, Route } from '../events/event.js';

/**
 * The workflow's progress records, on its nodes' events (`actions.agentState.node`): a node run
 * starts (one record per try), ends (with its output and route), or a try fails. A resumed run
 * reads them back from the session instead of running finished work again.
 */
export type NodeRecord =
  | { node: 'started'; input?: unknown }
  /**
   * `alone`: the run's only record (it returned at once and stored no start record); it carries
   * the run's `input` then, as a start record would.
   */
  | { node: 'ended'; waiting?: true; alone?: true; input?: unknown }
  | { node: 'failed' }
  | { workflow: 'ended' };

/** What the session says of one node run (a path and run id). */
export interface RunRecord {
  path: string;
  runId: string;
  /** Where its latest try's start record is in the session. */
  startIndex: number;
  /** The latest try. */
  attempt: number;
  ended: boolean;
  /** Ended without an output and a route under `waitForOutput`: it did not complete. */
  endedWaiting: boolean;
  output: unknown;
  route: Route | undefined;
  /** Interrupts raised inside the run (by it or below it), in order. */
  interrupts: InterruptInfo[];
  /** Interrupts the run raised itself (RequestInput), not an agent or child below it. */
  ownRequests: string[];
}

/** One step of a workflow's own schedule, in the order they were stored. */
export type ScheduleStep = { kind: 'start'; record: RunRecord } | { kind: 'end'; record: RunRecord };

/** The records of one invocation from an index on, for a workflow at `path`. */
export class Journal {
  private readonly runs = new Map<string, RunRecord[]>();
  /** Starts and ends of the workflow's direct children, in stored order. */
  readonly schedule: ScheduleStep[] = [];
  /** The workflow ended (its final record) in this range. */
  readonly workflowEnded: boolean;

  constructor(
    events: readonly Event[],
    from: number,
    invocationId: string,
    workflowPath: string,
    workflowAuthor: string,
  ) {
    const childPrefix = `${workflowPath}.`;
    const open = new Map<string, RunRecord>();
    let ended = false;
    for (let i = from; i < events.length; i++) {
      const e = events[i]!;
      if (e.invocationId !== invocationId) continue;
      const info = e.nodeInfo;
      if (!info) continue;
      const record = e.actions.agentState as NodeRecord | undefined;
      if (info.path === workflowPath && e.author === workflowAuthor && record && 'workflow' in record) {
        ended = true;
        continue;
      }
      if (!info.path.startsWith(childPrefix)) continue;
      // Interrupts belong to every open run whose path is the event's path or above it.
      if (e.interrupt) {
        for (const run of open.values()) {
          // A resumed run raises its open interrupts again: one entry per id.
          if (
            (info.path === run.path || info.path.startsWith(`${run.path}.`)) &&
            !run.interrupts.some((i) => i.id === e.interrupt!.id)
          ) {
            run.interrupts.push(e.interrupt);
            if (info.path === run.path && info.runId === run.runId) run.ownRequests.push(e.interrupt.id);
          }
        }
      }
      if (!record || !('node' in record) || info.runId === undefined) continue;
      const key = `${info.path}#${info.runId}`;
      const direct = !info.path.slice(childPrefix.length).includes('.');
      if (record.node === 'started') {
        const running = open.get(key);
        if (running) {
          // A new try of the run: a resume works from its start (its children, its agent's
          // history), never from an earlier, failed try's.
          const attempt = info.attempt ?? running.attempt;
          if (attempt !== running.attempt) {
            running.startIndex = i;
            running.interrupts = [];
            running.ownRequests = [];
          }
          running.attempt = attempt;
          continue;
        }
        open.set(key, this.begin(key, info.path, info.runId, i, info.attempt, direct));
      } else if (record.node === 'ended') {
        // A run that stored no start record started where it ended.
        const run = open.get(key) ?? this.begin(key, info.path, info.runId, i, info.attempt, direct);
        open.delete(key);
        run.ended = true;
        run.endedWaiting = record.waiting === true;
        run.output = e.output;
        run.route = e.route;
        if (direct) this.schedule.push({ kind: 'end', record: run });
      }
    }
    this.workflowEnded = ended;
  }

  /** A run's start at index `at`: a new record, in its path's list and (for a direct child) the schedule. */
  private begin(
    key: string,
    path: string,
    runId: string,
    at: number,
    attempt: number | undefined,
    direct: boolean,
  ): RunRecord {
    const run: RunRecord = {
      path,
      runId,
      startIndex: at,
      attempt: attempt ?? 1,
      ended: false,
      endedWaiting: false,
      output: undefined,
      route: undefined,
      interrupts: [],
      ownRequests: [],
    };
    let list = this.runs.get(key);
    if (!list) this.runs.set(key, (list = []));
    list.push(run);
    if (direct) this.schedule.push({ kind: 'start', record: run });
    return run;
  }

  /** The first run of `path`/`runId` that started after index `after`. */
  find(path: string, runId: string, after: number): RunRecord | undefined {
    const list = this.runs.get(`${path}#${runId}`);
    if (!list) return undefined;
    for (const run of list) if (run.startIndex > after) return run;
    return undefined;
  }
}

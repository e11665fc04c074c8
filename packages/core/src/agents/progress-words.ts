/**
 * The progress records of the workflow and pattern agents in words, for people: the CLI's
 * transcript and the dev UI both show them with {@link describeProgress}, so a stop reason reads the
 * same everywhere. The records themselves are defined beside their agents (agents/progress.ts,
 * patterns/plan-progress.ts, patterns/group-chat.ts, patterns/supervisor.ts).
 *
 * This file imports nothing: the dev UI's browser bundle includes it as it is
 * (`@troupe/core/progress-words`).
 */

/** The agents whose records have words, by their `kind` (`BaseAgent.kind`). */
export type ProgressKind = 'loop' | 'sequential' | 'parallel' | 'team' | 'plan_execute' | 'group_chat' | 'supervisor';

/** A progress record in words. */
export interface ProgressWords {
  /** The kind of agent the record belongs to. */
  kind: ProgressKind;
  /** One line, e.g. "Loop iteration 2: step 3 done" or "Plan answered after 2 steps". */
  text: string;
  /** True for an agent's last record, which says why it stopped. */
  final: boolean;
}

type Json = Record<string, unknown>;
type Reader = (record: Json) => ProgressWords | undefined;

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const isNames = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const step = (kind: ProgressKind, text: string): ProgressWords => ({ kind, text, final: false });
const stop = (kind: ProgressKind, text: string): ProgressWords => ({ kind, text, final: true });

// One reader per kind of agent; each answers only for records of its own shape.
const READERS: Readonly<Record<ProgressKind, Reader>> = {
  loop: (r) => {
    if (isCount(r.iterations)) {
      if (r.stopReason === 'escalated')
        return stop('loop', `Loop stopped: escalated after ${plural(r.iterations, 'iteration')}`);
      if (r.stopReason === 'maxIterations')
        return stop('loop', `Loop stopped: reached its maximum of ${plural(r.iterations, 'iteration')}`);
    }
    if (isCount(r.iteration) && isCount(r.next))
      return step('loop', `Loop iteration ${r.iteration + 1}: step ${r.next} done`);
    return undefined;
  },
  sequential: (r) =>
    isCount(r.next) && Object.keys(r).length === 1
      ? step('sequential', `Sequence: step ${r.next} done, step ${r.next + 1} next`)
      : undefined,
  parallel: (r) => {
    if (isNames(r.completed)) return stop('parallel', `Parallel branches finished: ${r.completed.join(', ')}`);
    if (typeof r.completed === 'string') return step('parallel', `Parallel branch finished: ${r.completed}`);
    return undefined;
  },
  team: (r) => {
    // Keys are `item:round:agent` and `item:round` (team-progress.ts), item `-` when not iterating.
    if (typeof r.unit === 'string') {
      const [item, round, ...name] = r.unit.split(':');
      if (name.length === 0) return step('team', `Team: ${r.unit} finished`);
      return step('team', `Team: ${name.join(':')} finished${teamPlace(item, round)}`);
    }
    if (typeof r.round === 'string') {
      const [item, round] = r.round.split(':');
      const n = Number(round);
      return step('team', `Team: reflection round ${Number.isInteger(n) ? n + 1 : r.round} begun${itemOf(item)}`);
    }
    if (r.finished === true) return stop('team', 'Team finished');
    return undefined;
  },
  plan_execute: (r) => {
    if (isCount(r.iterations)) {
      const steps = plural(r.iterations, 'step');
      if (r.stopReason === 'responded') return stop('plan_execute', `Plan answered after ${steps}`);
      if (r.stopReason === 'planCompleted') return stop('plan_execute', `Plan completed: all ${steps} done`);
      if (r.stopReason === 'maxIterations')
        return stop('plan_execute', `Plan stopped: reached its maximum of ${steps}`);
    }
    if (!isCount(r.iteration) || !isNames(r.plan) || !Array.isArray(r.pastSteps)) return undefined;
    if (r.next === 'execute') {
      const total = r.pastSteps.length + r.plan.length;
      return step('plan_execute', `Plan: step ${r.iteration + 1} of ${total} next: ${r.plan[0] ?? ''}`.trimEnd());
    }
    if (r.next === 'replan') {
      const last: unknown = r.pastSteps.at(-1);
      const what = typeof last === 'object' && last !== null ? (last as { step?: unknown }).step : undefined;
      return step(
        'plan_execute',
        `Plan: step ${r.iteration} done${typeof what === 'string' ? ` (${what})` : ''}, replanning`,
      );
    }
    return undefined;
  },
  group_chat: (r) => {
    if (!isNames(r.speakers)) return undefined;
    if (isCount(r.turns)) {
      const turns = plural(r.turns, 'turn');
      if (r.stopReason === 'terminated')
        return stop('group_chat', `Group chat ended: its end condition matched after ${turns}`);
      if (r.stopReason === 'maxTurns') return stop('group_chat', `Group chat stopped: reached its maximum of ${turns}`);
      if (r.stopReason === 'selector')
        return stop('group_chat', `Group chat ended: the selector chose nobody after ${turns}`);
    }
    const speaker = r.speakers.at(-1);
    if (speaker === undefined || typeof r.done !== 'boolean') return undefined;
    const turn = r.speakers.length;
    return step(
      'group_chat',
      r.done ? `Group chat: ${speaker} finished turn ${turn}` : `Group chat: turn ${turn}, ${speaker} speaks`,
    );
  },
  supervisor: (r) => {
    if (!isCount(r.delegations)) return undefined;
    if (r.stopReason === 'answered')
      return stop('supervisor', `Supervisor answered after ${plural(r.delegations, 'delegation')}`);
    if (r.stopReason === 'maxDelegations')
      return stop('supervisor', `Supervisor answered after using all ${plural(r.delegations, 'delegation')}`);
    return undefined;
  },
};

/** ` on item 2`: items are counted from 1 for people; `-` is a team that does not iterate. */
function itemOf(item: string | undefined): string {
  const n = Number(item);
  return item === undefined || item === '-' || !Number.isInteger(n) ? '' : ` on item ${n + 1}`;
}

/** Where in a team a unit finished: its item, and its reflection round after the first. */
function teamPlace(item: string | undefined, round: string | undefined): string {
  const n = Number(round);
  return `${itemOf(item)}${Number.isInteger(n) && n > 0 ? ` (reflection round ${n + 1})` : ''}`;
}

// Without the agent's kind, the shape decides; a loop and a plan both stop on `maxIterations`, so
// the loop (the built-in agent) is tried before the plan.
const BY_SHAPE: readonly ProgressKind[] = [
  'group_chat',
  'supervisor',
  'loop',
  'plan_execute',
  'sequential',
  'parallel',
  'team',
];

/**
 * A progress record (an event's `actions.agentState`) in words, or undefined when it is none of the
 * built-in agents' records (a custom agent's own record, the runner's records on user events). Give
 * `agentKind`, the kind of the agent that wrote it (the event's author), when it is known: a
 * LoopAgent and a PlanExecuteAgent both stop with `maxIterations`, and only the kind tells which.
 *
 * @example
 * describeProgress({ stopReason: 'responded', iterations: 2 }, 'plan_execute');
 * // { kind: 'plan_execute', text: 'Plan answered after 2 steps', final: true }
 */
export function describeProgress(record: unknown, agentKind?: string): ProgressWords | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const json = record as Json;
  const own =
    agentKind !== undefined && Object.hasOwn(READERS, agentKind) ? READERS[agentKind as ProgressKind] : undefined;
  const words = own?.(json);
  if (words) return words;
  for (const kind of BY_SHAPE) {
    const read = READERS[kind](json);
    if (read) return read;
  }
  return undefined;
}

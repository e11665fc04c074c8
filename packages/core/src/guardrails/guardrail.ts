import type { CallbackContext } from '../agents/callback-context.js';
import type { Content } from '../events/content.js';
import { ConfigurationError } from '../errors.js';
import type { ToolContext } from '../tools/tool-context.js';

/** What a guardrail's `check` answers: `tripwire: true` blocks the run; `info` travels on the error. */
export interface GuardrailResult {
  tripwire: boolean;
  /** Anything worth keeping about the decision (a reason, a score); it becomes `GuardrailTrippedError.info`. */
  info?: unknown;
}

/**
 * A check on a value an agent is about to act on. When `check` answers `{ tripwire: true }` the whole
 * run ends with status `'blocked'`, one stored event with `errorCode: 'GUARDRAIL_TRIPPED'`, and no
 * further model or tool call. A `check` that throws fails the run (status `'failed'`).
 */
export interface Guardrail<V, C> {
  /** Names the guardrail in errors and events; unique among the guardrails of one option. */
  name: string;
  /** Looks at the value; sync or async. */
  check(ctx: C, value: V): GuardrailResult | Promise<GuardrailResult>;
  /**
   * Input guardrails only: run before the model is called (the model is not called when it trips),
   * instead of concurrently with the first model call. Ignored on output and tool guardrails.
   * @default false
   */
  blocking?: boolean;
}

/** What an input guardrail checks: the user's message, or the structured input (`ctx.input`) when the agent got one. */
export type GuardrailInput = Content | Record<string, unknown>;

/**
 * Checks what an LlmAgent is given when it starts: the user's `Content`, or `ctx.input` for a
 * structured input (a TeamAgent skill, an AgentTool with an inputSchema, `run({ input })`).
 *
 * @example
 * const noHomework: InputGuardrail = {
 *   name: 'no_homework',
 *   check: (_ctx, input) => ({ tripwire: JSON.stringify(input).includes('homework') }),
 * };
 */
export type InputGuardrail = Guardrail<GuardrailInput, CallbackContext>;

/** Checks an LlmAgent's final output (its text, or the parsed object with `outputSchema`) before it is stored. */
export type OutputGuardrail = Guardrail<unknown, CallbackContext>;

/** Checks a tool call's validated arguments before the tool runs. */
export type ToolGuardrail<A = Record<string, unknown>> = Guardrail<A, ToolContext>;

/**
 * Checks a guardrails option and returns it frozen. `owner` names who has it (`Agent 'Support'`),
 * `option` the option (`inputGuardrails`).
 */
export function checkGuardrails<G extends Guardrail<never, never>>(
  owner: string,
  option: string,
  value: readonly G[] | undefined,
): readonly G[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new ConfigurationError(
      `${owner} has ${option} ${describe(value)}; pass an array of guardrails such as [{ name: 'no_pii', check: (ctx, value) => ({ tripwire: false }) }].`,
    );
  }
  const names = new Set<string>();
  value.forEach((entry: unknown, i) => {
    const at = `${owner} ${option}[${i}]`;
    if (typeof entry !== 'object' || entry === null) {
      throw new ConfigurationError(
        `${at} is ${describe(entry)}; a guardrail is an object { name, check(ctx, value) => { tripwire, info? }, blocking? }.`,
      );
    }
    const { name, check, blocking } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') {
      throw new ConfigurationError(
        `${at} has name ${describe(name)}; give it a non-empty string name (it is shown when the guardrail trips).`,
      );
    }
    if (typeof check !== 'function') {
      throw new ConfigurationError(
        `${at} ('${name}') has check ${describe(check)}; give it a function check(ctx, value) returning { tripwire: boolean, info? } (or a promise of it).`,
      );
    }
    if (blocking !== undefined && typeof blocking !== 'boolean') {
      throw new ConfigurationError(
        `${at} ('${name}') has blocking ${describe(blocking)}; use true, false, or leave it out.`,
      );
    }
    if (names.has(name)) {
      throw new ConfigurationError(
        `${owner} has two ${option} named '${name}'. Give each guardrail a unique name so a tripwire says which one fired.`,
      );
    }
    names.add(name);
  });
  return Object.freeze([...value]);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return value.constructor?.name ?? 'an object';
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${JSON.stringify(value)}`;
}

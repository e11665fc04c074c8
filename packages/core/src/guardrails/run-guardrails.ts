import { GuardrailError, GuardrailTrippedError, type GuardrailKind } from '../errors.js';
import type { Guardrail, GuardrailResult } from './guardrail.js';

/** Whose value a set of guardrails checks, for errors. */
export interface GuardrailTarget {
  kind: GuardrailKind;
  /** The agent whose input, output or tool call it is. */
  agent: string;
  /** The tool, for tool guardrails. */
  tool?: string;
}

/**
 * Runs guardrails concurrently on one value. Resolves when every one passed; rejects as soon as one
 * trips ({@link GuardrailTrippedError}), one fails ({@link GuardrailError}), or the run is aborted
 * (the abort reason), without waiting for the others.
 */
export function runGuardrails<V, C>(
  guardrails: readonly Guardrail<V, C>[],
  ctx: C,
  value: V,
  target: GuardrailTarget,
  signal: AbortSignal,
): Promise<void> {
  if (guardrails.length === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let left = guardrails.length;
    let settled = false;
    const settle = (error?: unknown): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = (): void => settle(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    for (const guardrail of guardrails) {
      Promise.resolve()
        .then(() => guardrail.check(ctx, value))
        .then(
          (result: unknown) => {
            if (!isResult(result)) {
              settle(
                new GuardrailError(
                  `Guardrail '${guardrail.name}' on ${where(target)} returned ${describe(result)}; its check must return { tripwire: boolean, info? } (or a promise of it).`,
                  guardrail.name,
                ),
              );
            } else if (result.tripwire) {
              settle(tripped(guardrail.name, target, result.info));
            } else if (--left === 0) {
              settle();
            }
          },
          (error: unknown) => {
            if (signal.aborted) return settle(signal.reason);
            if (error instanceof GuardrailTrippedError) return settle(error);
            const message = error instanceof Error ? error.message : String(error);
            settle(
              new GuardrailError(
                `Guardrail '${guardrail.name}' on ${where(target)} threw: ${message.replace(/\.+$/, '')}. The run was stopped because the guardrail could not decide; fix its check.`,
                guardrail.name,
                { cause: error },
              ),
            );
          },
        );
    }
  });
}

/**
 * The error of a tripped guardrail; its message starts with `Guardrail '<name>' tripped`. A string
 * `info` is added as the reason; other values stay on the error only, since the message is stored in
 * the session and shown to its clients, and a value might hold what was blocked.
 */
export function tripped(name: string, target: GuardrailTarget, info: unknown): GuardrailTrippedError {
  const consequence =
    target.kind === 'input'
      ? 'the agent did not act on that input'
      : target.kind === 'output'
        ? 'the answer was not stored'
        : 'the tool did not run';
  const reason =
    typeof info === 'string' && info !== '' ? ` Reason: ${info.length > 300 ? `${info.slice(0, 300)}…` : info}` : '';
  return new GuardrailTrippedError(
    `Guardrail '${name}' tripped on ${where(target)}. The run was blocked: ${consequence}.${reason}`,
    name,
    target.kind,
    target.agent,
    info,
    target.tool,
  );
}

function where(target: GuardrailTarget): string {
  if (target.kind === 'tool') return `the arguments of tool '${target.tool ?? '?'}' (agent '${target.agent}')`;
  return `the ${target.kind} of agent '${target.agent}'`;
}

function isResult(value: unknown): value is GuardrailResult {
  return typeof value === 'object' && value !== null && typeof (value as { tripwire?: unknown }).tripwire === 'boolean';
}

function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  try {
    return `${typeof value} ${JSON.stringify(value)}`;
  } catch {
    return typeof value;
  }
}

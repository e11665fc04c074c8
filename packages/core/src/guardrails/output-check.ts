import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { EventActions } from '../events/event.js';
import type { OutputGuardrail } from './guardrail.js';
import { runGuardrails } from './run-guardrails.js';

/**
 * Runs an agent's output guardrails on its final output before the event carrying it is stored.
 * A tripwire throws (so neither the answer nor its `outputKey` is stored); when all pass, the state
 * the guardrails wrote goes on that event's `actions`.
 */
export function checkOutput(
  ctx: InvocationContext,
  guardrails: readonly OutputGuardrail[],
  output: unknown,
  actions: EventActions,
): Promise<void> | undefined {
  // Most agents have none: no promise for them (this runs on every answer).
  if (guardrails.length === 0) return undefined;
  return runOutputGuardrails(ctx, guardrails, output, actions);
}

async function runOutputGuardrails(
  ctx: InvocationContext,
  guardrails: readonly OutputGuardrail[],
  output: unknown,
  actions: EventActions,
): Promise<void> {
  const context = new CallbackContext(ctx);
  await runGuardrails(guardrails, context, output, { kind: 'output', agent: ctx.agent.name }, ctx.abortSignal);
  context.applyTo(actions);
}

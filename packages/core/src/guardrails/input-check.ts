import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { EventActions } from '../events/event.js';
import type { GuardrailInput, InputGuardrail } from './guardrail.js';
import { runGuardrails } from './run-guardrails.js';

/**
 * The input guardrails of one agent run. The blocking ones run first ({@link runBlocking}); the
 * others start with the first model call ({@link startConcurrent}), whose response the agent holds
 * until they pass. State the guardrails write goes on that first response event.
 */
export class InputCheck {
  private readonly context: CallbackContext;
  private readonly value: GuardrailInput;

  constructor(
    private readonly ctx: InvocationContext,
    private readonly guardrails: readonly InputGuardrail[],
  ) {
    this.context = new CallbackContext(ctx);
    this.value = guardrailInput(ctx);
  }

  /** Runs the `blocking` guardrails; the model is not called before they pass. */
  runBlocking(): Promise<void> {
    return this.run(this.guardrails.filter((g) => g.blocking === true));
  }

  /** Starts the other guardrails; the promise settles when they all passed or one tripped. */
  startConcurrent(): Promise<void> {
    return this.run(this.guardrails.filter((g) => g.blocking !== true));
  }

  /** Puts the guardrails' state writes on the event that follows them. */
  applyTo(actions: EventActions): void {
    this.context.applyTo(actions);
  }

  private run(guardrails: readonly InputGuardrail[]): Promise<void> {
    return runGuardrails(
      guardrails,
      this.context,
      this.value,
      { kind: 'input', agent: this.ctx.agent.name },
      this.ctx.abortSignal,
    );
  }
}

/**
 * What input guardrails check: the user's message, unless the agent was given a structured input
 * (more than a `request` text, or it declares an inputSchema), which is checked as the object.
 */
export function guardrailInput(ctx: InvocationContext): GuardrailInput {
  const input = ctx.input;
  const keys = Object.keys(input);
  const plainRequest = keys.length === 1 && keys[0] === 'request' && typeof input.request === 'string';
  if (ctx.userContent && plainRequest && !ctx.agent.inputSchema) return ctx.userContent;
  return input;
}

import type { Event } from '../events/event.js';
import { InputValidationError, OutputValidationError } from '../errors.js';
import { validate, type Infer, type Schema } from '../utils/schema.js';
import { BaseAgent, type BaseAgentOptions } from './base-agent.js';
import { CallbackContext } from './callback-context.js';
import type { InvocationContext } from './invocation-context.js';
import { hasOwnEvent } from './replay.js';
import type { AgentKind } from './agent-outline.js';

/** Options of {@link FunctionAgent}. */
export interface FunctionAgentOptions<I extends Schema | undefined, O> extends Omit<BaseAgentOptions, 'subAgents'> {
  /** Stores the output in `state[outputKey]`. */
  outputKey?: string;
  /** Checked before `run` is called. */
  inputSchema?: I;
  /** Checked against the value `run` returns. */
  outputSchema?: Schema;
  /** The agent's work. Its return value is the agent's output; a string is also emitted as text. */
  run(input: I extends Schema ? Infer<I> : Record<string, unknown>, ctx: CallbackContext): O | Promise<O>;
}

/**
 * An agent made from a plain (sync or async) function: no model involved.
 *
 * @example
 * const wordCount = new FunctionAgent({
 *   name: 'WordCount',
 *   outputKey: 'count',
 *   run: (input) => ({ words: String(input.request).split(/\s+/).length }),
 * });
 */
export class FunctionAgent<I extends Schema | undefined = undefined, O = unknown> extends BaseAgent {
  readonly outputKey: string | undefined;
  override readonly inputSchema: Schema | undefined;
  override readonly outputSchema: Schema | undefined;
  private readonly fn: FunctionAgentOptions<I, O>['run'];

  constructor(options: FunctionAgentOptions<I, O>) {
    super(options);
    if (typeof options.run !== 'function') {
      throw new OutputValidationError(
        `FunctionAgent '${options.name}' needs a run(input, ctx) function; got ${typeof options.run}.`,
      );
    }
    this.outputKey = options.outputKey;
    this.inputSchema = options.inputSchema;
    this.outputSchema = options.outputSchema;
    this.fn = options.run.bind(options);
  }

  override get kind(): AgentKind {
    return 'function';
  }

  override get resumable(): boolean {
    return true;
  }

  /** Its `run` gets the input. */
  override get runsOnInput(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    // Resumed after its one event was stored: it already ran.
    if (ctx.resumeFrom !== undefined && hasOwnEvent(ctx, this.name)) return;
    let input: unknown = ctx.input;
    if (this.inputSchema) {
      const checked = await validate(this.inputSchema, input);
      if (!checked.ok)
        throw new InputValidationError(
          `Agent '${this.name}' got an input that does not match its inputSchema: ${checked.message}. Pass an input with these fields.`,
        );
      input = checked.value;
    }
    const cb = new CallbackContext(ctx);
    let output: unknown = await this.fn(input as never, cb);
    if (this.outputSchema) {
      const checked = await validate(this.outputSchema, output);
      if (!checked.ok)
        throw new OutputValidationError(
          `Agent '${this.name}' returned an output that does not match its outputSchema: ${checked.message}.`,
        );
      output = checked.value;
    }
    const event = this.createEvent(
      ctx,
      typeof output === 'string' ? { content: { role: 'model', parts: [{ text: output }] } } : {},
    );
    if (output !== undefined) event.output = output;
    cb.applyTo(event.actions);
    if (this.outputKey !== undefined && output !== undefined) event.actions.stateDelta[this.outputKey] = output;
    yield event;
  }
}

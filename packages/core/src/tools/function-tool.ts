import { ConfigurationError, TroupeError } from '../errors.js';
import { checkGuardrails, type ToolGuardrail } from '../guardrails/guardrail.js';
import { runGuardrails } from '../guardrails/run-guardrails.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { toJsonSchema, validate, type Infer, type Schema } from '../utils/schema.js';
import { BaseTool, type BaseToolOptions } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

/** The model called a tool with arguments that do not match its parameters. */
export class ToolArgumentsError extends TroupeError {
  constructor(message: string) {
    super('TOOL_ARGUMENTS', message);
  }
}

/** Options of {@link FunctionTool}. */
export interface FunctionToolOptions<P extends Schema | undefined> extends BaseToolOptions {
  /** The arguments, as a zod object schema or a JSON Schema object. Validated before `execute`. */
  parameters?: P;
  /**
   * Ask a human before running: `true`, or a function of the arguments deciding per call. The run
   * pauses with a confirmation interrupt; the tool runs only after approval.
   * @default false
   */
  requireConfirmation?:
    | boolean
    | ((args: P extends Schema ? Infer<P> : Record<string, unknown>, ctx: ToolContext) => boolean | Promise<boolean>);
  /**
   * Checks on the validated arguments, run before the tool does (and before a confirmation is asked).
   * A tripwire blocks the whole run: the tool does not run and nothing runs after it.
   */
  guardrails?: readonly ToolGuardrail<P extends Schema ? Infer<P> : Record<string, unknown>>[];
  /** The tool's work. The return value becomes the function response. */
  execute(args: P extends Schema ? Infer<P> : Record<string, unknown>, ctx: ToolContext): unknown;
}

const NO_PARAMETERS = { type: 'object', properties: {} } as const;

/**
 * A tool made from a function. Arguments are validated against `parameters` first; invalid ones
 * go back to the model as an error response and `execute` is not called.
 *
 * @example
 * const add = new FunctionTool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 */
export class FunctionTool<P extends Schema | undefined = undefined> extends BaseTool {
  readonly parameters: Schema | undefined;
  private readonly requireConfirmation: FunctionToolOptions<P>['requireConfirmation'];
  private readonly execute: FunctionToolOptions<P>['execute'];
  /** Checks on the arguments before the tool runs. */
  readonly guardrails: readonly ToolGuardrail<unknown>[];
  private declaration: Promise<FunctionDeclaration> | undefined;

  constructor(options: FunctionToolOptions<P>) {
    super(options);
    if (typeof options.execute !== 'function') {
      throw new ConfigurationError(
        `FunctionTool '${options.name}' needs an execute(args, ctx) function; got ${typeof options.execute}.`,
      );
    }
    this.parameters = options.parameters;
    this.requireConfirmation =
      typeof options.requireConfirmation === 'function'
        ? options.requireConfirmation.bind(options)
        : options.requireConfirmation;
    this.execute = options.execute.bind(options);
    this.guardrails = checkGuardrails(`FunctionTool '${options.name}'`, 'guardrails', options.guardrails);
  }

  getDeclaration(): Promise<FunctionDeclaration> {
    this.declaration ??= (async () => ({
      name: this.name,
      description: this.description,
      parameters: this.parameters ? await toJsonSchema(this.parameters) : { ...NO_PARAMETERS },
    }))();
    return this.declaration;
  }

  /** Runs the guardrails on valid arguments before the turn's calls start (invalid ones are reported by runAsync). */
  override checkCall(args: Record<string, unknown>, ctx: ToolContext): Promise<void> | undefined {
    if (this.guardrails.length === 0) return undefined;
    return this.validArgs(args).then(async (valid) => {
      if (!valid.ok) return;
      await this.guard(valid.value, ctx);
      guardedCalls.set(ctx, args);
    });
  }

  async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const valid = await this.validArgs(args);
    if (!valid.ok) {
      throw new ToolArgumentsError(
        `Invalid arguments for tool '${this.name}': ${valid.message}. Call it again with arguments that match its parameters.`,
      );
    }
    const checkedArgs = valid.value;
    // Checked already when the turn started (checkCall), unless called directly.
    if (guardedCalls.get(ctx) !== args) await this.guard(checkedArgs, ctx);
    const confirm = this.requireConfirmation;
    if (confirm === true || (typeof confirm === 'function' && (await confirm(checkedArgs as never, ctx)))) {
      await ctx.requestConfirmation({ hint: `Allow tool '${this.name}' to run with ${JSON.stringify(args)}?` });
    }
    return this.execute(checkedArgs as never, ctx);
  }

  private async validArgs(
    args: Record<string, unknown>,
  ): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
    if (!this.parameters) return { ok: true, value: args };
    const checked = await validate(this.parameters, args);
    return checked.ok ? { ok: true, value: checked.value } : { ok: false, message: checked.message };
  }

  private guard(args: unknown, ctx: ToolContext): Promise<void> {
    return runGuardrails(
      this.guardrails,
      ctx,
      args,
      { kind: 'tool', agent: ctx.agentName, tool: this.name },
      ctx.abortSignal,
    );
  }
}

/** The arguments whose guardrails passed in checkCall, by the call's context. */
const guardedCalls = new WeakMap<ToolContext, Record<string, unknown>>();

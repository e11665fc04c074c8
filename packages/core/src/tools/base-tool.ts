import { ConfigurationError } from '../errors.js';
import type { CallbackContext } from '../agents/callback-context.js';
import type { FunctionDeclaration, LlmRequest } from '../models/llm-request.js';
import type { ToolContext } from './tool-context.js';

/** Options every tool takes. */
export interface BaseToolOptions {
  /** The name the model calls; letters, digits, `_`, `.` or `-`, at most 64 characters. */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description: string;
  /** Marks a tool that starts work finishing outside the call (informational). @default false */
  isLongRunning?: boolean;
}

const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Something an LlmAgent's model can call. */
export abstract class BaseTool {
  /** `tool instanceof BaseTool` holds for tools made by any copy of @troupe/core. */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== BaseTool) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_BRAND] === true;
  }

  readonly name: string;
  readonly description: string;
  readonly isLongRunning: boolean;

  constructor(options: BaseToolOptions) {
    if (typeof options?.name !== 'string' || !TOOL_NAME.test(options.name)) {
      throw new ConfigurationError(
        `Tool name ${JSON.stringify(options?.name)} is not valid. Use letters, digits, '_', '.' or '-', starting with a letter or '_', at most 64 characters (e.g. 'get_weather').`,
      );
    }
    this.name = options.name;
    this.description = options.description ?? '';
    this.isLongRunning = options.isLongRunning ?? false;
  }

  /**
   * The declaration sent to the model; `undefined` for a tool the model never calls, one that only
   * edits requests in {@link processRequest} (like `preloadMemoryTool`).
   */
  abstract getDeclaration(): Promise<FunctionDeclaration | undefined>;

  /**
   * Runs before each model request of an agent that offers this tool, once the request is built
   * (instruction, history, tool declarations): a tool may add to it, e.g. append to
   * `request.config.systemInstruction` or add contents (ADK's `processLlmRequest`). The default
   * does nothing. The context reads the invocation (session, user message, stores); state writes
   * made here are not recorded (use a `beforeModelCallback` for that).
   */
  async processRequest(_params: { context: CallbackContext; request: LlmRequest }): Promise<void> {}

  /**
   * Checks a call before any call of the same model turn starts (a FunctionTool's guardrails): a
   * tripwire thrown here stops the whole turn, so no sibling call runs its side effect while this
   * one is still being checked. Other errors are left for {@link runAsync} to report. Answers
   * `undefined` when there is nothing to check (the default), so a turn without checks waits for none.
   */
  checkCall(_args: Record<string, unknown>, _ctx: ToolContext): Promise<void> | undefined {
    return undefined;
  }

  /**
   * Runs the tool. The result becomes the function response: a plain object as is, any other
   * value as `{ result: value }`. A thrown error goes back to the model as `{ error: message }`.
   */
  abstract runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown>;
}

const TOOL_BRAND = Symbol.for('troupe.tool');
Object.defineProperty(BaseTool.prototype, TOOL_BRAND, { value: true });

/** The function response for a tool's return value. */
export function toFunctionResponse(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return value;
  return { result: value === undefined ? null : value };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

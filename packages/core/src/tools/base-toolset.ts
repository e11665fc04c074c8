import type { InvocationContext } from '../agents/invocation-context.js';
import type { BaseTool } from './base-tool.js';

/**
 * A source of tools that may change over time or hold a connection, such as an MCP server. An
 * LlmAgent asks it for its current tools at the start of every run; `Runner.close()` closes it.
 */
export abstract class BaseToolset {
  /** `value instanceof BaseToolset` holds for toolsets made by any copy of @troupe/core. */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== BaseToolset) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOLSET_BRAND] === true;
  }

  /** The tools to offer now. */
  abstract getTools(ctx?: InvocationContext): Promise<readonly BaseTool[]>;

  /** Releases connections and child processes. Safe to call more than once. */
  async close(): Promise<void> {}
}

const TOOLSET_BRAND = Symbol.for('troupe.toolset');
Object.defineProperty(BaseToolset.prototype, TOOLSET_BRAND, { value: true });

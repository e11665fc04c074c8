import { isAbsolute, resolve } from 'node:path';
import type { ToolEntryContext, ToolEntryFactory } from '@troupe/core';
import { describe } from './connection.js';
import { MCPToolset, type MCPToolsetOptions } from './mcp-toolset.js';

const CONNECTION_KEYS = ['command', 'args', 'env', 'cwd', 'url', 'headers'];
const OPTION_KEYS = ['toolFilter', 'prefix', 'timeoutMs'];

/** Options a program gives every toolset made from `mcp:` entries (see {@link createMcpToolEntry}). */
export type MCPToolEntryDefaults = Pick<MCPToolsetOptions, 'onStderr'>;

/**
 * The `mcp:` entry factory with options of the program's own, such as where servers' stderr is
 * logged; register it in place of the default one.
 *
 * @example
 * registerToolEntry('mcp', createMcpToolEntry({ onStderr: (o) => console.error(`[${o.server}] ${o.line}`) }));
 */
export function createMcpToolEntry(defaults: MCPToolEntryDefaults): ToolEntryFactory {
  return (spec, ctx) => mcpToolEntry(spec, ctx, defaults);
}

/**
 * Makes the toolset of an `mcp:` entry in an agent definition's `tools`:
 *
 * ```yaml
 * tools:
 *   - mcp: { command: npx, args: [-y, '@modelcontextprotocol/server-memory'], prefix: memory }
 *   - mcp: { url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } }
 * ```
 *
 * A relative `cwd` is relative to the definition file's folder, which is also the default, so
 * `args: [./server.mjs]` names a file beside the definition. `${NAME}` in `env` and `headers`
 * values is replaced by the environment variable NAME. `defaults` are options given to every
 * such toolset (the entry's own keys win).
 */
export function mcpToolEntry(spec: unknown, ctx: ToolEntryContext, defaults: MCPToolEntryDefaults = {}): MCPToolset {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new Error(
      `an 'mcp' entry is a mapping such as { command: npx, args: [-y, '@modelcontextprotocol/server-memory'] } or { url: 'http://127.0.0.1:3000/mcp' }; got ${describe(spec)}.`,
    );
  }
  const fields = spec as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!CONNECTION_KEYS.includes(key) && !OPTION_KEYS.includes(key)) {
      throw new Error(
        `unknown key '${key}' in an 'mcp' entry. Its keys are command, args, env, cwd (to start a server), url, headers (to reach one), and tool_filter, prefix, timeout_ms.`,
      );
    }
  }
  const connection: Record<string, unknown> = {};
  for (const key of CONNECTION_KEYS)
    if (fields[key] !== undefined && fields[key] !== null) connection[key] = fields[key];
  if (connection.env !== undefined) connection.env = expandValues(connection.env, 'env');
  if (connection.headers !== undefined) connection.headers = expandValues(connection.headers, 'headers');
  if (connection.command !== undefined) {
    const cwd = connection.cwd;
    connection.cwd =
      typeof cwd === 'string' && cwd !== ''
        ? isAbsolute(cwd)
          ? cwd
          : resolve(ctx.dir, cwd)
        : cwd === undefined
          ? ctx.dir
          : cwd;
  }
  const options: MCPToolsetOptions = { ...defaults };
  if (fields.toolFilter !== undefined && fields.toolFilter !== null) options.toolFilter = fields.toolFilter as string[];
  if (fields.prefix !== undefined && fields.prefix !== null) options.prefix = fields.prefix as string;
  if (fields.timeoutMs !== undefined && fields.timeoutMs !== null) options.timeoutMs = fields.timeoutMs as number;
  return new MCPToolset(connection as unknown as ConstructorParameters<typeof MCPToolset>[0], options);
}

/** `${NAME}` in the values of a string map, replaced by environment variables (unset: an error). */
function expandValues(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value; // MCPToolset explains the right shape
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(value)) {
    const expanded =
      typeof raw !== 'string'
        ? raw
        : raw.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
            const set = process.env[variable];
            if (set === undefined)
              throw new Error(
                `'${key}.${name}' uses \${${variable}}, but the environment variable ${variable} is not set. Set it before loading the definition.`,
              );
            return set;
          });
    Object.defineProperty(out, name, { value: expanded, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

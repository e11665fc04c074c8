import { ConfigurationError, redact, type Redactor } from '@troupe/core';
import { argumentMasker, commandLabel, connectionRedactor } from './redaction.js';

/** An MCP server started as a child process, spoken to over its stdin and stdout. */
export interface MCPStdioConnection {
  /** The program to run, e.g. `npx`, `node`, `uvx` or an absolute path. Looked up on `PATH`. */
  command: string;
  /** Its arguments. @default [] */
  args?: readonly string[];
  /**
   * Extra environment variables. The server gets these on top of a safe default set (`PATH`,
   * `HOME`, `USER`, `SHELL`, `TERM`, ...), not the whole environment of this process: pass secrets
   * it needs explicitly, e.g. `{ GITHUB_TOKEN: process.env.GITHUB_TOKEN! }`.
   */
  env?: Readonly<Record<string, string>>;
  /** The working directory of the server. @default the working directory of this process */
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface MCPHttpConnection {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: Readonly<Record<string, string>>;
}

/** Where an {@link MCPToolset}'s server is: a command to start, or a URL. */
export type MCPConnection = MCPStdioConnection | MCPHttpConnection;

/**
 * A connection whose options were checked, with how messages name the server (`label`: a command's
 * executable only, a URL with its password masked), the redactor of its messages and stderr, and
 * `maskArguments`, which hides a command's arguments in text from elsewhere (an SDK or Node error)
 * before it joins a message.
 */
export type CheckedConnection = (
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> | undefined; cwd: string | undefined }
  | { kind: 'http'; url: URL; headers: Record<string, string> }
) & { label: string; redact: Redactor; maskArguments: Redactor };

/** Checks the connection given to MCPToolset, naming the option, the value and the fix. */
export function checkConnection(connection: unknown): CheckedConnection {
  if (typeof connection !== 'object' || connection === null || Array.isArray(connection)) {
    throw new ConfigurationError(
      `MCPToolset needs a connection: { command, args? } to start a server, or { url } to reach one; got ${describe(connection)}.`,
    );
  }
  const c = connection as Record<string, unknown>;
  const hasCommand = c.command !== undefined;
  const hasUrl = c.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new ConfigurationError(
      hasCommand
        ? `MCPToolset got both 'command' and 'url'. Give 'command' (and 'args') to start a server as a child process, or 'url' to reach a running one over Streamable HTTP.`
        : `MCPToolset needs 'command' (e.g. { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] }) or 'url' (e.g. { url: 'http://127.0.0.1:3000/mcp' }).`,
    );
  }
  if (hasCommand) {
    for (const key of Object.keys(c)) {
      if (!['command', 'args', 'env', 'cwd'].includes(key))
        throw new ConfigurationError(
          `MCPToolset: unknown connection option '${key}' for a command. The options are command, args, env and cwd.`,
        );
    }
    if (typeof c.command !== 'string' || c.command.trim() === '')
      throw new ConfigurationError(
        `MCPToolset: 'command' must be the program to run, such as 'npx' or 'node'; got ${describe(c.command)}.`,
      );
    const args = c.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
      throw new ConfigurationError(
        `MCPToolset: 'args' must be a list of strings, such as ['-y', '@modelcontextprotocol/server-memory']; got ${describe(c.args)}.`,
      );
    }
    if (c.cwd !== undefined && (typeof c.cwd !== 'string' || c.cwd === ''))
      throw new ConfigurationError(`MCPToolset: 'cwd' must be a directory path; got ${describe(c.cwd)}.`);
    const env = c.env === undefined ? undefined : stringMap(c.env, 'env', '{ API_KEY: process.env.API_KEY! }');
    const masked = connectionRedactor(env, undefined, args);
    const label = commandLabel(c.command, args, masked);
    return {
      kind: 'stdio',
      command: c.command,
      args: [...args],
      env,
      cwd: c.cwd,
      label: `\`${label}\``,
      redact: masked,
      maskArguments: argumentMasker(c.command, args),
    };
  }
  for (const key of Object.keys(c)) {
    if (!['url', 'headers'].includes(key))
      throw new ConfigurationError(
        `MCPToolset: unknown connection option '${key}' for a URL. The options are url and headers.`,
      );
  }
  let url: URL;
  try {
    if (typeof c.url !== 'string' && !(c.url instanceof URL)) throw new TypeError('not a string');
    url = new URL(c.url);
  } catch {
    throw new ConfigurationError(
      `MCPToolset: 'url' must be an http(s) URL such as 'http://127.0.0.1:3000/mcp'; got ${describe(c.url)}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(
      `MCPToolset: 'url' must be an http(s) URL (Streamable HTTP); got '${redact(url.href)}'. For a local server started as a program, give { command, args } instead.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigurationError(
      `MCPToolset: 'url' must not hold a user name or password ('${redact(url.href)}'): fetch refuses such URLs. Send the credentials in 'headers' instead, e.g. { Authorization: 'Basic <base64 of user:password>' } or { Authorization: 'Bearer <token>' }.`,
    );
  }
  const headers = c.headers === undefined ? {} : stringMap(c.headers, 'headers', "{ Authorization: 'Bearer <token>' }");
  const masked = connectionRedactor(undefined, headers);
  return { kind: 'http', url, headers, label: masked(url.href), redact: masked, maskArguments: (text) => text };
}

function stringMap(value: unknown, option: string, example: string): Record<string, string> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === 'string')
  ) {
    throw new ConfigurationError(
      `MCPToolset: '${option}' must map names to string values, such as ${example}; got ${describe(value)}.`,
    );
  }
  return { ...(value as Record<string, string>) };
}

/** How a value is named in messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(redact(value));
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return `a ${typeof value}`;
}

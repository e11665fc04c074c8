import { TroupeError } from '@troupe/core';
import type { CheckedConnection } from './connection.js';

/**
 * An MCP server cannot be started or reached, or the connection failed: the command is not found,
 * the process exited before the MCP handshake, the URL refuses connections or answers with an HTTP
 * error. The message names the command or URL and the fix.
 */
export class MCPConnectionError extends TroupeError {
  /** The command line or URL of the server. */
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super('MCP_CONNECTION', message, options);
    this.server = server;
  }
}

/**
 * A call of an MCP tool failed: the tool reported an error (`isError: true`), the server answered
 * with a protocol error, or the connection was lost during the call. The model receives the message
 * as the tool's error response.
 */
export class MCPToolError extends TroupeError {
  /** The tool's name on the server. */
  readonly toolName: string;

  constructor(toolName: string, message: string, options?: { cause?: unknown }) {
    super('MCP_TOOL', message, options);
    this.toolName = toolName;
  }
}

/**
 * Explains why connecting to a server failed, with the fix. The message names the server by its
 * label (a command by its executable only, never its arguments) and passes through the
 * connection's redactor; the server's stderr is never part of it (it goes to the toolset's
 * `onStderr`), since the message is stored in the session.
 */
export function connectError(connection: CheckedConnection, error: unknown): MCPConnectionError {
  const label = connection.label;
  const fail = (message: string): MCPConnectionError =>
    new MCPConnectionError(label, connection.redact(message), { cause: error });
  const code = errorCode(error);
  // The label names a command by its executable only: its arguments stay out of the reason too.
  const reason = connection.maskArguments(withCause(error));
  if (connection.kind === 'stdio') {
    const command = connection.command;
    if (code === 'ENOENT') {
      const where =
        connection.cwd === undefined ? '' : ` (or the working directory '${connection.cwd}' does not exist)`;
      return fail(
        `Cannot start MCP server ${label}: the command '${command}' was not found${where}. Install it, or give 'command' as an absolute path or a program on PATH.`,
      );
    }
    if (code === 'EACCES')
      return fail(
        `Cannot start MCP server ${label}: '${command}' is not executable (EACCES). Fix its permissions (chmod +x) or run it through its interpreter (e.g. command: node).`,
      );
    if (isConnectionClosed(error)) {
      return fail(
        `MCP server ${label} exited before completing the MCP handshake. Check the command and its arguments: run it in a terminal to see what it prints (its stderr goes to the toolset's onStderr, never into this message).`,
      );
    }
    return fail(`Cannot connect to MCP server ${label}: ${reason}.`);
  }
  if (code === 'ECONNREFUSED')
    return fail(
      `Cannot reach MCP server at ${label}: connection refused. Start the server, or fix 'url' (host and port).`,
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return fail(`Cannot reach MCP server at ${label}: the host '${connection.url.hostname}' was not found. Fix 'url'.`);
  const status = httpStatus(error);
  if (status === 401 || status === 403) {
    return fail(
      `MCP server at ${label} refused the connection (HTTP ${status}). Give the credentials it expects in 'headers', e.g. { Authorization: 'Bearer <token>' }.`,
    );
  }
  if (status === 404 || status === 405) {
    return fail(
      `MCP server at ${label} answered HTTP ${status}: this URL is not a Streamable HTTP MCP endpoint. Fix 'url' (servers often serve it at /mcp).`,
    );
  }
  return fail(
    `Cannot connect to MCP server at ${label}: ${reason}. Check 'url' and that the server speaks Streamable HTTP.`,
  );
}

/** The connection ended (the server exited or closed it). */
export function isConnectionClosed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === -32000;
}

/** A Node error code (`ENOENT`, `ECONNREFUSED`), also when wrapped as the cause of a fetch error. */
function errorCode(error: unknown): string | undefined {
  for (
    let e = error, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const nested = (e as { errors?: unknown }).errors;
    if (Array.isArray(nested)) {
      const inner = nested.map(errorCode).find((c) => c !== undefined);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** The HTTP status of a Streamable HTTP transport error. */
function httpStatus(error: unknown): number | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'number' && code >= 100 && code < 600) return code;
  const match = /\(HTTP (\d{3})\)/.exec(messageOf(error));
  return match ? Number(match[1]) : undefined;
}

/** An error's message and its cause's (`fetch failed (bad port)`), without a trailing period. */
function withCause(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && cause.message !== ''
    ? `${messageOf(error)} (${messageOf(cause)})`
    : messageOf(error);
}

/** An error's message, without a trailing period. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[.\s]+$/, '');
}

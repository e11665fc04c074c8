import { BaseToolset, ConfigurationError, type InvocationContext } from '@troupe/core';
import { followSignal, untilAborted } from './abort.js';
import { checkConnection, describe, type CheckedConnection, type MCPConnection } from './connection.js';
import { errorText, toResponse, type MCPCallResult } from './content.js';
import { MCPConnectionError, MCPToolError, isConnectionClosed, messageOf } from './errors.js';
import { MCPTool, type MCPToolCaller, type MCPToolInfo } from './mcp-tool.js';
import { Session } from './session.js';
import type { MCPStderrLine } from './stderr-lines.js';
import { toolNames } from './tool-names.js';

/** Options of an {@link MCPToolset}. */
export interface MCPToolsetOptions {
  /**
   * Which of the server's tools to offer: a list of names as the server names them (names it does
   * not offer are ignored), or a function of each listed tool. @default every tool
   */
  toolFilter?: readonly string[] | ((tool: MCPToolInfo) => boolean);
  /**
   * Put in front of every tool name, joined with `_` (`prefix: 'fs'` offers `read_file` as
   * `fs_read_file`), so that two servers' tools cannot clash. @default no prefix
   */
  prefix?: string;
  /**
   * How long one request (connecting, listing tools, a tool call) may take before it fails; a tool
   * that reports progress restarts the clock. @default 60_000
   */
  timeoutMs?: number;
  /**
   * Receives, line by line, what a server started as a process writes to stderr, with the tools
   * being called at the time; e.g. `(o) => logger.warn({ mcpServer: o.server, tools: o.tools }, o.line)`.
   * Stderr is never put into error messages or sessions (it often holds secrets and internal
   * paths), so this is the only place to see why a server failed to start or crashed.
   * @default discarded
   */
  onStderr?: (output: MCPStderrLine) => void;
}

const PREFIX = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

/**
 * The tools of a Model Context Protocol server, for an LlmAgent's `tools`. The server is a command
 * started as a child process (stdio) or a URL (Streamable HTTP), spoken to with the official MCP
 * SDK. It connects on first use, lists the server's tools once (again when the server announces a
 * change) and offers each with the server's description and JSON Schema. A tool's error result,
 * or a server that fails or exits during a call, goes back to the model as an error response, and
 * the next use reconnects. The run's abort signal cancels a call on the server too. `close()` (or
 * `runner.close()`) ends the connection and the child process.
 *
 * @example
 * const files = new MCPToolset({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] }, { prefix: 'fs' });
 * const agent = new LlmAgent({ name: 'Librarian', model: 'gemini-2.5-flash', tools: [files] });
 * const runner = new InMemoryRunner({ agent });
 * // ... runs ...
 * await runner.close(); // stops the server
 */
export class MCPToolset extends BaseToolset {
  private readonly connection: CheckedConnection;
  private readonly filter: (tool: MCPToolInfo) => boolean;
  private readonly prefix: string | undefined;
  private readonly timeoutMs: number;
  private readonly onStderr: ((output: MCPStderrLine) => void) | undefined;
  private current: { promise: Promise<Session>; session?: Session } | undefined;
  private readonly caller: MCPToolCaller = { callTool: (name, args, signal) => this.callTool(name, args, signal) };

  constructor(connection: MCPConnection, options: MCPToolsetOptions = {}) {
    super();
    this.connection = checkConnection(connection);
    this.filter = checkFilter(options.toolFilter);
    if (options.prefix !== undefined && (typeof options.prefix !== 'string' || !PREFIX.test(options.prefix))) {
      throw new ConfigurationError(
        `MCPToolset: 'prefix' must start with a letter or '_' and have at most 32 letters, digits, '_', '.' or '-', such as 'fs'; got ${describe(options.prefix)}.`,
      );
    }
    this.prefix = options.prefix;
    const timeoutMs = options.timeoutMs ?? 60_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
      throw new ConfigurationError(
        `MCPToolset: 'timeoutMs' must be a whole number of milliseconds of at least 1, such as 60000; got ${describe(options.timeoutMs)}.`,
      );
    }
    this.timeoutMs = timeoutMs;
    if (options.onStderr !== undefined && typeof options.onStderr !== 'function') {
      throw new ConfigurationError(
        `MCPToolset: 'onStderr' must be a function (output) => void that logs a line of the server's stderr; got ${describe(options.onStderr)}.`,
      );
    }
    this.onStderr = options.onStderr;
  }

  /**
   * The server as messages name it: a command by its executable, then `…` for its arguments (left
   * out: they may hold secrets), e.g. `` `npx …` ``; a URL with its secrets masked.
   */
  get server(): string {
    return this.connection.label;
  }

  /** The process id of a stdio server while it runs; undefined before it starts and after it ends. */
  get pid(): number | undefined {
    const session = this.current?.session;
    return session && !session.closed ? session.pid : undefined;
  }

  /**
   * The server's tools (filtered, prefixed), connecting first if needed. Throws
   * {@link MCPConnectionError} when the server cannot be started or reached.
   */
  override async getTools(ctx?: InvocationContext): Promise<MCPTool[]> {
    const signal = ctx?.abortSignal;
    const session = await untilAborted(this.connect(), signal);
    if (!session.tools) {
      const listing = session.listTools(this.timeoutMs);
      session.tools = listing;
      // A failed listing is not kept: the next run asks again.
      listing.catch(() => {
        if (session.tools === listing) session.tools = undefined;
      });
    }
    let infos: MCPToolInfo[];
    try {
      infos = await untilAborted(session.tools, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new MCPConnectionError(
        this.server,
        this.connection.redact(
          `MCP server ${this.server} failed to list its tools: ${this.connection.maskArguments(messageOf(error))}.`,
        ),
        { cause: error },
      );
    }
    const selected = infos.filter(this.filter);
    const names = toolNames(
      selected.map((tool) => tool.name),
      this.prefix,
    );
    return selected.map((info, i) => new MCPTool(this.caller, info, names[i]!));
  }

  /** Ends the connection: the child process exits (it is killed if it does not), an HTTP session ends. Safe to call more than once. */
  override async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    let session: Session;
    try {
      session = await current.promise;
    } catch {
      return; // it never connected, so there is nothing to end (its error went to whoever was waiting)
    }
    await session.close();
  }

  private connect(): Promise<Session> {
    if (this.current?.session?.closed) this.current = undefined;
    if (!this.current) {
      const entry: { promise: Promise<Session>; session?: Session } = {
        promise: Session.open(this.connection, this.timeoutMs, this.onStderr),
      };
      this.current = entry;
      entry.promise.then(
        (session) => {
          entry.session = session;
        },
        () => {
          if (this.current === entry) this.current = undefined;
        },
      );
    }
    return this.current.promise;
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    signal.throwIfAborted();
    // Connected already (the usual case): no need to watch the signal while waiting for the connection.
    const ready = this.current?.session;
    const session = ready && !ready.closed ? ready : await untilAborted(this.connect(), signal);
    const call = followSignal(signal);
    session.calling.push(name);
    let result: MCPCallResult;
    try {
      result = (await session.client.callTool({ name, arguments: args }, undefined, {
        signal: call.signal,
        timeout: this.timeoutMs,
        resetTimeoutOnProgress: true,
      })) as MCPCallResult;
    } catch (error) {
      if (signal.aborted) throw error; // the run was cancelled: not the tool's failure
      if (isConnectionClosed(error)) {
        // The crash's last stderr lines arrive after the close; they still name this call.
        await session.settled();
        throw new MCPToolError(
          name,
          `MCP server ${this.server} closed the connection while tool '${name}' was running (it exited or crashed); the call did not complete. It is restarted on the next use.`,
          { cause: error },
        );
      }
      throw new MCPToolError(name, this.connection.redact(`MCP tool '${name}' failed: ${messageOf(error)}.`), {
        cause: error,
      });
    } finally {
      session.calling.splice(session.calling.indexOf(name), 1);
      call.release();
    }
    if (result.isError)
      throw new MCPToolError(
        name,
        this.connection.redact(errorText(result)) || `MCP tool '${name}' reported an error without a message.`,
      );
    return toResponse(result);
  }
}

function checkFilter(filter: MCPToolsetOptions['toolFilter']): (tool: MCPToolInfo) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return (tool) => filter(tool);
  if (Array.isArray(filter) && filter.every((name) => typeof name === 'string')) {
    const names = new Set<string>(filter);
    return (tool) => names.has(tool.name);
  }
  throw new ConfigurationError(
    `MCPToolset: 'toolFilter' must be a list of tool names, such as ['read_file', 'list_directory'], or a function (tool) => boolean; got ${describe(filter)}.`,
  );
}

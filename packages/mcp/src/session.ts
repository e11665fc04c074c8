import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CheckedConnection } from './connection.js';
import { connectError } from './errors.js';
import { StderrLines, type StderrListener } from './stderr-lines.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** One connection to a server: a client over a started process or an HTTP session. */
export class Session {
  /** The connection ended (the process exited, the server closed it, or we closed it). */
  closed = false;
  /** The server's tools, listed once and again after it announces a change. */
  tools: Promise<Tool[]> | undefined;
  /** Names (on the server) of the tools being called, for stderr lines; one entry per call. */
  readonly calling: string[] = [];

  private constructor(
    readonly connection: CheckedConnection,
    readonly client: Client,
    private readonly transport: StdioClientTransport | StreamableHTTPClientTransport,
  ) {}

  /**
   * Starts (or reaches) the server and completes the MCP handshake. What a started server writes
   * to stderr goes, line by line, to `onStderr` (with the tools being called), never into errors.
   */
  static async open(
    connection: CheckedConnection,
    timeoutMs: number,
    onStderr: StderrListener | undefined,
  ): Promise<Session> {
    const transport =
      connection.kind === 'stdio'
        ? new StdioClientTransport({
            command: connection.command,
            args: connection.args,
            stderr: onStderr ? 'pipe' : 'ignore',
            ...defined({ env: connection.env, cwd: connection.cwd }),
          })
        : new StreamableHTTPClientTransport(connection.url, { requestInit: { headers: connection.headers } });
    const client = new Client({ name: 'troupe', version: VERSION }, { capabilities: {} });
    const session = new Session(connection, client, transport);
    if (transport instanceof StdioClientTransport && transport.stderr && onStderr) {
      const lines = new StderrLines(connection, () => session.calling, onStderr);
      transport.stderr.on('data', (chunk: Buffer | string) => lines.write(String(chunk)));
      transport.stderr.on('end', () => lines.end());
    }
    client.onclose = () => {
      session.closed = true;
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      session.tools = undefined;
    });
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      session.closed = true;
      // Ends a process that started but failed the handshake; the connect error is the one to report.
      await client.close().catch(() => undefined);
      throw connectError(connection, error);
    }
    return session;
  }

  /** The process id of a stdio server, while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioClientTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  /** Resolves once output the server wrote before now has arrived (so a crash's last lines name the call). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Lists all the server's tools, page by page. */
  async listTools(timeoutMs: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Ends the connection: an HTTP session is terminated on the server, a child process is asked to
   * exit (stdin closed), then terminated, then killed.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined) {
      // Best effort: a server that is gone or does not support ending sessions has nothing to clean up.
      await this.transport.terminateSession().catch(() => undefined);
    }
    await this.client.close();
  }
}

function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

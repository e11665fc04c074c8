import type { CheckedConnection } from './connection.js';

/**
 * A line an MCP server started as a process wrote to its stderr, for a log. It is never put into
 * an error message or a session: stderr often holds secrets (connection strings, keys echoed in
 * a stack trace) and internal paths.
 */
export interface MCPStderrLine {
  /** The server as messages name it: its command line, with secret argument values masked. */
  server: string;
  /** The line, without its line break, with secrets masked (as in error messages). */
  line: string;
  /** The tools (as the server names them) being called when the line arrived; empty between calls. */
  tools: readonly string[];
}

/** Receives a server's stderr, line by line. */
export type StderrListener = (line: MCPStderrLine) => void;

/** A line longer than this is passed on in pieces, so that a server writing no line breaks cannot fill memory. */
const MAX_LINE = 8_192;

/** Splits a server's stderr into lines for a {@link StderrListener}. */
export class StderrLines {
  private pending = '';

  constructor(
    private readonly connection: CheckedConnection,
    private readonly calling: () => readonly string[],
    private readonly listener: StderrListener,
  ) {}

  /** Takes a chunk of output; passes on each line it completes. */
  write(chunk: string): void {
    this.pending += chunk;
    let newline: number;
    while ((newline = this.pending.indexOf('\n')) >= 0) {
      this.emit(this.pending.slice(0, newline).replace(/\r$/, ''));
      this.pending = this.pending.slice(newline + 1);
    }
    while (this.pending.length > MAX_LINE) {
      this.emit(this.pending.slice(0, MAX_LINE));
      this.pending = this.pending.slice(MAX_LINE);
    }
  }

  /** The stream ended: passes on a last line that had no line break. */
  end(): void {
    if (this.pending !== '') this.emit(this.pending);
    this.pending = '';
  }

  private emit(line: string): void {
    const output: MCPStderrLine = {
      server: this.connection.label,
      line: this.connection.redact(line),
      tools: [...new Set(this.calling())],
    };
    try {
      this.listener(output);
    } catch {
      // A failing logger must not end the connection, nor the process (this runs in a stream event).
    }
  }
}

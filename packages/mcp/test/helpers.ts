import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryRunner, type BaseAgent, type RunResult } from '@troupe/core';

/** The stdio MCP server of the tests (official SDK, McpServer over stdio). */
export const stdioServer = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

/** A fresh file for the fixture server to note what happens in (pid, started and cancelled calls). */
export function logFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'troupe-mcp-')), 'server.log');
}

/** The lines the fixture server noted so far. */
export function logLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** The pids the fixture server noted, one per start. */
export function pids(file: string): number[] {
  return logLines(file).flatMap((line) => (line.startsWith('pid ') ? [Number(line.slice(4))] : []));
}

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** True while a process with this id exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A runner and a session for one agent; `turn` runs one message in that session. */
export async function chat(
  agent: BaseAgent,
): Promise<{ runner: InMemoryRunner; turn: (message: string, abortSignal?: AbortSignal) => Promise<RunResult> }> {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return {
    runner,
    turn: (message, abortSignal) =>
      runner.run({ userId: 'u', sessionId: session.id, newMessage: message, ...(abortSignal ? { abortSignal } : {}) }),
  };
}

// The child processes of bench/capacity.mjs: started with their output kept (the last lines, for
// error messages), waited for with a bound, and stopped by pid (SIGTERM, then SIGKILL).
import { spawn } from 'node:child_process';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts `node <argv>`; the child gets `role`, `output()` (its last output) and `exited` (a promise). */
export function startNode(role, argv, cwd) {
  const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks = [];
  const keep = (chunk) => {
    chunks.push(String(chunk));
    if (chunks.length > 50) chunks.shift();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.role = role;
  child.output = () => chunks.join('');
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return child;
}

/** Resolves once `ready()` is true; throws when the child exits first or `timeoutMs` passes. */
export async function waitUntil(child, ready, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${child.role} exited before ${what}: ${child.output().slice(-800)}`);
    if (await ready()) return;
    await sleep(100);
  }
  throw new Error(`${child.role} was not ${what} within ${timeoutMs / 1000} s: ${child.output().slice(-800)}`);
}

/**
 * Stops the children: SIGTERM to each (by pid), then SIGKILL to any still running after
 * `graceMs`. A worker given SIGTERM lets its runs finish for its grace period first.
 */
export async function stopAll(children, graceMs) {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout');
  for (const child of running) {
    if ((await Promise.race([child.exited, timer])) === 'timeout') {
      child.kill('SIGKILL');
      await child.exited;
    }
  }
}

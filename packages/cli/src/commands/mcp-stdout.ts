import { Writable } from 'node:stream';
import type { CliIo } from '../io.js';

/**
 * Keeps stdout for MCP's JSON-RPC messages: over stdio, a stray line there (an agent's
 * `console.log`, a library's notice) would be read by the host as a broken message. The channel
 * returned writes to the real stdout; everything else written to `process.stdout` goes to stderr
 * until `restore()`. With a stdout that is not the process's (tests), it is the channel as it is.
 */
export function reserveStdout(io: CliIo): { channel: Writable; restore(): void } {
  if (io.stdout !== process.stdout) return { channel: io.stdout, restore: () => undefined };
  const stdout = process.stdout;
  // The method itself, put back by restore(); called bound to stdout below.
  const original = Object.getOwnPropertyDescriptor(stdout, 'write');
  const writeOut = stdout.write.bind(stdout);
  const channel = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeOut(chunk, callback);
    },
  });
  // The process's own stdout (console.log writes through it) now writes to stderr.
  Object.defineProperty(stdout, 'write', {
    value: process.stderr.write.bind(process.stderr),
    configurable: true,
    writable: true,
  });
  return {
    channel,
    restore() {
      if (original) Object.defineProperty(stdout, 'write', original);
      else delete (stdout as { write?: unknown }).write;
    },
  };
}

import type { CliIo } from '../io.js';
import { serveCommand } from './serve-apps.js';

/**
 * `troupe web <agents dir> [--host h] [--port n] [--token t] [--model m] [--db path | --pg url | --memory]`:
 * serves the browser dev UI at `/` and the HTTP API for the apps of the directory until Ctrl-C or
 * SIGTERM. Returns the exit code.
 */
export function webCommand(args: readonly string[], io: CliIo): Promise<number> {
  return serveCommand('web', args, io);
}

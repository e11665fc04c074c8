import type { CliIo } from '../io.js';
import { serveCommand } from './serve-apps.js';

/**
 * `troupe api <agents dir> [--host h] [--port n] [--token t] [--model m] [--db path | --pg url | --memory]`:
 * serves the HTTP API (ADK's API server routes, SSE streaming, resume, graph) for the apps of the
 * directory until Ctrl-C or SIGTERM. Returns the exit code.
 */
export function apiCommand(args: readonly string[], io: CliIo): Promise<number> {
  return serveCommand('api', args, io);
}

import { basename, dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where in an app's own files its module failed while being imported: `agent.ts:12:7`, the first
 * frame of the error's stack inside the app's folder (a file the entry imports counts, a library
 * does not), relative to that folder. Undefined when the stack names none, or when the message
 * already names the place (a syntax error's `agent.ts:7:0: ERROR: ...`).
 */
export function loadFailureSite(entry: string, error: unknown): string | undefined {
  if (!(error instanceof Error) || typeof error.stack !== 'string') return undefined;
  const folder = dirname(entry);
  if (error.message.includes(`${basename(entry)}:`)) return undefined;
  // Frames read `at fn (file:///dir/agent.ts:12:7)` or `at /dir/agent.ts:12:7`.
  for (const match of error.stack.matchAll(/((?:file:\/\/)?\/[^\s():]+|[A-Za-z]:\\[^\s():]+):(\d+):(\d+)/g)) {
    const [, location, line, column] = match;
    const path = location!.startsWith('file://') ? safePath(location!) : location!;
    if (path === undefined || !path.startsWith(folder + sep)) continue;
    return `${relative(folder, path).replaceAll('\\', '/')}:${line}:${column}`;
  }
  return undefined;
}

function safePath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

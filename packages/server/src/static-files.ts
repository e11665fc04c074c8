import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { MiddlewareHandler } from 'hono';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** The content type served for a file name. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Serves the files under `dir` at `/` for GET and HEAD (`/` and folders serve their index.html),
 * for the dev UI. Requests whose decoded path has a `..` segment, a backslash or a NUL, or that
 * resolve (symbolic links included) outside `dir`, are not served; neither are missing files: those
 * fall through to the next handler (the JSON 404).
 */
export function staticFiles(dir: string): MiddlewareHandler {
  let root: Promise<string> | undefined;
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    root ??= realpath(resolve(dir));
    const file = await resolveFile(await root, c.req.path);
    if (!file) return next();
    const body = await readFile(file);
    const headers = {
      'Content-Type': contentTypeOf(file),
      'Content-Length': String(body.byteLength),
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    };
    return new Response(c.req.method === 'HEAD' ? null : body, { status: 200, headers });
  };
}

async function resolveFile(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return undefined;
  let candidate = join(root, ...segments);
  if (!within(root, candidate)) return undefined;
  try {
    if ((await stat(candidate)).isDirectory()) candidate = join(candidate, 'index.html');
    const real = await realpath(candidate);
    if (!within(root, real) || !(await stat(real)).isFile()) return undefined;
    return real;
  } catch {
    // Missing or unreadable: not a static file.
    return undefined;
  }
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

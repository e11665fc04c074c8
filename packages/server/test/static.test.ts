import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FunctionAgent } from '@troupe/core';
import { createApp, serve } from '../src/index.js';
import { expectError } from './helpers.js';

// A copy of the fixture UI beside a secret file, with a symbolic link pointing out of the UI folder.
const base = mkdtempSync(join(tmpdir(), 'troupe-static-'));
const staticDir = join(base, 'ui');
cpSync(fileURLToPath(new URL('./fixtures/static', import.meta.url)), staticDir, { recursive: true });
writeFileSync(join(base, 'secret.txt'), 'top secret');
symlinkSync(join(base, 'secret.txt'), join(staticDir, 'escape.txt'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const agent = new FunctionAgent({ name: 'a', run: () => 'a' });

describe('staticDir (the dev UI mount)', () => {
  const app = createApp({ apps: { chat: agent }, staticDir, auth: { tokens: { t: '*' } } });

  it('serves files under / with their content types, index.html for / and folders, without auth', async () => {
    for (const [path, type, text] of [
      ['/', 'text/html; charset=utf-8', 'Troupe dev UI'],
      ['/index.html', 'text/html; charset=utf-8', 'Troupe dev UI'],
      ['/app.js', 'text/javascript; charset=utf-8', "export const title = 'dev ui'"],
      ['/style.css', 'text/css; charset=utf-8', 'margin: 0'],
      ['/sub/', 'text/html; charset=utf-8', 'sub'],
      ['/sub', 'text/html; charset=utf-8', 'sub'],
    ] as const) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe(type);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text(), path).toContain(text);
    }
    const head = await app.request('/app.js', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([
      200,
      String("export const title = 'dev ui';\n".length),
      '',
    ]);
  });

  it('API routes keep precedence and their auth', async () => {
    expect((await app.request('/list-apps')).status).toBe(401);
    expect((await app.request('/health')).status).toBe(200);
  });

  it('never serves outside the folder: .. segments, encoded traversal, backslashes, NUL, symbolic links', async () => {
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/sub/%2E%2E/%2E%2E/secret.txt',
      '/..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%5c..%5csecret.txt',
      '/app.js%00.html',
      '/escape.txt',
      '/missing.js',
      '/%E0%A4%A',
    ]) {
      const res = await app.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('top secret');
    }
    await expectError(await app.request('/missing.js'), 404, 'NOT_FOUND');
  });

  it('raw traversal over a real connection is refused too', async () => {
    const handle = await serve(app, { port: 0 });
    try {
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        // fetch would normalise the path; a raw request sends it as written.
        const req = request({ host: '127.0.0.1', port: handle.port, path: '/../secret.txt', method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(404);
    } finally {
      await handle.close();
    }
  });

  it('other methods than GET and HEAD are not served from the folder', async () => {
    expect((await app.request('/index.html', { method: 'POST' })).status).toBe(404);
  });
});

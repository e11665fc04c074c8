// Services the benchmarks start for themselves on 127.0.0.1: a free port, and a redis-server
// without persistence (the caller kills it by pid when done).
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/** A free TCP port on 127.0.0.1 (free when asked: the caller binds it next). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts redis-server on a free loopback port; resolves the child (with `port`) once it answers PING, within 10 s. */
export async function startRedis(log = () => undefined) {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: 'ignore' },
  );
  child.port = port;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      log(`redis-server on port ${port}`);
      return child;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start on port ${port}: ${error.message}`);
      }
      await sleep(50);
    } finally {
      probe.disconnect();
    }
  }
}

/**
 * Whether GET `<url>/list-apps` answers 200 with `app` in it (false while the server is not
 * listening yet): a started server is ready. ADK's /list-apps loads (bundles) the agents on each
 * call, seconds on a busy machine, hence the long default.
 */
export function listsApp(url, app, timeoutMs = 30_000) {
  return new Promise((resolve) => {
    const req = http.get(`${url}/list-apps`, { timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 && JSON.parse(body).includes(app));
        } catch {
          resolve(false);
        }
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

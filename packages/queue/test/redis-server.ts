import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { Socket, createServer } from 'node:net';
import { afterAll, beforeAll, describe } from 'vitest';

/**
 * A Redis server of the test file's own: `redis-server` on a free loopback port, keeping nothing on
 * disk, stopped by its pid. Outside CI the suites are skipped when `redis-server` is not installed;
 * in CI (CI=true) they run and fail, because a CI run that skipped them would prove nothing.
 */
export interface TestRedis {
  url: string;
  port: number;
  /** The running server's pid (a new one after `restart`). */
  readonly pid: number;
  /** Kills the server (SIGKILL) and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server if it runs, then starts a new one (empty) on the same port; resolves once it answers. */
  restart(): Promise<void>;
}

const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const REDIS_BIN = process.env.TROUPE_TEST_REDIS_SERVER ?? 'redis-server';

function installed(): boolean {
  try {
    execFileSync(REDIS_BIN, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HAVE_REDIS = installed();

/** `describe` for suites that need Redis: skipped only outside CI when `redis-server` is missing. */
export const describeRedis = describe.skipIf(!HAVE_REDIS && !IN_CI);

/** A free TCP port on 127.0.0.1 (the kernel's pick; released before redis-server binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Starts a private redis-server and resolves once it accepts connections (within 10 s). */
export async function startRedis(): Promise<TestRedis> {
  if (!HAVE_REDIS) {
    throw new Error(
      `'${REDIS_BIN}' was not found, and CI=true requires the Redis tests to run. Install Debian's package (apt-get install redis-server; .ci/run does this), or set TROUPE_TEST_REDIS_SERVER to the binary.`,
    );
  }
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    try {
      const child = await spawnOn(port);
      return handle(child, port);
    } catch (error) {
      // Another process may have taken the port between the probe and the bind: try another.
      if (attempt >= 3) throw error;
    }
  }
}

/** A redis-server on `port`, once it answers PING (within 10 s); killed if it does not. */
async function spawnOn(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_BIN,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    await ready(child, port);
    return child;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** One Redis server for the tests of a file, started in beforeAll and killed in afterAll. */
export function useRedis(): () => TestRedis {
  let server: TestRedis | undefined;
  beforeAll(async () => {
    server = await startRedis();
  }, 20_000);
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('The test Redis is not running: useRedis() starts it in beforeAll.');
    return server;
  };
}

function ready(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`redis-server on port ${port} did not start within 10 s: ${output}`)),
      10_000,
    );
    const poll = setInterval(() => {
      // PING without a client library: the inline command form Redis accepts on a raw socket.
      const socket = new Socket();
      socket.once('error', () => socket.destroy());
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.on('data', (chunk: Buffer) => {
        socket.destroy();
        if (chunk.toString().startsWith('+PONG')) done();
      });
    }, 50);
    const onOutput = (chunk: Buffer) => (output += chunk.toString());
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('exit', (code) => fail(new Error(`redis-server on port ${port} exited with code ${code}: ${output}`)));
    function done(): void {
      clearTimeout(timer);
      clearInterval(poll);
      child.removeAllListeners('exit');
      resolve();
    }
    function fail(error: Error): void {
      clearTimeout(timer);
      clearInterval(poll);
      reject(error);
    }
  });
}

function handle(first: ChildProcess, port: number): TestRedis {
  let child = first;
  let exited = exitOf(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!;
    },
    stop,
    async restart() {
      await stop();
      // The port was ours a moment ago; a test that restarts Redis needs its clients to find it there again.
      child = await spawnOn(port);
      exited = exitOf(child);
    },
  };
}

function exitOf(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => child.once('exit', () => resolve()));
}

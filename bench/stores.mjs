// Session stores: append throughput and session load time for InMemorySessionService,
// SqliteSessionService and PostgresSessionService, and the on-disk size of a 10,000-session SQLite
// file. Prints one JSON line per measurement on stdout; progress goes to stderr.
// Usage: npm run build && node bench/stores.mjs
//   TROUPE_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test node bench/stores.mjs   (PostgreSQL too)
// It measures the BUILT packages (dist/). Every part is bounded by a count and a time budget, so
// the whole run stays well under a minute. PostgreSQL tables go to a fresh schema, dropped at the end.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import { URL, fileURLToPath } from 'node:url';
import { quantile, round } from './stats.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (pkg) => join(root, 'packages', pkg, 'dist', 'index.js');
for (const pkg of ['core', 'sqlite', 'postgres']) {
  if (!existsSync(dist(pkg))) {
    console.error(`[stores] ${dist(pkg)} is missing: run npm run build first.`);
    process.exit(1);
  }
}
const { InMemorySessionService, createEvent } = await import(dist('core'));
const { SqliteSessionService } = await import(dist('sqlite'));
const { PostgresSessionService } = await import(dist('postgres'));

const log = (...parts) => console.error('[stores]', ...parts);
const emit = (line) => console.log(JSON.stringify({ bench: 'stores', ...line }));
const APP = 'bench';
const USER = 'u';

/** A typical event: a model reply of ~40 words with usage and a small state delta. */
function sampleEvent(i) {
  return createEvent({
    invocationId: `inv-${i >> 2}`,
    author: i % 2 ? 'Writer' : 'user',
    content: {
      role: i % 2 ? 'model' : 'user',
      parts: [{ text: `Reply ${i}: ` + 'the quick brown fox jumps over the lazy dog '.repeat(4) }],
    },
    actions: { stateDelta: { step: i, last_author: i % 2 ? 'Writer' : 'user' } },
    usage: { inputTokens: 120, outputTokens: 40 },
  });
}

/** Runs `op` up to `count` times or until `budgetMs` ran out; returns per-call latencies (µs) and the wall time. */
async function measure(count, budgetMs, op) {
  const latencies = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await op(i);
    latencies.push((performance.now() - t) * 1000);
    if (performance.now() - start > budgetMs) break;
  }
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

function summary(latencies, seconds) {
  return {
    seconds: round(seconds, 3),
    p50_us: round(quantile(latencies, 0.5), 1),
    p99_us: round(quantile(latencies, 0.99), 1),
  };
}

/** Append throughput to one session, then load time of a session with `loadEvents` events. */
async function appendAndLoad(store, service, { appends, loads, loadEvents, budgetMs }) {
  const session = await service.createSession({ appName: APP, userId: USER });
  for (let i = 0; i < 50; i++) await service.appendEvent({ session, event: sampleEvent(i) }); // warm-up
  const appended = await measure(appends, budgetMs, (i) =>
    service.appendEvent({ session, event: sampleEvent(50 + i) }),
  );
  const n = appended.latencies.length;
  emit({
    store,
    op: 'append',
    events: n,
    events_per_sec: Math.round(n / appended.seconds),
    ...summary(appended.latencies, appended.seconds),
  });

  const loaded = await service.createSession({
    appName: APP,
    userId: USER,
    state: { 'user:name': 'Ada', topic: 'tides' },
  });
  for (let i = 0; i < loadEvents; i++) await service.appendEvent({ session: loaded, event: sampleEvent(i) });
  const key = { appName: APP, userId: USER, sessionId: loaded.id };
  for (let i = 0; i < 10; i++) await service.getSession(key); // warm-up
  const got = await measure(loads, budgetMs, async () => {
    const s = await service.getSession(key);
    if (s.events.length !== loadEvents)
      throw new Error(`${store}: loaded ${s.events.length} events, expected ${loadEvents}`);
  });
  const m = got.latencies.length;
  emit({
    store,
    op: 'load',
    events_per_session: loadEvents,
    loads: m,
    loads_per_sec: Math.round(m / got.seconds),
    ...summary(got.latencies, got.seconds),
  });
}

/** 10,000 sessions with a few events each; the file's size once closed (WAL checkpointed). */
async function sqliteDiskSize(dir) {
  const path = join(dir, 'size.db');
  const service = new SqliteSessionService({ path });
  const sessions = 10_000;
  const eventsPerSession = 3;
  const start = performance.now();
  for (let s = 0; s < sessions; s++) {
    const session = await service.createSession({ appName: APP, userId: `user-${s % 100}`, state: { topic: 'tides' } });
    for (let e = 0; e < eventsPerSession; e++) await service.appendEvent({ session, event: sampleEvent(e) });
  }
  const seconds = (performance.now() - start) / 1000;
  await service.close();
  const bytes = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
  emit({
    store: 'sqlite',
    op: 'disk_size',
    sessions,
    events_per_session: eventsPerSession,
    bytes,
    mb: round(bytes / 1024 / 1024, 2),
    bytes_per_session: Math.round(bytes / sessions),
    write_seconds: round(seconds, 2),
    writes_per_sec: Math.round((sessions * (1 + eventsPerSession)) / seconds),
  });
}

const sizes = { appends: 5_000, loads: 1_000, loadEvents: 100, budgetMs: 4_000 };
const started = performance.now();

log('in-memory');
await appendAndLoad('memory', new InMemorySessionService(), { ...sizes, appends: 20_000 });

const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-stores-'));
try {
  log('sqlite');
  const sqlite = new SqliteSessionService({ path: join(dir, 'bench.db') });
  await appendAndLoad('sqlite', sqlite, sizes);
  await sqlite.close();
  log('sqlite: 10,000 sessions on disk');
  await sqliteDiskSize(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const pgUrl = process.env.TROUPE_TEST_PG_URL;
if (!pgUrl) {
  emit({ store: 'postgres', skipped: 'TROUPE_TEST_PG_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)' });
} else {
  log('postgres');
  const schema = `troupe_bench_${Date.now().toString(36)}`;
  const postgres = new PostgresSessionService({ connectionString: pgUrl, schema });
  try {
    await appendAndLoad('postgres', postgres, { ...sizes, appends: 2_000, loads: 500 });
  } finally {
    await postgres.close();
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
log(`done in ${round((performance.now() - started) / 1000, 1)} s`);

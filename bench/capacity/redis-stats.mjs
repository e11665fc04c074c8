// What bench/capacity.mjs reads from its own redis-server: commands by name, connections, memory.

/** Parses an INFO section into { field: value } (numbers where the value is one). */
function parseInfo(text) {
  const out = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0 || line.startsWith('#')) continue;
    const value = line.slice(colon + 1);
    out[line.slice(0, colon)] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/**
 * One reading: commands run so far by name (INFO commandstats, which counts the commands BullMQ's
 * Lua scripts call as well as the scripts), connections received, used_memory, keys.
 */
export async function redisSnapshot(client) {
  const [commandstats, stats, memory, keys] = await Promise.all([
    client.info('commandstats'),
    client.info('stats'),
    client.info('memory'),
    client.dbsize(),
  ]);
  const calls = {};
  for (const [field, value] of Object.entries(parseInfo(commandstats))) {
    const match = /calls=(\d+)/.exec(String(value));
    if (match) calls[field.replace(/^cmdstat_/, '')] = Number(match[1]);
  }
  const s = parseInfo(stats);
  const m = parseInfo(memory);
  return {
    calls,
    connectionsReceived: s.total_connections_received,
    usedMemory: m.used_memory,
    keys,
  };
}

/** Commands the bench itself sends (its readings and samples), left out of the runs' counts. */
const OWN_COMMANDS = new Set(['info', 'dbsize', 'scan', 'memory|usage', 'memory', 'ping', 'client|setinfo']);

/**
 * What the runs did between two readings: commands in all (BullMQ's script calls and the commands
 * they call both count), the script calls alone (EVALSHA/EVAL/FCALL: each is one round trip from a
 * client), the busiest commands, connections received. The bench's own commands are left out.
 */
export function redisDiff(before, after) {
  const byCommand = {};
  for (const [name, calls] of Object.entries(after.calls)) {
    const n = calls - (before.calls[name] ?? 0);
    if (n > 0 && !OWN_COMMANDS.has(name)) byCommand[name] = n;
  }
  const scripts = ['evalsha', 'eval', 'fcall', 'evalsha_ro', 'eval_ro'].reduce(
    (sum, name) => sum + (byCommand[name] ?? 0),
    0,
  );
  return {
    commands: Object.values(byCommand).reduce((a, b) => a + b, 0),
    scripts,
    byCommand,
    connectionsReceived: after.connectionsReceived - before.connectionsReceived,
  };
}

/** `MEMORY USAGE` of up to `count` keys matching `pattern` (SCAN, so it does not block): { keys, meanBytes }. */
export async function sampleKeyMemory(client, pattern, count) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0' && keys.length < count);
  const sizes = [];
  for (const key of keys.slice(0, count)) {
    const bytes = await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    if (typeof bytes === 'number') sizes.push(bytes);
  }
  return {
    keys: sizes.length,
    meanBytes: sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : null,
  };
}

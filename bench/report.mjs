// Aggregation and printing for run.mjs: medians over rounds, Troupe/floor ratios, target checks.
import { median, round } from './stats.mjs';

export const TARGETS = Object.freeze({
  throughputRatio: 3, // floor runs/s ÷ Troupe runs/s, every scenario without its own floorRatioTarget (scenarios/spec.mjs)
  graphFlatRatio: 1.5, // graph50's 500-node chain: per-node cost of the last 50 nodes ÷ the first 50
  loopRatio: 1.2, // per-iteration cost at 400 iterations ÷ at 50
  memoryRatio: 2, // cost of remembering a turn at 2,000 session events ÷ at 100
  sessionKb: 1.5, // heap per idle in-memory session with one completed run
  importMs: 100,
  importMb: 10,
});

const MEDIAN_FIELDS = [
  'seconds',
  'runs_per_sec',
  'p50_us',
  'p99_us',
  'heap_mb',
  'heap_kb_per_session',
  'per_session_p50_us',
  'per_session_p99_us',
  'sessions_per_sec',
  'cpu_us_per_run',
];

/** One documented JSON line from the rounds of one (framework, scenario): medians of every number. */
export function aggregate(rounds) {
  const first = rounds[0];
  const line = { framework: first.framework, scenario: first.scenario, runs: first.runs };
  for (const field of MEDIAN_FIELDS) {
    if (first[field] === undefined) continue;
    line[field] = round(
      median(rounds.map((r) => r[field])),
      field === 'seconds' || field === 'heap_kb_per_session' ? 4 : 2,
    );
  }
  const calls = [...new Set(rounds.map((r) => r.llm_calls_per_run))];
  line.llm_calls_per_run = calls.length === 1 ? calls[0] : calls;
  // Keep the documented field order: runs, seconds, runs_per_sec, p50_us, p99_us, heap_mb, llm_calls_per_run, notes.
  const ordered = {
    framework: line.framework,
    scenario: line.scenario,
    runs: line.runs,
    seconds: line.seconds,
    runs_per_sec: line.runs_per_sec,
    p50_us: line.p50_us,
    p99_us: line.p99_us,
    heap_mb: line.heap_mb,
    llm_calls_per_run: line.llm_calls_per_run,
    notes: `${first.notes}; median of ${rounds.length} round(s), each a fresh process alternating with the other framework`,
  };
  for (const field of MEDIAN_FIELDS) if (!(field in ordered) && line[field] !== undefined) ordered[field] = line[field];
  return ordered;
}

/** Per-round ratios (the two runs of a round are adjacent in time), then their median. */
export function ratios(troupeRounds, floorRounds) {
  const n = Math.min(troupeRounds.length, floorRounds.length);
  const throughput = [];
  const p50 = [];
  const cpu = [];
  for (let i = 0; i < n; i++) {
    throughput.push(floorRounds[i].runs_per_sec / troupeRounds[i].runs_per_sec);
    p50.push(troupeRounds[i].p50_us / floorRounds[i].p50_us);
    if (troupeRounds[i].cpu_us_per_run > 0 && floorRounds[i].cpu_us_per_run > 0)
      cpu.push(troupeRounds[i].cpu_us_per_run / floorRounds[i].cpu_us_per_run);
  }
  return {
    throughput_ratio: round(median(throughput), 2),
    throughput_ratio_range: [round(Math.min(...throughput), 2), round(Math.max(...throughput), 2)],
    p50_ratio: round(median(p50), 2),
    cpu_ratio: cpu.length ? round(median(cpu), 2) : undefined,
  };
}

const pad = (value, width) => String(value).padStart(width);
const fmt = (x) => (x >= 100 ? String(Math.round(x)) : String(round(x, 1)));

/** The floor/Troupe throughput ratio a scenario must stay within (its own `floorRatioTarget`, else 3×). */
export function floorTarget(spec) {
  return spec?.floorRatioTarget ?? TARGETS.throughputRatio;
}

/** The ratio table as text lines (rows: { scenario, troupe, floor, ratio, target }). */
export function ratioTable(rows) {
  const header = [
    'scenario',
    'troupe runs/s',
    'floor runs/s',
    'floor/troupe',
    '(min..max)',
    'troupe p50 µs',
    'floor p50 µs',
    'p50 ratio',
    'cpu ratio',
    'target',
  ];
  const widths = [12, 14, 13, 13, 15, 14, 13, 10, 10, 9];
  const lines = [header.map((h, i) => pad(h, widths[i])).join(' '), widths.map((w) => '-'.repeat(w)).join(' ')];
  for (const r of rows) {
    const cells = [
      r.scenario,
      fmt(r.troupe.runs_per_sec),
      fmt(r.floor.runs_per_sec),
      `${r.ratio.throughput_ratio}×`,
      `${r.ratio.throughput_ratio_range[0]}..${r.ratio.throughput_ratio_range[1]}`,
      fmt(r.troupe.p50_us),
      fmt(r.floor.p50_us),
      `${r.ratio.p50_ratio}×`,
      r.ratio.cpu_ratio === undefined ? 'n/a' : `${r.ratio.cpu_ratio}×`,
      `≤${r.target}× ${r.ratio.throughput_ratio <= r.target ? 'ok' : 'NO'}`,
    ];
    lines.push(cells.map((c, i) => pad(c, widths[i])).join(' '));
  }
  return lines;
}

/**
 * Troupe against a peer framework, per round then the median: `faster` = peer p50 ÷ Troupe p50
 * (how many times faster Troupe's typical run is), `throughput` = Troupe runs/s ÷ peer runs/s.
 */
export function peerRatios(troupeRounds, peerRounds) {
  const n = Math.min(troupeRounds.length, peerRounds.length);
  const faster = [];
  const throughput = [];
  const cpu = [];
  for (let i = 0; i < n; i++) {
    faster.push(peerRounds[i].p50_us / troupeRounds[i].p50_us);
    throughput.push(troupeRounds[i].runs_per_sec / peerRounds[i].runs_per_sec);
    if (troupeRounds[i].cpu_us_per_run > 0 && peerRounds[i].cpu_us_per_run > 0)
      cpu.push(peerRounds[i].cpu_us_per_run / troupeRounds[i].cpu_us_per_run);
  }
  return {
    p50_faster: round(median(faster), 2),
    p50_faster_range: [round(Math.min(...faster), 2), round(Math.max(...faster), 2)],
    throughput_ratio: round(median(throughput), 2),
    throughput_ratio_range: [round(Math.min(...throughput), 2), round(Math.max(...throughput), 2)],
    cpu_faster: cpu.length ? round(median(cpu), 2) : undefined,
  };
}

/** The Troupe/peer table as text lines (rows: { scenario, troupe, peer, ratio } from peerRatios). */
export function peerTable(rows, peer) {
  const header = [
    'scenario',
    'troupe p50 µs',
    `${peer} p50 µs`,
    '× faster (p50)',
    '(min..max)',
    'troupe runs/s',
    `${peer} runs/s`,
    'troupe/' + peer,
    '(min..max)',
    '× less cpu',
  ];
  const widths = [12, 14, 13, 15, 13, 14, 13, 12, 13, 11];
  const lines = [header.map((h, i) => pad(h, widths[i])).join(' '), widths.map((w) => '-'.repeat(w)).join(' ')];
  for (const r of rows) {
    const cells = [
      r.scenario,
      fmt(r.troupe.p50_us),
      fmt(r.peer.p50_us),
      `${r.ratio.p50_faster}×`,
      `${r.ratio.p50_faster_range[0]}..${r.ratio.p50_faster_range[1]}`,
      fmt(r.troupe.runs_per_sec),
      fmt(r.peer.runs_per_sec),
      `${r.ratio.throughput_ratio}×`,
      `${r.ratio.throughput_ratio_range[0]}..${r.ratio.throughput_ratio_range[1]}`,
      r.ratio.cpu_faster === undefined ? 'n/a' : `${r.ratio.cpu_faster}×`,
    ];
    lines.push(cells.map((c, i) => pad(c, widths[i])).join(' '));
  }
  return lines;
}

/**
 * The after-warm-up table: µs per run (mean, GC included) per framework, Troupe ÷ floor, and for
 * each peer how many times Troupe's time it takes. `warm` maps framework → extras.mjs warm line.
 */
export function warmTable(warm, peers) {
  const title =
    "After JIT warm-up (extras.mjs warm: mean µs per run over blocks on fresh apps, GC included; 'cpu' rows: the process's CPU µs per run)";
  const header = [
    'scenario',
    'troupe µs',
    'floor µs',
    'troupe/floor',
    ...peers.flatMap((p) => [`${p} µs`, `× faster than ${p}`]),
  ];
  const widths = [12, 11, 10, 13, ...peers.flatMap(() => [12, 18])];
  const lines = [title, header.map((h, i) => pad(h, widths[i])).join(' '), widths.map((w) => '-'.repeat(w)).join(' ')];
  // A row per scenario (wall µs per run), and one per `<scenario>_cpu_us` field (the process's CPU µs per run).
  const rows = Object.keys(warm.troupe ?? {})
    .filter((key) => key.endsWith('_us'))
    .map((key) => ({
      key,
      label: key.endsWith('_cpu_us') ? `${key.slice(0, -7)} cpu` : key.slice(0, -3),
    }));
  for (const { key, label } of rows) {
    const us = (framework) => warm[framework]?.[key] ?? NaN;
    const ratio = (a, b) => (a > 0 && b > 0 ? `${round(a / b, 2)}×` : 'n/a');
    const show = (x) => (Number.isFinite(x) ? fmt(x) : 'n/a');
    const cells = [label, show(us('troupe')), show(us('floor')), ratio(us('troupe'), us('floor'))];
    for (const peer of peers) cells.push(show(us(peer)), ratio(us(peer), us('troupe')));
    lines.push(cells.map((c, i) => pad(c, widths[i])).join(' '));
  }
  return lines.join('\n');
}

import type { WireTraceSpan } from '../types.js';

/** One bar of the timeline. */
export interface TimelineRow {
  spanId: string;
  kind: 'agent' | 'model' | 'tool';
  /** "Concierge", "call_llm gemini-2.5-flash", "book_table". */
  label: string;
  /** Nesting under its parent span. */
  depth: number;
  /** Where the bar starts and how wide it is, in percent of the invocation. */
  offset: number;
  width: number;
  /** Milliseconds; undefined while the span is still open. */
  durationMs: number | undefined;
  status: string | undefined;
  /** The event the span produced (a model call's response), for selecting it. */
  eventId: string | undefined;
}

/** One invocation's timeline. */
export interface InvocationTimeline {
  invocationId: string;
  /** Milliseconds since the epoch. */
  startMs: number;
  durationMs: number;
  rows: TimelineRow[];
}

/**
 * The spans of a session as one timeline per invocation: each span under its parent (depth-first,
 * in start order), its bar placed by its start and length relative to the invocation's.
 */
export function traceTimelines(spans: readonly WireTraceSpan[], nowMs = Date.now()): InvocationTimeline[] {
  const byTrace = new Map<string, WireTraceSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.trace_id) ?? [];
    list.push(span);
    byTrace.set(span.trace_id, list);
  }
  const timelines: InvocationTimeline[] = [];
  for (const [invocationId, list] of byTrace) {
    const startMs = Math.min(...list.map((s) => s.start_time / 1e6));
    const endMs = Math.max(...list.map((s) => (s.end_time ?? nowMs * 1e6) / 1e6));
    const total = Math.max(endMs - startMs, 1);
    const ids = new Set(list.map((s) => s.span_id));
    const children = new Map<string | null, WireTraceSpan[]>();
    for (const span of list) {
      const parent = span.parent_span_id !== null && ids.has(span.parent_span_id) ? span.parent_span_id : null;
      const siblings = children.get(parent) ?? [];
      siblings.push(span);
      children.set(parent, siblings);
    }
    const rows: TimelineRow[] = [];
    const visit = (parent: string | null, depth: number) => {
      for (const span of [...(children.get(parent) ?? [])].sort((a, b) => a.start_time - b.start_time)) {
        const start = span.start_time / 1e6;
        const end = span.end_time === null ? undefined : span.end_time / 1e6;
        const kind = (span.attributes['troupe.span.kind'] as TimelineRow['kind'] | undefined) ?? kindOf(span.name);
        const model = span.attributes['gen_ai.request.model'];
        rows.push({
          spanId: span.span_id,
          kind,
          label:
            kind === 'model'
              ? `${String(span.attributes['troupe.agent.name'] ?? '')} → ${typeof model === 'string' ? model : 'model'}`
              : kind === 'tool'
                ? String(span.attributes['gen_ai.tool.name'] ?? span.name)
                : String(span.attributes['troupe.agent.name'] ?? span.name),
          depth,
          offset: ((start - startMs) / total) * 100,
          width: Math.max((((end ?? endMs) - start) / total) * 100, 0.5),
          durationMs: end === undefined ? undefined : Math.round(end - start),
          status: span.attributes['troupe.status'] as string | undefined,
          eventId: span.attributes['gcp.vertex.agent.event_id'] as string | undefined,
        });
        visit(span.span_id, depth + 1);
      }
    };
    visit(null, 0);
    timelines.push({ invocationId, startMs, durationMs: Math.round(endMs - startMs), rows });
  }
  return timelines.sort((a, b) => a.startMs - b.startMs);
}

function kindOf(name: string): TimelineRow['kind'] {
  if (name === 'call_llm') return 'model';
  return name.startsWith('execute_tool') ? 'tool' : 'agent';
}

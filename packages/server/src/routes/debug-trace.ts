import { Hono } from 'hono';
import { assertMayAccess } from '../auth.js';
import { HttpError } from '../http-error.js';
import type { WireTraceSpan } from '../dev-ui-wire.js';
import type { ServerEnv } from '../server-context.js';
import type { TraceCollector, TraceSpan } from '../trace-collector.js';

/**
 * ADK's debug trace routes, fed by the server's {@link TraceCollector} (runs of this process, kept
 * in memory, the most recent first to go): `GET /debug/trace/{event_id}` (the attributes of the
 * model call that produced the event: its request and response as JSON text, under ADK's
 * `gcp.vertex.agent.*` names) and `GET /debug/trace/session/{session_id}` (every span of the
 * session: agents, model calls and tools with their times). A token sees only its user's spans.
 */
export function debugTraceRoutes(traces: TraceCollector | undefined): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  if (!traces) {
    routes.get('/debug/trace/*', () => {
      throw new HttpError(
        404,
        'NOT_FOUND',
        'This server keeps no traces. Start it with createApp({ traces: true }) (troupe web does) to see what each model call saw.',
      );
    });
    return routes;
  }

  routes.get('/debug/trace/session/:session', (c) => {
    const principal = c.get('principal');
    const app = c.req.query('app');
    const spans = traces
      .sessionSpans(c.req.param('session'), app)
      .filter((span) => principal === '*' || span.userId === principal);
    return c.json(spans.map(wireSpan));
  });

  routes.get('/debug/trace/:event', (c) => {
    const eventId = c.req.param('event');
    const span = traces.spanOfEvent(eventId);
    if (!span)
      throw new HttpError(
        404,
        'NOT_FOUND',
        `No trace is kept for event '${eventId}'. This server keeps the model calls of runs it executed since it started; older runs, runs on queue workers and events that no model call produced have none.`,
      );
    assertMayAccess(c.get('principal'), span.userId);
    return c.json({ ...attributesOf(span), 'gcp.vertex.agent.event_id': eventId });
  });

  return routes;
}

function wireSpan(span: TraceSpan): WireTraceSpan {
  return {
    name: spanName(span),
    span_id: span.spanId,
    parent_span_id: span.parentSpanId ?? null,
    trace_id: span.invocationId,
    start_time: span.startTime * 1_000_000,
    end_time: span.endTime === undefined ? null : span.endTime * 1_000_000,
    attributes: attributesOf(span),
  };
}

/** ADK's span names: `invoke_agent X`, `call_llm`, `execute_tool X`. */
function spanName(span: TraceSpan): string {
  if (span.kind === 'agent') return `invoke_agent ${span.name}`;
  if (span.kind === 'model') return 'call_llm';
  return `execute_tool ${span.name}`;
}

function attributesOf(span: TraceSpan): Record<string, unknown> {
  const attributes: Record<string, unknown> = {
    'gcp.vertex.agent.invocation_id': span.invocationId,
    'gcp.vertex.agent.session_id': span.sessionId,
    'troupe.span.kind': span.kind,
    'troupe.agent.name': span.agent,
    'troupe.agent.path': span.path,
    'troupe.branch': span.branch,
  };
  if (span.eventIds.length > 0) attributes['gcp.vertex.agent.event_id'] = span.eventIds[0];
  if (span.status !== undefined) attributes['troupe.status'] = span.status;
  if (span.error !== undefined) attributes['troupe.error'] = span.error;
  if (span.kind === 'model') {
    attributes['gen_ai.request.model'] = span.name;
    attributes['gcp.vertex.agent.llm_request'] = JSON.stringify(span.llmRequest ?? {});
    if (span.llmResponse !== undefined) attributes['gcp.vertex.agent.llm_response'] = JSON.stringify(span.llmResponse);
  }
  if (span.kind === 'tool') {
    attributes['gen_ai.tool.name'] = span.name;
    attributes['gcp.vertex.agent.tool_call_args'] = JSON.stringify(span.toolArgs ?? {});
    if (span.toolResponse !== undefined)
      attributes['gcp.vertex.agent.tool_response'] = JSON.stringify(span.toolResponse);
  }
  return attributes;
}

/**
 * The JSON shapes of the routes the dev UI reads besides ADK's session and run routes (debug
 * traces, session summaries). Plain types with no imports, so that the UI's type check can read
 * them without the server's Node dependencies.
 */

/** A span as `GET /debug/trace/session/{id}` sends it: ADK's shape, times in nanoseconds since the epoch. */
export interface WireTraceSpan {
  /** `invoke_agent <name>`, `call_llm` or `execute_tool <name>`. */
  name: string;
  span_id: string;
  parent_span_id: string | null;
  /** The invocation id: one trace per invocation. */
  trace_id: string;
  start_time: number;
  /** Null while the span is open. */
  end_time: number | null;
  /** ADK's `gcp.vertex.agent.*` attributes (request and response as JSON text) and Troupe's `troupe.*` ones. */
  attributes: Record<string, unknown>;
}

/** A session as the dev UI lists it. Times are seconds since the epoch, as on the rest of the API. */
export interface SessionSummary {
  id: string;
  /** The first user message's text (or its structured input as JSON), cut to 60 characters; empty when there is none yet. */
  title: string;
  /** When the first event was stored (the session's start); absent for a session without events. */
  startTime?: number;
  lastUpdateTime: number;
  eventCount: number;
}

import { SpanStatusCode, type Attributes } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { InMemoryRunner, type BaseAgent, type BasePlugin, type RunConfig, type RunResult } from '@troupe/core';
import { OpenTelemetryPlugin, type OpenTelemetryPluginOptions } from '../src/index.js';

/**
 * Remembers the order spans start in. The SDK stamps start times in whole milliseconds, too coarse
 * to order the spans of a fast fake run.
 */
class StartOrder implements SpanProcessor {
  private next = 0;

  onStart(span: Span): void {
    startIndex.set(span.spanContext().spanId, this.next++);
  }
  onEnd(): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

const startIndex = new Map<string, number>();

/** An SDK tracer provider that keeps every finished span in memory. */
export function tracing(): { exporter: InMemorySpanExporter; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new StartOrder(), new SimpleSpanProcessor(exporter)] });
  return { exporter, provider };
}

/** A runner for `agent` with the plugin on an in-memory exporter. */
export function tracedRunner(agent: BaseAgent, options: Omit<OpenTelemetryPluginOptions, 'tracerProvider'> = {}) {
  const { exporter, provider } = tracing();
  const plugin = new OpenTelemetryPlugin({ ...options, tracerProvider: provider });
  const runner = new InMemoryRunner({ agent, plugins: [plugin] });
  return { exporter, provider, plugin, runner };
}

/** Runs one user turn on a new session. */
export async function runTurn(
  agent: BaseAgent,
  message: string,
  plugins: BasePlugin[] = [],
): Promise<RunResult & { runner: InMemoryRunner; sessionId: string }> {
  const runner = new InMemoryRunner({ agent, plugins });
  return runOn(runner, message);
}

export async function runOn(
  runner: InMemoryRunner,
  message: string,
  runConfig?: RunConfig,
): Promise<RunResult & { runner: InMemoryRunner; sessionId: string }> {
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const result = await runner.run({
    userId: 'u',
    sessionId: session.id,
    newMessage: message,
    ...(runConfig ? { runConfig } : {}),
  });
  return { ...result, runner, sessionId: session.id };
}

/** The finished spans as an indented outline, children in start order. */
export function outline(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = [];
  const visit = (span: ReadableSpan, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${span.name}`);
    for (const child of childrenOf(spans, span)) visit(child, depth + 1);
  };
  for (const root of spans.filter((s) => !s.parentSpanContext)) visit(root, 0);
  return lines;
}

/** The spans whose parent is `span`, in start order. */
export function childrenOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan[] {
  const order = (s: ReadableSpan): number => startIndex.get(s.spanContext().spanId) ?? Number.MAX_SAFE_INTEGER;
  return spans
    .filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)
    .sort((a, b) => order(a) - order(b));
}

/** The parent of `span` among `spans`. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  return spans.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
}

/** The one span with this name (fails when there are none or several). */
export function only(
  spans: readonly ReadableSpan[],
  name: string,
  where: (span: ReadableSpan) => boolean = () => true,
): ReadableSpan {
  const found = spans.filter((s) => s.name === name && where(s));
  if (found.length !== 1)
    throw new Error(`expected one span '${name}', found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

/** The attributes whose names start with `prefix`. */
export function withPrefix(attributes: Attributes, prefix: string): string[] {
  return Object.keys(attributes).filter((key) => key.startsWith(prefix));
}

export const OK = SpanStatusCode.UNSET;
export const ERROR = SpanStatusCode.ERROR;

/** The exception events' messages of a span. */
export function exceptionMessages(span: ReadableSpan): string[] {
  return span.events.filter((e) => e.name === 'exception').map((e) => String(e.attributes?.['exception.message']));
}

import type { BaseAgent } from '../agents/base-agent.js';
import { fanInAgentsOf, isBranchVisible } from '../agents/llm/branch-visibility.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { contentText, type Content } from '../events/content.js';
import { createEvent, type Event } from '../events/event.js';
import { isHistoryRewrite, rewoundEvents } from '../events/rewound-events.js';
import { ConfigurationError, TroupeError } from '../errors.js';
import { isBaseLlm, type BaseLlm } from '../models/base-llm.js';
import type { LlmRequest, LlmResponse } from '../models/llm-request.js';
import { resolveModel } from '../models/registry.js';
import type { Session, SessionService } from '../sessions/session.js';
import { newId } from '../utils/ids.js';
import type { Redactor } from '../utils/redact.js';
import type { SessionClaim } from './session-claim.js';
import { jsonText } from '../utils/json-text.js';
import { linkedAbortController } from '../utils/abort.js';

/**
 * `Runner({ compaction })`: summarise older events every few invocations (ADK's
 * `EventsCompactionConfig`). Model history then shows the summary in place of the events it covers.
 */
export interface CompactionOptions {
  /** Compact after this many completed invocations since the last compaction (ADK `compaction_interval`). */
  everyInvocations: number;
  /**
   * How many invocations already covered by the previous compaction the next one summarises again,
   * so consecutive summaries overlap and nothing at their edge is lost (ADK `overlap_size`).
   * @default 0
   */
  overlapInvocations?: number;
  /** The model that writes summaries (an instance or a model string). @default the root agent's model */
  summarizer?: BaseLlm | string;
  /**
   * How long the summariser may take. The finished run's session stays claimed until the
   * compaction ends, so a summariser that never answers must not hold it: after this long the
   * compaction is given up (a `COMPACTION_FAILED` event records it) and the session is free.
   * @default 120000
   */
  timeoutMs?: number;
}

/** The default `compaction.timeoutMs`. */
export const DEFAULT_COMPACTION_TIMEOUT_MS = 120_000;

/** The error code of the event stored when a compaction fails (the run it followed is unaffected). */
export const COMPACTION_FAILED = 'COMPACTION_FAILED';

/** What the summariser is asked; the transcript follows it. */
export const COMPACTION_PROMPT =
  'Summarise the conversation below between a user and AI agents. Keep the facts, names, numbers, decisions, ' +
  'tool results that matter and any open questions or tasks, so the agents can continue without the full ' +
  'transcript. Answer with the summary only.';

const COMPACTION_SETTINGS = ['everyInvocations', 'overlapInvocations', 'summarizer', 'timeoutMs'];

/** Checks `Runner({ compaction })` and answers it frozen with defaults. */
export function checkCompaction(
  appName: string,
  value: unknown,
  agent: BaseAgent,
  defaultModel: unknown,
): Readonly<CompactionOptions> | undefined {
  if (value === undefined) return undefined;
  const fail = (detail: string): ConfigurationError =>
    new ConfigurationError(
      `Runner for app '${appName}' has compaction ${jsonText(value)}: ${detail}. Use e.g. { everyInvocations: 5, overlapInvocations: 1 }.`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('it must be an object');
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!COMPACTION_SETTINGS.includes(key))
      throw fail(`'${key}' is not a compaction setting (${COMPACTION_SETTINGS.join(', ')})`);
  }
  const { everyInvocations, overlapInvocations = 0, summarizer, timeoutMs = DEFAULT_COMPACTION_TIMEOUT_MS } = options;
  if (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1)
    throw fail(`timeoutMs must be a whole number of milliseconds of at least 1; got ${JSON.stringify(timeoutMs)}`);
  if (!Number.isInteger(everyInvocations) || (everyInvocations as number) < 1)
    throw fail(`everyInvocations must be a whole number of at least 1; got ${JSON.stringify(everyInvocations)}`);
  if (!Number.isInteger(overlapInvocations) || (overlapInvocations as number) < 0)
    throw fail(`overlapInvocations must be a whole number of at least 0; got ${JSON.stringify(overlapInvocations)}`);
  if (
    summarizer !== undefined &&
    !(typeof summarizer === 'string' && summarizer.length > 0) &&
    !isBaseLlm(summarizer)
  ) {
    throw fail('summarizer must be a model string or a BaseLlm instance');
  }
  if (summarizer === undefined && !(agent instanceof LlmAgent) && defaultModel === undefined) {
    throw fail(
      `the root agent '${agent.name}' is not an LlmAgent, so it has no model to summarise with; set compaction.summarizer (or the runner's defaultModel)`,
    );
  }
  const checked: CompactionOptions = {
    everyInvocations: everyInvocations as number,
    overlapInvocations: overlapInvocations as number,
    timeoutMs: timeoutMs as number,
  };
  if (summarizer !== undefined) checked.summarizer = summarizer;
  return Object.freeze(checked);
}

/** What a compaction after a run works with. */
export interface CompactionRun {
  options: Readonly<CompactionOptions>;
  session: Session;
  sessionService: SessionService;
  /** The finished run's claim: the compaction is stored under it, before the session is given back. */
  claim: SessionClaim;
  /** The finished run's root context (for the root agent's model and the runner's default model). */
  ctx: InvocationContext;
  abortSignal: AbortSignal | undefined;
  redact: Redactor;
}

/**
 * After a completed run: when `everyInvocations` invocations finished since the last compaction,
 * summarises them (with `overlapInvocations` earlier ones) and stores one compaction event. Never
 * throws: a failure is stored as an event with `errorCode: 'COMPACTION_FAILED'` (the run itself
 * completed, and its session stays as it was); an aborted compaction stores nothing.
 */
export async function compactAfterRun(run: CompactionRun): Promise<void> {
  const { session, sessionService, claim } = run;
  let window: Event[] | undefined;
  try {
    window = compactionWindow(session.events, run.options, fanInAgentsOf(run.ctx.shared.rootAgent));
    if (!window) return;
    const model = summarizerOf(run);
    const response = await summarise(
      model,
      window,
      run.abortSignal,
      run.options.timeoutMs ?? DEFAULT_COMPACTION_TIMEOUT_MS,
    );
    if (run.abortSignal?.aborted) return;
    const summary = response.content;
    if (!summary || !contentText(summary).trim()) {
      throw new TroupeError(
        COMPACTION_FAILED,
        `The summariser '${model.model}' answered without text${response.errorMessage ? ` (${response.errorMessage})` : ''}.`,
      );
    }
    const first = window[0]!;
    const last = window[window.length - 1]!;
    const event = createEvent({
      invocationId: `compaction-${newId()}`,
      author: 'user',
      model: response.model ?? model.model,
      actions: {
        compaction: {
          startTimestamp: first.timestamp,
          endTimestamp: last.timestamp,
          summary: { role: 'model', parts: summary.parts.filter((p) => 'text' in p && !p.thought) },
          startEventId: first.id,
          endEventId: last.id,
        },
      },
    });
    if (response.usage) event.usage = response.usage;
    await sessionService.appendEvent({ session, event, lease: claim.lease });
  } catch (error) {
    if (run.abortSignal?.aborted) return;
    const message = error instanceof Error ? error.message : String(error);
    const record = createEvent({
      invocationId: `compaction-${newId()}`,
      author: 'user',
      errorCode: COMPACTION_FAILED,
      errorMessage: run.redact(
        `Compacting ${window?.length ?? 0} events failed; the session keeps them uncompacted and compaction is tried again after the next run. ${message}`,
      ),
    });
    // A store that is down or a lost lease cannot take the record either: the run stays completed.
    await sessionService.appendEvent({ session, event: record, lease: claim.lease }).catch(() => undefined);
  }
}

/** Whether an event records a compaction or a failed one (not a turn of the conversation). */
export function isCompactionRecord(event: Event): boolean {
  return event.actions.compaction !== undefined || event.errorCode === COMPACTION_FAILED;
}

/**
 * The events the next compaction summarises, or undefined when fewer than `everyInvocations`
 * invocations completed since the last one (ADK's sliding window): from `overlapInvocations`
 * invocations before the first new one to the end, rewound events and records left out, only what
 * the root agent's history shows.
 */
export function compactionWindow(
  events: readonly Event[],
  options: Readonly<CompactionOptions>,
  fanIn: ReadonlySet<string>,
): Event[] | undefined {
  if (tooFewSinceLastCompaction(events, options.everyInvocations)) return undefined;
  const rewound = rewoundEvents(events);
  let coveredUntil = -1;
  const lastIndex = new Map<string, number>();
  const order: string[] = [];
  const firstIndex = new Map<string, number>();
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (rewound.has(event)) continue;
    const compaction = event.actions.compaction;
    if (compaction) {
      const end = compaction.endEventId === undefined ? -1 : events.findIndex((e) => e.id === compaction.endEventId);
      coveredUntil = Math.max(coveredUntil, end >= 0 ? end : lastAtOrBefore(events, compaction.endTimestamp, i));
      continue;
    }
    // Turns only: a state update without content (PATCH) is no invocation to compact.
    if (isHistoryRewrite(event) || isCompactionRecord(event) || !event.content) continue;
    if (!firstIndex.has(event.invocationId)) {
      firstIndex.set(event.invocationId, i);
      order.push(event.invocationId);
    }
    lastIndex.set(event.invocationId, i);
  }
  const fresh = order.filter((id) => lastIndex.get(id)! > coveredUntil);
  if (fresh.length < options.everyInvocations) return undefined;
  const firstFresh = order.indexOf(fresh[0]!);
  const from = firstIndex.get(order[Math.max(0, firstFresh - (options.overlapInvocations ?? 0))]!)!;
  const window: Event[] = [];
  for (let i = from; i < events.length; i++) {
    const event = events[i]!;
    if (rewound.has(event) || isHistoryRewrite(event) || isCompactionRecord(event) || event.partial) continue;
    if (!event.content || event.content.parts.length === 0 || !isBranchVisible(event.branch, '', fanIn)) continue;
    window.push(event);
  }
  return window.length > 0 ? window : undefined;
}

/**
 * The common case, in time proportional to the turns since the last compaction rather than to the
 * session: walking back to the latest compaction record finds fewer new invocations than needed.
 * A rewind on the way makes the answer unsure (it may have taken that compaction back): false.
 */
function tooFewSinceLastCompaction(events: readonly Event[], everyInvocations: number): boolean {
  const seen = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.actions.rewindBeforeInvocationId !== undefined) return false;
    if (event.actions.compaction) return true;
    if (!event.content || isCompactionRecord(event)) continue;
    seen.add(event.invocationId);
    if (seen.size >= everyInvocations) return false;
  }
  return true;
}

function lastAtOrBefore(events: readonly Event[], timestamp: number, before: number): number {
  let found = -1;
  for (let i = 0; i < before; i++) if (events[i]!.timestamp <= timestamp) found = i;
  return found;
}

function summarizerOf(run: CompactionRun): BaseLlm {
  const chosen = run.options.summarizer;
  if (chosen !== undefined) return typeof chosen === 'string' ? resolveModel(chosen) : chosen;
  const root = run.ctx.shared.rootAgent;
  if (root instanceof LlmAgent) return root.canonicalModel(run.ctx);
  const fallback = run.ctx.shared.defaultModel;
  if (fallback === undefined)
    throw new ConfigurationError(
      `Compaction needs a summarizer: the root agent '${root.name}' is not an LlmAgent. Set compaction.summarizer.`,
    );
  return typeof fallback === 'string' ? resolveModel(fallback) : fallback;
}

async function summarise(
  model: BaseLlm,
  window: readonly Event[],
  abortSignal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<LlmResponse> {
  const request = {
    model: model.model,
    contents: [{ role: 'user', parts: [{ text: `${COMPACTION_PROMPT}\n\n${transcript(window)}` }] } satisfies Content],
    config: {},
  };
  const controller = linkedAbortController(abortSignal);
  const timeUp = new TroupeError(
    COMPACTION_FAILED,
    `The summariser '${model.model}' did not answer within compaction.timeoutMs (${timeoutMs} ms).`,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Given up even when the model ignores the signal: the session is claimed until this returns.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(timeUp);
      reject(timeUp);
    }, timeoutMs);
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  deadline.catch(() => undefined);
  try {
    return await Promise.race([lastResponse(model, request, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    controller.dispose();
  }
}

async function lastResponse(model: BaseLlm, request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
  let last: LlmResponse | undefined;
  for await (const response of model.generateContentAsync(request, false, signal)) {
    if (!response.partial) last = response;
  }
  if (!last) throw new TroupeError(COMPACTION_FAILED, `The summariser '${model.model}' gave no response.`);
  if (last.errorCode)
    throw new TroupeError(
      COMPACTION_FAILED,
      `The summariser '${model.model}' answered with error ${last.errorCode}: ${last.errorMessage ?? ''}`,
    );
  return last;
}

/** The events as lines the summariser reads: who said, called or got what. */
function transcript(events: readonly Event[]): string {
  const lines: string[] = [];
  for (const event of events) {
    for (const part of event.content!.parts) {
      if ('text' in part) {
        if (!part.thought && part.text) lines.push(`${event.author}: ${part.text}`);
      } else if ('functionCall' in part) {
        lines.push(
          `${event.author} called tool '${part.functionCall.name}' with ${JSON.stringify(part.functionCall.args ?? {})}`,
        );
      } else if ('functionResponse' in part) {
        lines.push(
          `tool '${part.functionResponse.name}' returned ${JSON.stringify(part.functionResponse.response ?? {})}`,
        );
      } else {
        lines.push(`${event.author}: [${part.inlineData.mimeType} data]`);
      }
    }
  }
  return lines.join('\n');
}

import type { Part, WireEvent } from '../types.js';
import { isResumeRecord, resumeAnswers } from './interrupts.js';
import { type KindOf, workflowProgress, type WorkflowProgress } from './workflow-progress.js';

/** One thing an event says, as the event list shows it. */
export type EventFact =
  | { kind: 'text'; text: string }
  | { kind: 'thought'; text: string }
  | { kind: 'call'; id: string; name: string; args: Record<string, unknown> }
  | { kind: 'result'; id: string; name: string; response: Record<string, unknown> }
  | { kind: 'data'; mimeType: string; bytes: number; data: string }
  | { kind: 'transfer'; to: string }
  | { kind: 'route'; key: string; reason?: string }
  | { kind: 'escalate' }
  | { kind: 'state'; keys: string[] }
  | { kind: 'output'; value: unknown }
  | { kind: 'usage'; input: number; output: number; cached?: number; thought?: number }
  | { kind: 'error'; code: string; message: string }
  /** A guardrail's tripwire blocked the run (`GUARDRAIL_TRIPPED`); `guardrail` is its name when the message gives it. */
  | { kind: 'blocked'; guardrail: string | undefined; message: string }
  | {
      kind: 'interrupt';
      interruptKind: 'confirmation' | 'input';
      toolName: string;
      args: Record<string, unknown>;
      prompt: string;
    }
  | { kind: 'answers'; answers: Record<string, unknown> }
  /** A custom event (`ctx.emit(name, data)`): the app's own progress or data. */
  | { kind: 'custom'; name: string; data: unknown }
  /** A workflow or pattern agent's progress: a loop iteration, a plan step, a stop reason, parallel branches. */
  | ({ kind: 'progress' } & WorkflowProgress);

/** What one event says, in the order the list shows it; `kindOf` names the kind of its author (for its progress words). */
export function eventFacts(event: WireEvent, kindOf?: KindOf): EventFact[] {
  const facts: EventFact[] = [];
  const adkForm = event.interrupt !== undefined || isResumeRecord(event);
  for (const part of event.content?.parts ?? []) {
    // The server adds ADK's form of a confirmation and of its answer for ADK clients; the
    // interrupt and answers facts below say the same.
    if (adkForm && isAdkConfirmation(part)) continue;
    const fact = partFact(part);
    if (fact) facts.push(fact);
  }
  if (event.customEvent) facts.push({ kind: 'custom', name: event.customEvent.name, data: event.customEvent.data });
  const actions = event.actions;
  if (actions.transferToAgent) facts.push({ kind: 'transfer', to: actions.transferToAgent });
  if (actions.route)
    facts.push({
      kind: 'route',
      key: actions.route.key,
      ...(actions.route.reason === undefined ? {} : { reason: actions.route.reason }),
    });
  if (actions.escalate) facts.push({ kind: 'escalate' });
  const stateKeys = Object.keys(actions.stateDelta ?? {});
  if (stateKeys.length > 0) facts.push({ kind: 'state', keys: stateKeys });
  if (event.output !== undefined) facts.push({ kind: 'output', value: event.output });
  if (event.interrupt) {
    const i = event.interrupt;
    facts.push({
      kind: 'interrupt',
      interruptKind: i.kind,
      toolName: i.toolName,
      args: i.args,
      prompt: i.message ?? i.hint ?? '',
    });
  }
  if (isResumeRecord(event)) facts.push({ kind: 'answers', answers: resumeAnswers(event) });
  const progress = workflowProgress(event, kindOf);
  if (progress) facts.push({ kind: 'progress', ...progress });
  if (event.usage) {
    const u = event.usage;
    facts.push({
      kind: 'usage',
      input: u.inputTokens,
      output: u.outputTokens,
      ...(u.cachedTokens ? { cached: u.cachedTokens } : {}),
      ...(u.thoughtTokens ? { thought: u.thoughtTokens } : {}),
    });
  }
  if (event.errorCode === 'GUARDRAIL_TRIPPED') facts.push(blockedFact(event.errorMessage ?? ''));
  else if (event.errorCode !== undefined || event.errorMessage !== undefined)
    facts.push({ kind: 'error', code: event.errorCode ?? 'ERROR', message: event.errorMessage ?? '' });
  return facts;
}

/** The runner's message for a tripwire starts with `Guardrail '<name>' tripped on …`. */
function blockedFact(message: string): EventFact {
  const name = /^Guardrail '([^']+)'/.exec(message)?.[1];
  return { kind: 'blocked', guardrail: name, message };
}

/** The headline of a blocked run: "Blocked by guardrail 'no_pii'". */
export function blockedTitle(fact: { guardrail: string | undefined }): string {
  return fact.guardrail === undefined ? 'Blocked by a guardrail' : `Blocked by guardrail '${fact.guardrail}'`;
}

/** ADK's `adk_request_confirmation` or `adk_request_input` call or response: the interrupt and its answer say it already. */
function isAdkConfirmation(part: Part): boolean {
  const name =
    'functionCall' in part
      ? part.functionCall.name
      : 'functionResponse' in part
        ? part.functionResponse.name
        : undefined;
  return name === 'adk_request_confirmation' || name === 'adk_request_input';
}

function partFact(part: Part): EventFact | undefined {
  if ('text' in part)
    return part.text === '' ? undefined : { kind: part.thought ? 'thought' : 'text', text: part.text };
  if ('functionCall' in part) return { kind: 'call', ...part.functionCall };
  if ('functionResponse' in part) return { kind: 'result', ...part.functionResponse };
  if ('inlineData' in part)
    return {
      kind: 'data',
      mimeType: part.inlineData.mimeType,
      bytes: Math.floor((part.inlineData.data.length * 3) / 4),
      data: part.inlineData.data,
    };
  return undefined;
}

/** A value as short, one-line JSON for lists; the full value is in the event's JSON. */
export function compactJson(value: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

import { createEvent, type Event, textOf } from '@troupe/core';
import { encodeEvent } from '@troupe/server';
import { BranchFloor } from './branch-floor.js';
import type { CliIo } from './io.js';
import { finishRender, initialRenderState, renderEvent, type RenderState } from './render-events.js';
import type { Spinner } from './spinner.js';
import { PLAIN_STYLE, type TextStyle } from './terminal-style.js';
import { nodeEnd, nodeStart } from './workflow-nodes.js';

/** Where the events of a turn are shown. The CLI's output layer: the only code that writes them. */
export interface EventSink {
  /** A turn starts (before its first event). */
  beginTurn?(): void;
  /** Shows one event (partial streaming chunks included). */
  write(event: Event): void;
  /** The run's output, once it completed: shown when no event showed it already (a structured output). */
  showOutput?(output: unknown): void;
  /** Ends the output of a turn. */
  endTurn(): void;
  /** True when error events are shown on stderr, so the caller need not repeat them there. */
  readonly errorsOnStderr: boolean;
}

/** How the transcript looks on a terminal. */
export interface TranscriptOptions {
  /** Colours of stdout (see `styleFor`). @default no colour */
  style?: TextStyle;
  /** Colours of the error lines on stderr. @default no colour */
  errorStyle?: TextStyle;
  /** A progress line on stderr while a turn runs (terminals only). */
  spinner?: Spinner;
  /** The kind of each agent by name, for the words of its progress records (see `RenderOptions.agentKind`). */
  agentKind?: (author: string) => string | undefined;
}

/**
 * The human transcript: streamed text, speakers, tool calls and results on stdout; errors on
 * stderr. Branches that run at the same time take turns (see {@link BranchFloor}): one streams,
 * the others are shown whole once it is done, each under its agent's name (with the item number
 * of a team's item, `chat[1]:`). A structured output (a team's result) is shown as pretty JSON,
 * unless a workflow node printed it already (`[merge] {...}`).
 */
export function transcriptSink(io: CliIo, options: TranscriptOptions = {}): EventSink {
  const style = options.style ?? PLAIN_STYLE;
  const errorStyle = options.errorStyle ?? PLAIN_STYLE;
  const spinner = options.spinner;
  const render = { style, ...(options.agentKind ? { agentKind: options.agentKind } : {}) };
  let state: RenderState = initialRenderState;
  let floor = new BranchFloor();
  let shownTexts = new Set<string>();
  let shownOutputs = new Set<string>();
  let lastOutput: Event | undefined;
  const show = (event: Event): void => {
    const out = renderEvent(labelled(event), state, render);
    state = out.state;
    if (!event.partial) {
      const text = textOf(event);
      if (text) shownTexts.add(text.trim());
      if (event.output !== undefined) lastOutput = event;
      const ended = nodeEnd(event);
      if (ended) shownOutputs.add(JSON.stringify(ended.output));
    }
    if (out.text || out.error) spinner?.clear();
    if (out.text) io.stdout.write(out.text);
    if (out.error) io.stderr.write(`${errorStyle.paint('error', out.error)}\n`);
    // The spinner shares the terminal's line: it waits while streamed text is mid-line.
    spinner?.hold(state.cursor !== 'none');
  };
  return {
    errorsOnStderr: true,
    beginTurn() {
      spinner?.start();
    },
    write(event) {
      const starting = nodeStart(event);
      if (starting !== undefined) spinner?.update({ agent: starting });
      for (const ready of floor.push(event)) show(ready);
    },
    showOutput(output) {
      for (const ready of floor.finish()) show(ready);
      if (!needsShowing(output, shownTexts) || shownOutputs.has(JSON.stringify(output))) return;
      const author = lastOutput?.author || 'output';
      show(createEvent({ author, content: { role: 'model', parts: [{ text: JSON.stringify(output, null, 2) }] } }));
    },
    endTurn() {
      for (const ready of floor.finish()) show(ready);
      spinner?.stop();
      io.stdout.write(finishRender(state).text);
      // Each turn names its first speaker again, after the user's line.
      state = initialRenderState;
      floor = new BranchFloor();
      shownTexts = new Set();
      shownOutputs = new Set();
      lastOutput = undefined;
    },
  };
}

/**
 * One JSON line per stored (non-partial) event on stdout, nothing else there; for scripts. Events
 * are written as the HTTP API sends them (`encodeEvent`: `timestamp` in seconds since the epoch),
 * the user's own message included (see {@link EventSink}'s callers: the run command passes it in).
 */
export function jsonLinesSink(io: CliIo): EventSink {
  return {
    errorsOnStderr: false,
    write(event) {
      if (event.partial) return;
      io.stdout.write(`${JSON.stringify(encodeEvent(event))}\n`);
    },
    endTurn() {},
  };
}

/**
 * A structured output is shown unless it is text, or only gathers texts the transcript showed
 * already (a ParallelAgent's map of its children's answers).
 */
function needsShowing(output: unknown, shown: ReadonlySet<string>): boolean {
  if (output === undefined || output === null || typeof output !== 'object') return false;
  const values = Array.isArray(output) ? output : Object.values(output);
  return !(values.length > 0 && values.every((value) => typeof value === 'string' && shown.has(value.trim())));
}

/** The event with its author labelled by item when it runs on a team's item branch (`chat[1]`). */
function labelled(event: Event): Event {
  const last = event.branch.slice(event.branch.lastIndexOf('.') + 1);
  return last.startsWith(`${event.author}[`) && last.endsWith(']') ? { ...event, author: last } : event;
}

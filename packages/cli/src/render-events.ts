import { describeProgress, type Event, getFunctionCalls, getFunctionResponses, textOf } from '@troupe/core';
import { PLAIN_STYLE, type TextStyle } from './terminal-style.js';
import { isNodeRequest, nodeEnd, nodeName, nodeRunKey, outputText, saysOutput } from './workflow-nodes.js';

/** The name of core's transfer tool; its call and result are shown as one "transferred" line. */
const TRANSFER_TOOL = 'transfer_to_agent';

/**
 * Where the transcript stands between two events. Treat it as opaque: start from
 * {@link initialRenderState} and pass back the state each call returns.
 */
export interface RenderState {
  /** The agent whose name was printed last. */
  readonly speaker: string | undefined;
  /** `none`: at the start of a line; `prefix`: after a name or an indent; `text`: after text. */
  readonly cursor: 'none' | 'prefix' | 'text';
  /** Text of the speaker streamed in partial events that no final event has confirmed yet. */
  readonly streamed: string;
  /** The last text each open workflow node run showed (by `path#runId`), so its output is not printed twice. */
  readonly nodeTexts: Readonly<Record<string, string>>;
}

/** What rendering one event produced. */
export interface RenderOutput {
  /** Transcript text for stdout, possibly without a final newline while text is streaming. */
  text: string;
  /** A line for stderr when the event reports an error. */
  error: string | undefined;
  state: RenderState;
}

/** Limits of the transcript. */
export interface RenderOptions {
  /** Tool call arguments (JSON) longer than this are cut. @default 200 */
  maxArgsLength?: number;
  /** Tool results (JSON) longer than this are cut. @default 120 */
  maxResultLength?: number;
  /** Colours agent names, tool lines, transfers and pauses (see `styleFor`). @default no colour */
  style?: TextStyle;
  /**
   * The kind of the agent named `author` (`BaseAgent.kind`, e.g. from `rootAgent.findAgent(author)`),
   * for the words of its progress records: a loop and a plan both stop on `maxIterations`.
   * @default the record's shape alone decides
   */
  agentKind?: (author: string) => string | undefined;
}

/** The state before the first event of a turn. */
export const initialRenderState: RenderState = Object.freeze({
  speaker: undefined,
  cursor: 'none',
  streamed: '',
  nodeTexts: Object.freeze({}),
});

/**
 * Renders one event as terminal transcript text: the speaking agent's name when it changes
 * (`Weather: ...`, later lines indented under it), streamed text as it arrives, tool calls
 * (`→ name {args}`), short tool results (`← name: {...}`), transfers (`⇢ transferred to X`),
 * interrupts, custom events (`◦ name {data}`, dimmed), and the workflow and pattern agents' progress in words (`· Loop stopped: escalated
 * after 2 iterations`, `· Plan answered after 3 steps`; see core's `describeProgress`). A graph
 * workflow's nodes print their outputs on lines of their own, `[classify] question` (text as it is,
 * anything else as compact JSON), named by their path in the workflow (`tally.count`); an agent
 * node whose output is the text it just showed is not printed again. Errors come back
 * separately, for stderr. A pure function: no output, no clock.
 *
 * @example
 * let state = initialRenderState;
 * for await (const event of runner.runAsync(params)) {
 *   const out = renderEvent(event, state);
 *   process.stdout.write(out.text);
 *   if (out.error) process.stderr.write(out.error + '\n');
 *   state = out.state;
 * }
 * process.stdout.write(finishRender(state).text);
 */
export function renderEvent(event: Event, state: RenderState, options: RenderOptions = {}): RenderOutput {
  const maxArgs = options.maxArgsLength ?? 200;
  const maxResult = options.maxResultLength ?? 120;
  const style = options.style ?? PLAIN_STYLE;
  const w = new TranscriptWriter(state, style);
  const author = event.author || 'agent';
  if (author === 'user') return { text: '', error: undefined, state };

  const text = textOf(event);
  if (event.partial) {
    if (text) w.stream(author, text);
    return w.output(undefined);
  }
  if (text) {
    w.finalText(author, text);
    const run = nodeRunKey(event);
    if (run) w.nodeShowed(run, text);
  }
  for (const call of getFunctionCalls(event)) {
    if (call.name === TRANSFER_TOOL) continue;
    w.line(author, style.paint('tool', `→ ${call.name} ${cut(JSON.stringify(call.args ?? {}), maxArgs)}`));
  }
  for (const response of getFunctionResponses(event)) {
    const failedTransfer = response.name === TRANSFER_TOOL && 'error' in response.response;
    if (response.name === TRANSFER_TOOL && !failedTransfer) continue;
    w.line(author, style.paint('tool', `← ${response.name}: ${cut(JSON.stringify(response.response), maxResult)}`));
  }
  if (event.actions.transferToAgent)
    w.line(author, style.paint('muted', `⇢ transferred to ${event.actions.transferToAgent}`));
  const asker = event.interrupt && isNodeRequest(event.interrupt) ? nodeName(event.nodeInfo?.path ?? '') : undefined;
  if (event.interrupt && asker !== undefined) {
    const { message } = event.interrupt;
    w.nodeLine(asker, author, style.paint('approval', `⏸ waits for input${message ? `: ${message}` : ''}`));
  } else if (event.interrupt) {
    const { kind, toolName, hint, message } = event.interrupt;
    const detail = hint ?? message;
    w.line(
      author,
      style.paint(
        'approval',
        `⏸ ${toolName} waits for ${kind === 'confirmation' ? 'confirmation' : 'input'}${detail ? `: ${detail}` : ''}`,
      ),
    );
  }
  // ctx.emit's events, dimmed: the app's own progress, not part of the conversation.
  if (event.customEvent) {
    const { name, data } = event.customEvent;
    w.line(
      author,
      style.paint('muted', `◦ ${name}${data === undefined ? '' : ` ${cut(JSON.stringify(data), maxResult)}`}`),
    );
  }
  const progress = describeProgress(event.actions.agentState, options.agentKind?.(author));
  if (progress) w.line(author, style.paint('muted', `· ${progress.text}`));
  const ended = nodeEnd(event);
  if (ended) {
    const shown = w.nodeEnded(ended.key);
    // An agent node's output is usually the answer it just showed (or its JSON): say it once.
    if (shown === undefined || !saysOutput(shown, ended.output))
      w.nodeLine(ended.name, author, outputText(ended.output));
  }
  let error: string | undefined;
  if (event.errorCode !== undefined || event.errorMessage !== undefined) {
    w.endLine();
    // Uncoloured: it goes to stderr, which the caller colours (or not) on its own terms.
    error =
      event.errorCode === 'GUARDRAIL_TRIPPED'
        ? `⛔ ${author}: blocked by a guardrail. ${event.errorMessage ?? ''}`.trimEnd()
        : `✖ ${author}: ${event.errorMessage ?? 'failed'}${event.errorCode ? ` (${event.errorCode})` : ''}`;
  }
  return w.output(error);
}

/** Ends the transcript of a turn: closes a line left open by streamed text. */
export function finishRender(state: RenderState): { text: string; state: RenderState } {
  const w = new TranscriptWriter(state, PLAIN_STYLE);
  w.endLine();
  const { text } = w.output(undefined);
  return { text, state: { ...initialRenderState, speaker: state.speaker } };
}

/** Builds the text for one event from a state; local to this module, never writes anywhere. */
class TranscriptWriter {
  private text = '';
  private speaker: string | undefined;
  private cursor: RenderState['cursor'];
  private streamed: string;
  private nodeTexts: Readonly<Record<string, string>>;

  constructor(
    state: RenderState,
    private readonly style: TextStyle,
  ) {
    this.speaker = state.speaker;
    this.cursor = state.cursor;
    this.streamed = state.streamed;
    this.nodeTexts = state.nodeTexts;
  }

  /** A whole line of content for `author`. */
  line(author: string, content: string): void {
    this.confirmStreamed();
    this.begin(author);
    this.write(content);
    this.text += '\n';
    this.cursor = 'none';
  }

  /**
   * A line of a workflow node, `[name] content`, on its own: no speaker is named before it, and
   * the next speaker is named again after it. `colourOf` keeps the node's colour its agent's.
   */
  nodeLine(name: string, colourOf: string, content: string): void {
    this.confirmStreamed();
    this.endLine();
    const label = `[${name}]`;
    const indent = ' '.repeat(label.length + 1);
    this.text += `${this.style.paint('agent', label, colourOf)} ${content.replace(/\n+$/, '').replace(/\n(?=.)/g, `\n${indent}`)}\n`;
    this.speaker = undefined;
  }

  /** Remembers the last text a node run showed. */
  nodeShowed(run: string, text: string): void {
    this.nodeTexts = { ...this.nodeTexts, [run]: text };
  }

  /** Forgets a node run that ended; returns the last text it showed. */
  nodeEnded(run: string): string | undefined {
    const { [run]: shown, ...rest } = this.nodeTexts;
    this.nodeTexts = rest;
    return shown;
  }

  /** A chunk of streamed text, continued on the current line. */
  stream(author: string, chunk: string): void {
    if (this.speaker !== author || this.cursor === 'none') this.begin(author);
    this.write(chunk);
    this.cursor = chunk.endsWith('\n') ? 'none' : 'text';
    this.streamed += chunk;
  }

  /** The complete text of a response, which repeats what was streamed when streaming is on. */
  finalText(author: string, text: string): void {
    if (this.speaker === author && this.streamed !== '' && this.streamed.trim() === text.trim()) {
      this.confirmStreamed();
      return;
    }
    this.line(author, text.replace(/\n+$/, ''));
  }

  endLine(): void {
    if (this.cursor !== 'none') this.text += '\n';
    this.cursor = 'none';
    this.streamed = '';
  }

  output(error: string | undefined): RenderOutput {
    const state = { speaker: this.speaker, cursor: this.cursor, streamed: this.streamed, nodeTexts: this.nodeTexts };
    return { text: this.text, error, state };
  }

  private confirmStreamed(): void {
    if (this.streamed !== '') this.endLine();
  }

  /** Positions the cursor for new content of `author`: its name when the speaker changes, else an indent. */
  private begin(author: string): void {
    if (this.speaker !== author) {
      if (this.cursor !== 'none') this.text += '\n';
      this.text += `${this.style.paint('agent', `${author}:`, author)} `;
      this.speaker = author;
      this.streamed = '';
    } else if (this.cursor === 'text') {
      this.text += `\n${this.indent()}`;
    } else if (this.cursor === 'none') {
      this.text += this.indent();
    }
    this.cursor = 'prefix';
  }

  /** Writes content, indenting the lines after its first under the speaker's name. */
  private write(content: string): void {
    this.text += content.replace(/\n(?=.)/g, `\n${this.indent()}`);
  }

  private indent(): string {
    return ' '.repeat((this.speaker?.length ?? 0) + 2);
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

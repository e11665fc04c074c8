import { TaskState, type Message, type Part as A2aPart, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Content, Part } from '@troupe/core';
import { readParts } from './remote-parts.js';

/** Text that arrived with one update: answer text, and progress text (shown as a thought). */
export interface Delta {
  text: string;
  thought: string;
}

/** The remote's answer, as Troupe content and output. */
export interface RemoteAnswer {
  content: Content | undefined;
  /** The answer's text; its data when it has no text (one value, or a list). */
  output: unknown;
}

const SETTLED = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/**
 * What the client knows of one remote task, built from the updates of a stream, a blocking reply
 * or a `tasks/get` snapshot: ids, state, the latest status message and the artifacts (chunks
 * appended, replacements replaced, as A2A says).
 */
export class TaskView {
  taskId = '';
  contextId = '';
  state: TaskState = TaskState.TASK_STATE_UNSPECIFIED;
  /** The latest status message (the question of `input-required`, the reason of `failed`...). */
  statusMessage: Message | undefined;
  statusTimestamp = '';
  /** The remote answered with a message instead of a task. */
  reply: Message | undefined;
  private readonly artifacts = new Map<string, A2aPart[]>();
  /** The last progress message of a working task, for an answer that has nothing else. */
  private progress: Message | undefined;

  /** The task reached a state where nothing more arrives until the client acts. */
  get settled(): boolean {
    return this.reply !== undefined || SETTLED.has(this.state);
  }

  /** Applies one update and returns the text it added. */
  apply(update: StreamResponse): Delta {
    const payload = update.payload;
    if (!payload) return NO_DELTA;
    switch (payload.$case) {
      case 'task':
        this.snapshot(payload.value);
        return NO_DELTA;
      case 'message':
        this.reply = payload.value;
        if (payload.value.taskId) this.taskId = payload.value.taskId;
        if (payload.value.contextId) this.contextId = payload.value.contextId;
        return NO_DELTA;
      case 'statusUpdate': {
        const { taskId, contextId, status } = payload.value;
        this.ids(taskId, contextId);
        if (!status) return NO_DELTA;
        this.state = status.state;
        this.statusTimestamp = status.timestamp ?? '';
        this.statusMessage = status.message;
        if (status.state !== TaskState.TASK_STATE_WORKING || !status.message) return NO_DELTA;
        this.progress = status.message;
        const read = readParts(status.message.parts);
        return { text: '', thought: read.thought + read.text };
      }
      case 'artifactUpdate': {
        const { taskId, contextId, artifact, append } = payload.value;
        this.ids(taskId, contextId);
        if (!artifact) return NO_DELTA;
        const before = this.artifacts.get(artifact.artifactId);
        const beforeText = before ? readParts(before).text : '';
        const parts = append && before ? [...before, ...artifact.parts] : artifact.parts;
        this.artifacts.set(artifact.artifactId, parts);
        const afterText = readParts(parts).text;
        // A replacement that repeats the streamed chunks (ADK sends the whole text last) adds nothing new.
        return { text: afterText.startsWith(beforeText) ? afterText.slice(beforeText.length) : '', thought: '' };
      }
      default:
        payload satisfies never;
        return NO_DELTA;
    }
  }

  /** Which remote status asked the current question: its message id, else its time. */
  get statusKey(): string {
    return this.statusMessage?.messageId || this.statusTimestamp;
  }

  /** The text of the latest status message, e.g. the remote's question or its failure. */
  get statusText(): string {
    return this.statusMessage ? readParts(this.statusMessage.parts).text.trim() : '';
  }

  /** The answer: the artifacts' text (one artifact per line), else the reply's or final status's, else the last progress message. */
  answer(): RemoteAnswer {
    const sources = this.reply ? [this.reply.parts] : [...this.artifacts.values()];
    let read = collect(sources);
    if (!read.text && read.data.length === 0 && read.files.length === 0) {
      const fallback = this.statusMessage ?? this.progress;
      if (fallback) read = collect([fallback.parts]);
    }
    const output =
      read.text !== '' || read.data.length === 0 ? read.text : read.data.length === 1 ? read.data[0] : read.data;
    const parts: Part[] = [];
    if (read.text) parts.push({ text: read.text });
    else if (read.data.length > 0) parts.push({ text: JSON.stringify(output) });
    parts.push(...read.files);
    return { content: parts.length > 0 ? { role: 'model', parts } : undefined, output };
  }

  private snapshot(task: Task): void {
    this.ids(task.id, task.contextId);
    if (task.status) {
      this.state = task.status.state;
      this.statusTimestamp = task.status.timestamp ?? '';
      this.statusMessage = task.status.message;
    }
    // A snapshot holds every artifact so far; it replaces what the stream built.
    const artifacts = task.artifacts ?? [];
    if (artifacts.length > 0 || this.artifacts.size === 0) {
      this.artifacts.clear();
      for (const artifact of artifacts) this.artifacts.set(artifact.artifactId, artifact.parts);
    }
  }

  private ids(taskId: string, contextId: string): void {
    if (taskId) this.taskId = taskId;
    if (contextId) this.contextId = contextId;
  }
}

const NO_DELTA: Delta = Object.freeze({ text: '', thought: '' });

function collect(sources: readonly (readonly A2aPart[])[]) {
  const texts: string[] = [];
  const data: unknown[] = [];
  const files: Part[] = [];
  for (const parts of sources) {
    const read = readParts(parts);
    if (read.text) texts.push(read.text);
    data.push(...read.data);
    files.push(...read.files);
  }
  return { text: texts.join('\n'), data, files };
}

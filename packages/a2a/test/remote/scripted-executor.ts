// An A2A AgentExecutor driven by a test script: each request to the server runs the script with a
// Turn that publishes what a real agent would (task, progress, artifact chunks, questions, endings)
// through the SDK's event bus, and that knows when the client canceled the task.
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Message, type Part, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';

export type Script = (turn: Turn) => Promise<void>;

/** What the server received in one request. */
export interface ReceivedTurn {
  taskId: string;
  contextId: string;
  /** The text parts of the user's message, joined by newlines. */
  text: string;
  /** The data parts of the user's message. */
  data: unknown[];
  /** The request continued an existing task (an answer to a question). */
  followUp: boolean;
}

export class ScriptedExecutor implements AgentExecutor {
  readonly received: ReceivedTurn[] = [];
  readonly canceled: string[] = [];
  private readonly cancels = new Map<string, AbortController>();

  constructor(private readonly script: Script) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const controller = new AbortController();
    this.cancels.set(request.taskId, controller);
    const turn = new Turn(request, bus, controller.signal);
    this.received.push({
      taskId: request.taskId,
      contextId: request.contextId,
      text: turn.text,
      data: turn.data,
      followUp: turn.followUp,
    });
    try {
      await this.script(turn);
    } catch (error) {
      if (controller.signal.aborted) turn.status(TaskState.TASK_STATE_CANCELED, 'Canceled by the client.');
      else turn.status(TaskState.TASK_STATE_FAILED, `The script failed: ${String(error)}`);
    } finally {
      this.cancels.delete(request.taskId);
    }
  }

  cancelTask = async (taskId: string): Promise<void> => {
    this.canceled.push(taskId);
    this.cancels.get(taskId)?.abort(new Error('canceled'));
  };
}

export class Turn {
  readonly taskId: string;
  readonly contextId: string;
  readonly text: string;
  readonly data: unknown[];
  /** The request continues an existing task (it answers a question). */
  readonly followUp: boolean;

  constructor(
    private readonly request: RequestContext,
    private readonly bus: ExecutionEventBus,
    /** Aborted when the client cancels the task. */
    readonly signal: AbortSignal,
  ) {
    this.taskId = request.taskId;
    this.contextId = request.contextId;
    this.followUp = request.task !== undefined;
    const parts = request.userMessage.parts;
    this.text = parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
    this.data = parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
  }

  /** Publishes the task (every request must start with it) and the working state. */
  open(progress?: string): void {
    this.bus.publish(
      AgentEvent.task(
        this.request.task ?? {
          id: this.taskId,
          contextId: this.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [this.request.userMessage],
          metadata: undefined,
        },
      ),
    );
    this.status(TaskState.TASK_STATE_WORKING, progress);
  }

  /** One chunk of the answer artifact (appended to the chunks before it). */
  chunk(text: string, artifactId = 'answer'): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: {
          artifactId,
          name: 'answer',
          description: '',
          parts: [text_(text)],
          metadata: undefined,
          extensions: [],
        },
        append: true,
        lastChunk: false,
        metadata: undefined,
      }),
    );
  }

  /** A whole artifact (replacing one of the same id), e.g. data. */
  artifact(parts: Part[], artifactId = 'answer'): void {
    this.bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.taskId,
        contextId: this.contextId,
        artifact: { artifactId, name: 'answer', description: '', parts, metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }

  complete(text?: string): void {
    this.status(TaskState.TASK_STATE_COMPLETED, text);
  }

  /** input-required, with a question and, optionally, data parts. */
  ask(text: string, data: unknown[] = []): void {
    this.status(TaskState.TASK_STATE_INPUT_REQUIRED, text, data);
  }

  status(state: TaskState, text?: string, data: unknown[] = []): void {
    const parts = [...(text === undefined ? [] : [text_(text)]), ...data.map(data_)];
    const update: TaskStatusUpdateEvent = {
      taskId: this.taskId,
      contextId: this.contextId,
      status: { state, timestamp: new Date().toISOString(), message: parts.length ? this.message(parts) : undefined },
      metadata: undefined,
    };
    this.bus.publish(AgentEvent.statusUpdate(update));
  }

  /** Waits for `promise`, or throws once the client cancels the task. */
  async until<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        if (this.signal.aborted) reject(this.signal.reason as Error);
        this.signal.addEventListener('abort', () => reject(this.signal.reason as Error), { once: true });
      }),
    ]);
  }

  private message(parts: Part[]): Message {
    return {
      messageId: randomUUID(),
      contextId: this.contextId,
      taskId: this.taskId,
      role: Role.ROLE_AGENT,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
  }
}

function text_(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function data_(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A promise with its resolve, to hold a script at a point until the test lets it go on. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A script that streams 'First half, ', waits for `release`, then streams 'second half.' and completes. */
export function twoHalves(release: Promise<void>): Script {
  return async (turn) => {
    turn.open();
    turn.chunk('First half, ');
    await turn.until(release);
    turn.chunk('second half.');
    turn.complete();
  };
}

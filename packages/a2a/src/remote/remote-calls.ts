import type { Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import type { RequestOptions } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { InvocationContext } from '@troupe/core';
import type { RemoteConnection } from './remote-connection.js';
import { RemoteA2aError, requestError, type RemoteA2aErrorDetails } from './remote-errors.js';
import type { ResolvedRemoteOptions } from './remote-options.js';

/** Longest pause between two `tasks/get` polls of a remote that cannot stream. */
const MAX_POLL_MS = 5_000;
/** A cancel is a courtesy on the way out: it is not waited for longer than this. */
const CANCEL_TIMEOUT_MS = 10_000;

/**
 * The calls one invocation makes to a remote agent, through the SDK client: each with the
 * configured headers, bounded by `timeoutMs` (for a stream: the longest silence between two
 * updates), stopped by the run's abort signal, and failing with a {@link RemoteA2aError}.
 */
export class RemoteCalls {
  constructor(
    private readonly conn: RemoteConnection,
    private readonly options: ResolvedRemoteOptions,
    private readonly ctx: InvocationContext,
    private readonly details: () => RemoteA2aErrorDetails,
  ) {}

  /** Sends a message: as a stream when the card says the agent streams, else one blocking call. */
  send(request: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    if (this.conn.streaming)
      return this.stream('message/stream', (o) => this.conn.client.sendMessageStream(request, o));
    return this.once('message/send', async (o) => reply(await this.conn.client.sendMessage(request, o)));
  }

  /**
   * Follows a task this run did not see finish (after a crash, a drain, or a stream that ended
   * early): its snapshot, then its updates (resubscribe) or, for agents that cannot stream,
   * snapshots polled with a growing pause. The caller stops iterating once the task settled.
   */
  async *follow(taskId: string): AsyncGenerator<StreamResponse, void, undefined> {
    let pause = 250;
    let last = '';
    let unchangedSince = Date.now();
    for (;;) {
      const task = await this.getTask(taskId);
      const key = `${task.status?.state}|${task.status?.timestamp}|${task.artifacts?.length}`;
      if (key !== last) [last, unchangedSince] = [key, Date.now()];
      else if (Date.now() - unchangedSince > this.options.timeoutMs) throw this.timeout('tasks/get');
      yield { payload: { $case: 'task', value: task } };
      if (this.conn.streaming) {
        try {
          yield* this.stream('tasks/resubscribe', (o) =>
            this.conn.client.resubscribeTask({ tenant: '', id: taskId }, o),
          );
        } catch (error) {
          // Refused (e.g. the task settled meanwhile): the next snapshot tells; a real failure recurs there.
          if (this.ctx.abortSignal.aborted || (error instanceof RemoteA2aError && error.code === 'A2A_TIMEOUT'))
            throw error;
        }
      }
      await sleep(pause, this.ctx.abortSignal);
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  }

  async getTask(taskId: string): Promise<Task> {
    return this.request('tasks/get', (o) => this.conn.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, o));
  }

  /** Cancels a task; one that already ended cannot be canceled and needs not be. */
  async cancel(taskId: string): Promise<void> {
    const options: RequestOptions = {
      signal: AbortSignal.timeout(Math.min(this.options.timeoutMs, CANCEL_TIMEOUT_MS)),
      serviceParameters: await this.options.headers(this.ctx),
    };
    try {
      await this.conn.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, options);
    } catch (error) {
      if (error instanceof TaskNotCancelableError) return;
      throw requestError(this.details(), 'tasks/cancel', error);
    }
  }

  private async request<T>(operation: string, call: (options: RequestOptions) => Promise<T>): Promise<T> {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), this.options.timeoutMs);
    try {
      return await call({
        signal: AbortSignal.any([this.ctx.abortSignal, timer.signal]),
        serviceParameters: await this.options.headers(this.ctx),
      });
    } catch (error) {
      throw this.failure(operation, error, timer.signal.aborted);
    } finally {
      clearTimeout(timeout);
    }
  }

  private async *once(
    operation: string,
    call: (options: RequestOptions) => Promise<StreamResponse>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    yield await this.request(operation, call);
  }

  private async *stream(
    operation: string,
    open: (options: RequestOptions) => AsyncGenerator<StreamResponse, void, undefined>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const timer = new AbortController();
    let timeout: NodeJS.Timeout | undefined;
    const arm = () => (timeout = setTimeout(() => timer.abort(), this.options.timeoutMs));
    try {
      arm();
      const updates = open({
        signal: AbortSignal.any([this.ctx.abortSignal, timer.signal]),
        serviceParameters: await this.options.headers(this.ctx),
      });
      for await (const update of updates) {
        // The remote's silence is timed, not the time the run takes to store and pass on an update.
        clearTimeout(timeout);
        yield update;
        arm();
      }
    } catch (error) {
      throw this.failure(operation, error, timer.signal.aborted);
    } finally {
      clearTimeout(timeout);
    }
  }

  private failure(operation: string, error: unknown, timedOut: boolean): unknown {
    if (this.ctx.abortSignal.aborted) return this.ctx.abortSignal.reason;
    if (timedOut) return this.timeout(operation);
    if (error instanceof TaskNotFoundError) {
      return new RemoteA2aError(
        'A2A_TASK_LOST',
        this.details(),
        `${operation}: the remote no longer knows this task (was its server restarted with an in-memory task store?). This invocation cannot continue; send a new message to start a new remote task.`,
        { cause: error },
      );
    }
    return requestError(this.details(), operation, error);
  }

  private timeout(operation: string): RemoteA2aError {
    return new RemoteA2aError(
      'A2A_TIMEOUT',
      this.details(),
      `${operation} got no answer within timeoutMs (${this.options.timeoutMs} ms). If the remote agent is slow, raise RemoteA2aAgent's timeoutMs; otherwise check that it is still working.`,
    );
  }
}

function reply(result: Message | Task): StreamResponse {
  return 'messageId' in result
    ? { payload: { $case: 'message', value: result } }
    : { payload: { $case: 'task', value: result } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

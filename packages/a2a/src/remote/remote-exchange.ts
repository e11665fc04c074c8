import { TaskState, type Message, type SendMessageRequest, type StreamResponse } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import {
  LeaseLostError,
  RunDrainedError,
  createEvent,
  type BaseAgent,
  type Event,
  type InvocationContext,
} from '@troupe/core';
import { RemoteCalls } from './remote-calls.js';
import type { RemoteConnection } from './remote-connection.js';
import {
  RemoteA2aError,
  describeFailure,
  requestError,
  type RemoteA2aErrorCode,
  type RemoteA2aErrorDetails,
} from './remote-errors.js';
import { answerParts, interruptsFor } from './remote-interrupts.js';
import type { ResolvedRemoteOptions } from './remote-options.js';
import { userMessage } from './remote-parts.js';
import {
  answersOf,
  lastExchange,
  progressState,
  type AskedInterrupt,
  type RemoteTaskRecord,
} from './remote-progress.js';
import { requestParts } from './remote-request.js';
import { TaskView } from './remote-task-view.js';

/** What the exchange needs of its agent. */
export interface ExchangeAgent {
  readonly agent: BaseAgent;
  readonly outputKey: string | undefined;
}

/**
 * One invocation's exchange with the remote agent: it sends the request (or the human's answers),
 * or follows the task a crashed run left, turns what comes back into events, and keeps the
 * progress record (see remote-progress.ts) current on the events it stores.
 */
export class RemoteExchange {
  private record: RemoteTaskRecord;
  private readonly calls: RemoteCalls;

  constructor(
    private readonly owner: ExchangeAgent,
    private readonly ctx: InvocationContext,
    private readonly conn: RemoteConnection,
    options: ResolvedRemoteOptions,
    record: RemoteTaskRecord | undefined,
  ) {
    this.record = record ?? { url: conn.url, taskId: '', contextId: '', state: 'working', round: 0 };
    this.calls = new RemoteCalls(conn, options, ctx, () => this.details());
  }

  /** A fresh request: the remote conversation of the last exchange continues (same contextId). */
  async *start(): AsyncGenerator<Event, void, undefined> {
    const last = lastExchange(this.ctx.session.events, this.owner.agent.name, this.ctx.branch, this.conn.url);
    const message = userMessage(requestParts(this.ctx, this.owner.agent, last.after), { contextId: last.contextId });
    this.record = { ...this.record, contextId: last.contextId ?? '' };
    yield* this.drive(this.calls.send(sendRequest(message)), new TaskView(), true);
  }

  /** Continues where the record says the invocation stood. */
  async *resume(): AsyncGenerator<Event, void, undefined> {
    const record = this.record;
    if (record.state === 'completed') return;
    // Sent, answer not stored (a crash or a drain): follow that task rather than ask again.
    if (record.state === 'working' || !record.asked)
      return yield* this.drive(this.calls.follow(record.taskId), new TaskView(), false);
    const answers = answersOf(this.ctx.session.events, this.ctx.invocationId);
    const given = record.asked.filter((a) => answers.has(a.interrupt.id));
    // This resume answered other interrupts of the run: the remote's questions stay open.
    if (given.length === 0) return yield* this.ask(record.asked);
    const answered = [...(record.answered ?? []), ...given.map((a) => a.interrupt.id)];
    const view = new TaskView();
    view.apply({ payload: { $case: 'task', value: await this.calls.getTask(record.taskId) } });
    this.record = { ...record, state: 'working', asked: undefined, statusKey: undefined, answered };
    // After a crash the answer may have been delivered already: only the same question gets it.
    if (!this.asksAgain(view, record)) {
      return yield* this.drive(this.calls.follow(record.taskId), new TaskView(), true);
    }
    const message = userMessage(answerParts(given, answers), { taskId: record.taskId, contextId: record.contextId });
    yield* this.drive(this.refusals(this.calls.send(sendRequest(message))), new TaskView(), true, record);
  }

  /**
   * Reads updates until the task settles, storing a record once its id is known, then settles it.
   * `answered` is the record of the question just answered: a snapshot that opens the reply and
   * still shows that question is the task as it was before the answer (SDK servers start a
   * follow-up's stream so), not the question asked again.
   */
  private async *drive(
    updates: AsyncGenerator<StreamResponse, void, undefined>,
    view: TaskView,
    needsRecord: boolean,
    answered?: RemoteTaskRecord,
  ): AsyncGenerator<Event, void, undefined> {
    const streaming = this.ctx.runConfig.streaming === 'sse';
    let changed = false;
    const settled = () => view.settled && (changed || answered === undefined || !this.asksAgain(view, answered));
    // Stopped by an error, or by the run ending while this waits at a yield (then only finally runs).
    let stopped = true;
    let failure: unknown;
    try {
      for await (const update of updates) {
        const delta = view.apply(update);
        if (update.payload?.$case !== 'task') changed = true;
        if (needsRecord && view.taskId && !settled()) {
          needsRecord = false;
          this.record = { ...this.record, taskId: view.taskId, contextId: view.contextId, state: 'working' };
          yield createEvent({ actions: { agentState: progressState(this.record) } });
        }
        if (streaming && delta.thought)
          yield createEvent({
            partial: true,
            content: { role: 'model', parts: [{ text: delta.thought, thought: true }] },
          });
        if (streaming && delta.text)
          yield createEvent({ partial: true, content: { role: 'model', parts: [{ text: delta.text }] } });
        if (settled()) break;
      }
      if (!settled()) {
        // The stream ended early (the connection dropped, the server closed it): follow the task.
        if (!view.taskId)
          throw new RemoteA2aError(
            'A2A_REQUEST',
            this.details(),
            'its answer ended before it finished and named no task to follow. Check the remote agent; it broke the A2A stream.',
          );
        for await (const update of this.calls.follow(view.taskId)) {
          view.apply(update);
          if (settled()) break;
        }
      }
      stopped = false;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      if (stopped) await this.cancelOnAbort(view.taskId || this.record.taskId, failure);
    }
    yield* this.settle(view);
  }

  private async *settle(view: TaskView): AsyncGenerator<Event, void, undefined> {
    const record = {
      ...this.record,
      taskId: view.taskId || this.record.taskId,
      contextId: view.contextId || this.record.contextId,
    };
    if (view.reply || view.state === TaskState.TASK_STATE_COMPLETED) {
      this.record = {
        url: record.url,
        taskId: record.taskId,
        contextId: record.contextId,
        state: 'completed',
        round: record.round,
      };
      const answer = view.answer();
      const key = this.owner.outputKey;
      yield createEvent({
        ...(answer.content ? { content: answer.content } : {}),
        output: answer.output,
        actions: { stateDelta: key ? { [key]: answer.output } : {}, agentState: progressState(this.record) },
      });
      return;
    }
    this.record = record;
    if (view.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      const asked = interruptsFor(view, {
        agentName: this.owner.agent.name,
        agentPath: this.ctx.path,
        round: record.round,
      });
      const refused = asked.find((a) => a.remoteId !== undefined && record.answered?.includes(a.interrupt.id));
      if (refused) {
        throw this.failed(
          'A2A_ANSWER_REFUSED',
          view,
          `it asks again for '${refused.remoteId}', which was answered`,
          'Its message above says why; for approvals, the remote a2aApp needs allowRemoteApprovals.',
        );
      }
      this.record = { ...record, state: 'input-required', round: record.round + 1, asked, statusKey: view.statusKey };
      yield* this.ask(asked);
      return;
    }
    switch (view.state) {
      case TaskState.TASK_STATE_FAILED:
        throw this.failed(
          'A2A_TASK_FAILED',
          view,
          'its task failed',
          "The failure is the remote agent's: see its message above and its logs.",
        );
      case TaskState.TASK_STATE_REJECTED:
        throw this.failed(
          'A2A_TASK_REJECTED',
          view,
          'it rejected the task',
          'See its message above; it may not handle this kind of request.',
        );
      case TaskState.TASK_STATE_AUTH_REQUIRED:
        throw this.failed(
          'A2A_AUTH_REQUIRED',
          view,
          'it asks for credentials',
          "Pass them with RemoteA2aAgent's `headers` option (e.g. { Authorization: 'Bearer <token>' }).",
        );
      case TaskState.TASK_STATE_CANCELED:
        this.ctx.throwIfAborted();
        throw this.failed(
          'A2A_TASK_CANCELED',
          view,
          'its task was canceled on the remote side',
          'Send the message again if the work is still wanted.',
        );
      case TaskState.TASK_STATE_SUBMITTED:
      case TaskState.TASK_STATE_WORKING:
      case TaskState.TASK_STATE_UNSPECIFIED:
      case TaskState.UNRECOGNIZED:
        throw this.failed(
          'A2A_REQUEST',
          view,
          `its task stopped in state ${TaskState[view.state] ?? view.state}`,
          'Check the remote agent; A2A does not end a task in this state.',
        );
    }
  }

  /**
   * Does the remote still ask what `record` asked? The same status, or the same questions (a
   * server may rebuild its status message, with a new id, each time the task is read).
   */
  private asksAgain(view: TaskView, record: RemoteTaskRecord): boolean {
    if (view.state !== TaskState.TASK_STATE_INPUT_REQUIRED || !record.asked) return false;
    if (view.statusKey !== '' && view.statusKey === record.statusKey) return true;
    const now = interruptsFor(view, {
      agentName: this.owner.agent.name,
      agentPath: this.ctx.path,
      round: record.round - 1,
    });
    const question = (a: AskedInterrupt) => `${a.interrupt.id}\n${a.interrupt.message ?? ''}`;
    return now.map(question).join('\n') === record.asked.map(question).join('\n');
  }

  /** An answer the remote refuses with an A2A error (not a network failure) says why, as a refusal. */
  private async *refusals(
    updates: AsyncGenerator<StreamResponse, void, undefined>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      yield* updates;
    } catch (error) {
      if (!(error instanceof RemoteA2aError && error.code === 'A2A_REQUEST' && error.cause instanceof A2AError))
        throw error;
      throw new RemoteA2aError(
        'A2A_ANSWER_REFUSED',
        this.details(),
        `it refused the answer: ${describeFailure(error.cause)}`,
        { cause: error.cause },
      );
    }
  }

  /** Pauses the run: one event per interrupt, the record on the last (all raised). */
  private async *ask(asked: readonly AskedInterrupt[]): AsyncGenerator<Event, void, undefined> {
    for (let i = 0; i < asked.length; i++) {
      const last = i === asked.length - 1;
      yield createEvent({
        interrupt: asked[i]!.interrupt,
        ...(last ? { actions: { agentState: progressState(this.record) } } : {}),
      });
    }
  }

  /**
   * When the run was cancelled or timed out, cancels the remote task too. Not when it was drained
   * or its session taken over: another process resumes this invocation and follows the task.
   */
  private async cancelOnAbort(taskId: string, error: unknown): Promise<void> {
    const reason: unknown = this.ctx.abortSignal.aborted ? this.ctx.abortSignal.reason : undefined;
    const timedOut = error instanceof RemoteA2aError && error.code === 'A2A_TIMEOUT';
    if (
      !taskId ||
      (reason === undefined && !timedOut) ||
      reason instanceof RunDrainedError ||
      reason instanceof LeaseLostError
    )
      return;
    try {
      await this.calls.cancel(taskId);
    } catch (cancelError) {
      const what = reason instanceof Error ? reason.message : error instanceof Error ? error.message : String(error);
      throw requestError(
        { ...this.details(), taskId },
        `tasks/cancel, sent because the run stopped (${what}),`,
        cancelError,
      );
    }
  }

  private failed(code: RemoteA2aErrorCode, view: TaskView, what: string, fix: string): RemoteA2aError {
    const said = view.statusText;
    return new RemoteA2aError(
      code,
      { ...this.details(), taskId: view.taskId || this.record.taskId },
      `${what}${said ? `: "${said}"` : ' (it gave no message)'}. ${fix}`,
    );
  }

  private details(): RemoteA2aErrorDetails {
    return {
      agentName: this.owner.agent.name,
      url: this.conn.url,
      ...(this.record.taskId ? { taskId: this.record.taskId } : {}),
    };
  }
}

function sendRequest(message: Message): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      historyLength: 0,
      returnImmediately: false,
    },
    metadata: undefined,
  };
}

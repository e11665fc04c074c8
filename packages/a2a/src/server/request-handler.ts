import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { cancelTask } from './cancel-task.js';
import { listTasks } from './list-tasks.js';
import { startTask } from './start-task.js';
import { findTask, limitHistory, type TaskContext } from './task-context.js';
import { requestedTaskId } from './task-ids.js';
import { isTerminal } from './task-outcome.js';
import { outcomeOf } from './stored-task.js';
import { userIdOf } from './a2a-user.js';

/**
 * The A2A operations on a Troupe agent tree, for the SDK's JSON-RPC transports (1.0 and 0.3). The
 * session store is the record of every task (task id = invocation id, context id = session id):
 * nothing is kept beside it but the runs in flight, so any process on the same store can answer.
 */
export class TroupeRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly ctx: TaskContext,
    private readonly card: AgentCard,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(
    _params: GetExtendedAgentCardRequest,
    _context: ServerCallContext,
  ): Promise<AgentCard> {
    throw new UnsupportedOperationError(
      `This agent has no extended card: its public card at ${this.ctx.options.baseUrl}/.well-known/agent-card.json is the whole of it.`,
    );
  }

  /** Runs the message's task to its end (or to a question for the client) and answers with the task; `returnImmediately` answers at once. */
  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { task } = await startTask(this.ctx, params, userIdOf(context), false);
    if (params.configuration?.returnImmediately !== true) await task.ended;
    return limitHistory(task.snapshot(), params.configuration?.historyLength);
  }

  /** The task, then its status and artifact updates until it ends or asks the client for input. */
  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    // Started before the first event, so a refusal is an error response rather than a broken stream.
    const { updates } = await startTask(this.ctx, params, userIdOf(context), true);
    for await (const update of updates!) {
      if (update.payload?.$case === 'task') limitHistory(update.payload.value, params.configuration?.historyLength);
      yield update;
    }
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const userId = userIdOf(context);
    const taskId = requestedTaskId(params.id);
    const live = this.ctx.live.get(taskId, userId);
    const task = live ? live.snapshot() : (await findTask(this.ctx, taskId, userId)).task;
    return limitHistory(task, params.historyLength);
  }

  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return listTasks(this.ctx, params, userIdOf(context));
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return cancelTask(this.ctx, requestedTaskId(params.id), userIdOf(context));
  }

  /** Follows a task: live here, its updates until it ends; waiting for input, just the task. */
  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const userId = userIdOf(context);
    const taskId = requestedTaskId(params.id);
    const live = this.ctx.live.get(taskId, userId);
    if (live) {
      yield* live.subscribe();
      return;
    }
    const { session, task } = await findTask(this.ctx, taskId, userId);
    const outcome = outcomeOf(
      session,
      taskId,
      session.events.filter((e) => e.invocationId === taskId),
    );
    if (isTerminal(outcome))
      throw new UnsupportedOperationError(
        `Task '${taskId}' is ${outcome.state}; there is nothing to follow. Read it with tasks/get.`,
      );
    yield { payload: { $case: 'task', value: task } };
  }

  createTaskPushNotificationConfig(
    _params: TaskPushNotificationConfig,
    _context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.noPush();
  }

  getTaskPushNotificationConfig(
    _params: GetTaskPushNotificationConfigRequest,
    _context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.noPush();
  }

  listTaskPushNotificationConfigs(
    _params: ListTaskPushNotificationConfigsRequest,
    _context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.noPush();
  }

  deleteTaskPushNotificationConfig(
    _params: DeleteTaskPushNotificationConfigRequest,
    _context: ServerCallContext,
  ): Promise<void> {
    return this.noPush();
  }

  private async noPush(): Promise<never> {
    throw new PushNotificationNotSupportedError(
      'This agent does not send push notifications (its card says pushNotifications: false). Follow a task with message/stream or tasks/resubscribe, or poll tasks/get.',
    );
  }
}

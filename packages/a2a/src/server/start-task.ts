import { Role, type Message, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { type Content, type InterruptInfo, type RunConfig, type Session } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { toA2aError } from './a2a-errors.js';
import { answersOf } from './interrupt-parts.js';
import { LiveTask } from './live-task.js';
import { agentMessage, fromA2aParts, textPart, toA2aParts, userMessage, type IncomingParts } from './parts.js';
import { outcomeOf } from './stored-task.js';
import { findTask, type TaskContext } from './task-context.js';
import { checkContextId, newTaskId, sessionIdOfTask } from './task-ids.js';
import { isTerminal, statusOf, type TaskOutcome } from './task-outcome.js';
import { driveTask, type RunEvents } from './task-run.js';

/** A task a message started: running, and (when asked for) its stream from the very start. */
export interface StartedTask {
  task: LiveTask;
  /** The task, then every update of its run; present when `startTask` was asked to stream. */
  updates: AsyncGenerator<StreamResponse, void, undefined> | undefined;
}

/**
 * Starts what a client's message asks for, or throws the A2A error that says why not (before
 * anything is stored): a new task (in a new conversation, or in the one `contextId` names), or,
 * with `taskId`, the answers to the open interrupts of a task that waits for input, which resume
 * the same invocation.
 */
export async function startTask(
  ctx: TaskContext,
  request: SendMessageRequest,
  userId: string,
  stream: boolean,
): Promise<StartedTask> {
  const message = checkMessage(request.message);
  const incoming = fromA2aParts(message.parts);
  const how = { userId, stream };
  return message.taskId !== '' ? continueTask(ctx, message, incoming, how) : newTask(ctx, message, incoming, how);
}

/** Who asks, and whether they follow the task's stream. */
interface Requester {
  userId: string;
  stream: boolean;
}

function checkMessage(message: Message | undefined): Message {
  if (!message)
    throw new RequestMalformedError(
      "params.message is missing; send { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'Hello' }] } } (v0.3: role 'user', parts [{ kind: 'text', text }]).",
    );
  if (message.messageId === '')
    throw new RequestMalformedError('message.messageId is empty; give each message a unique id, e.g. a UUID.');
  if (message.role !== Role.ROLE_USER) {
    throw new RequestMalformedError(
      `message.role is ${JSON.stringify(Role[message.role] ?? message.role)}; a client's message has role ROLE_USER (v0.3: 'user').`,
    );
  }
  return message;
}

async function newTask(
  ctx: TaskContext,
  message: Message,
  incoming: IncomingParts,
  requester: Requester,
): Promise<StartedTask> {
  const { userId } = requester;
  const session = await conversation(ctx, message.contextId, userId);
  // A conversation made for this message alone goes again if its task cannot start.
  const discard =
    message.contextId === ''
      ? () => ctx.runner.sessionService.deleteSession({ appName: ctx.runner.appName, userId, sessionId: session.id })
      : undefined;
  const abandon = checkNoTaskWaits(session);
  const ids = { taskId: newTaskId(session.id), contextId: session.id };
  const initial: Task = {
    id: ids.taskId,
    contextId: ids.contextId,
    status: statusOf({ state: 'submitted' }, ids),
    artifacts: [],
    history: [
      userMessage({ messageId: message.messageId, ...ids }, toA2aParts({ role: 'user', parts: incoming.parts })),
    ],
    metadata: undefined,
  };
  // A message that is one JSON object is the agent's structured input (checked against its inputSchema).
  const only = incoming.data.length === 1 && incoming.parts.length === 1 ? incoming.data[0] : undefined;
  const input =
    typeof only === 'object' && only !== null && !Array.isArray(only) ? (only as Record<string, unknown>) : undefined;
  const newMessage: Content = { role: 'user', parts: incoming.parts };
  return launch(ctx, requester, initial, 0, discard, (signal) =>
    ctx.runner.start({
      userId,
      sessionId: session.id,
      ...(input ? { input } : { newMessage }),
      invocationId: ids.taskId,
      runConfig: runConfigOf(ctx, abandon),
      abortSignal: signal,
    }),
  );
}

/** The conversation a new task runs in: the one `contextId` names (made if new), or a new one. */
async function conversation(ctx: TaskContext, contextId: string, userId: string): Promise<Session> {
  const { sessionService, appName } = ctx.runner;
  if (contextId === '') return sessionService.createSession({ appName, userId });
  checkContextId(contextId);
  const existing = await sessionService.getSession({ appName, userId, sessionId: contextId });
  if (existing) return existing;
  try {
    return await sessionService.createSession({ appName, userId, sessionId: contextId });
  } catch (error) {
    // Another request made it meanwhile.
    const made = await sessionService.getSession({ appName, userId, sessionId: contextId });
    if (made) return made;
    throw error;
  }
}

/**
 * A conversation takes no new task while one of its tasks waits for input: the answer would have
 * nowhere to go. A task that was cancelled while waiting has given up its questions; a new task
 * then abandons them (true).
 */
function checkNoTaskWaits(session: Session): boolean {
  const open = openInterrupts(session.events);
  if (open.length === 0) return false;
  const invocationId = session.events[session.events.length - 1]!.invocationId;
  const events = session.events.filter((e) => e.invocationId === invocationId);
  if (outcomeOf(session, invocationId, events).state === 'canceled') return true;
  if (sessionIdOfTask(invocationId) === undefined) {
    throw new UnsupportedOperationError(
      `This conversation (contextId '${session.id}') has a run waiting for a person's answer (invocation '${invocationId}', interrupts ${open.map((i) => i.id).join(', ')}) that was not started over A2A. Answer it where it was started (the dev UI, or the HTTP API's resume route), or send this message without contextId to start a new conversation.`,
    );
  }
  throw new UnsupportedOperationError(
    `Task '${invocationId}' of this conversation waits for input (${open.map((i) => `'${i.id}'`).join(', ')}). Answer it with a message whose taskId is '${invocationId}', or cancel it with tasks/cancel, before starting a new task here (or send this message without contextId to start a new conversation).`,
  );
}

async function continueTask(
  ctx: TaskContext,
  message: Message,
  incoming: IncomingParts,
  requester: Requester,
): Promise<StartedTask> {
  const { userId } = requester;
  const taskId = message.taskId;
  const sessionId = sessionIdOfTask(taskId);
  if (message.contextId !== '' && sessionId !== undefined && message.contextId !== sessionId) {
    throw new RequestMalformedError(
      `message.contextId '${message.contextId}' is not the context of task '${taskId}' ('${sessionId}'). Send the task's own contextId, or leave contextId out.`,
    );
  }
  if (ctx.live.get(taskId, userId)) {
    throw new UnsupportedOperationError(
      `Task '${taskId}' is still working and takes no message now. Wait for it (tasks/get, tasks/resubscribe), or cancel it with tasks/cancel.`,
    );
  }
  const { session, task } = await findTask(ctx, taskId, userId);
  const events = session.events.filter((e) => e.invocationId === taskId);
  const outcome = outcomeOf(session, taskId, events);
  if (isTerminal(outcome)) {
    throw new UnsupportedOperationError(
      `Task '${taskId}' is ${outcome.state} and takes no more messages. Send the message without taskId and with contextId '${session.id}' to start a new task in the same conversation.`,
    );
  }
  if (outcome.state !== 'input-required') {
    throw new UnsupportedOperationError(
      `Task '${taskId}' is not waiting for input: it is running in another server process, or its process stopped mid-run. Wait for it (tasks/get), or cancel it with tasks/cancel.`,
    );
  }
  const answers = answersOf(incoming, outcome.interrupts, taskId);
  const ids = { taskId, contextId: session.id };
  const refused = refusedApproval(ctx, outcome.interrupts, answers);
  if (refused)
    return stillWaiting(task, requester, refusalMessage(taskId, refused), outcome, ids, {
      messageId: message.messageId,
      incoming,
    });
  task.status = statusOf({ state: 'working' }, ids);
  task.history.push(
    userMessage({ messageId: message.messageId, ...ids }, toA2aParts({ role: 'user', parts: incoming.parts })),
  );
  return launch(ctx, requester, task, task.artifacts.length, undefined, (signal) =>
    ctx.runner.startResume({
      userId,
      sessionId: session.id,
      invocationId: taskId,
      responses: answers,
      runConfig: runConfigOf(ctx, false),
      abortSignal: signal,
    }),
  );
}

/** The confirmation an A2A client answered although the app does not take approvals over A2A (allowRemoteApprovals). */
function refusedApproval(
  ctx: TaskContext,
  open: readonly InterruptInfo[],
  answers: Record<string, unknown>,
): InterruptInfo | undefined {
  if (ctx.options.allowRemoteApprovals) return undefined;
  return open.find((i) => i.kind === 'confirmation' && Object.hasOwn(answers, i.id));
}

function refusalMessage(taskId: string, approval: InterruptInfo): string {
  return (
    `Task '${taskId}' waits for a person to approve ${approval.toolName}(${JSON.stringify(approval.args)}) (interrupt '${approval.id}'), and this agent does not take approvals over A2A: a2aApp's allowRemoteApprovals is false, so that a remote caller cannot approve side effects on the person's behalf. ` +
    `The task still waits. Approve it where the app's people work (the dev UI, or the HTTP API's resume route), or serve the app with a2aApp(agent, { allowRemoteApprovals: true }) if every A2A caller may approve.`
  );
}

/**
 * SPEC §14.1: a refused approval leaves the task `input-required`, nothing stored, and its status
 * message says why (then the same questions again, so a client can still answer the others).
 */
function stillWaiting(
  stored: Task,
  requester: Requester,
  why: string,
  waiting: Extract<TaskOutcome, { state: 'input-required' }>,
  ids: { taskId: string; contextId: string },
  asked: { messageId: string; incoming: IncomingParts },
): StartedTask {
  const task = structuredClone(stored);
  task.history.push(
    userMessage({ messageId: asked.messageId, ...ids }, toA2aParts({ role: 'user', parts: asked.incoming.parts })),
  );
  const live = new LiveTask(requester.userId, task);
  const updates = requester.stream ? live.subscribe() : undefined;
  // As a run that pauses says it: one status update, the same questions after the reason.
  const questions = statusOf(waiting, ids);
  const status = {
    ...questions,
    message: agentMessage({ messageId: `${ids.taskId}.refused.${asked.messageId}`, ...ids }, [
      textPart(why),
      ...(questions.message?.parts ?? []),
    ]),
  };
  live.publish({ payload: { $case: 'statusUpdate', value: { ...ids, status, metadata: undefined } } });
  live.end();
  return { task: live, updates };
}

function runConfigOf(ctx: TaskContext, abandonInterrupts: boolean): RunConfig {
  return { ...ctx.options.runConfig, streaming: 'sse', ...(abandonInterrupts ? { abandonInterrupts } : {}) };
}

/** Registers the task, starts its run (refusals come back as A2A errors) and drives it in the background. */
async function launch(
  ctx: TaskContext,
  requester: Requester,
  initial: Task,
  existingArtifacts: number,
  discard: (() => Promise<void>) | undefined,
  start: (signal: AbortSignal) => Promise<RunEvents>,
): Promise<StartedTask> {
  let task: LiveTask | undefined;
  let events: RunEvents;
  try {
    if (ctx.live.has(initial.id))
      throw new UnsupportedOperationError(
        `Task '${initial.id}' is still working and takes no message now. Wait for it (tasks/get), or cancel it with tasks/cancel.`,
      );
    task = ctx.live.begin(requester.userId, initial);
    events = await start(task.signal);
  } catch (error) {
    task?.end();
    await discard?.().catch(() => undefined);
    throw toA2aError(error);
  }
  // Taken before the run is driven, so the stream shows every update from `working` on.
  const updates = requester.stream ? task.subscribe() : undefined;
  driveTask(task, events, { taskId: initial.id, contextId: initial.contextId }, existingArtifacts);
  return { task, updates };
}

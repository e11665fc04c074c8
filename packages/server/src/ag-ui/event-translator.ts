import { type Event as AgUiEvent, EventType, PROTOCOL_VERSION, type RunFinishedOutcome } from '@ag-ui/core';
import {
  type Event,
  type FunctionCall,
  getFunctionCalls,
  getFunctionResponses,
  isClientToolInterrupt,
  type RunResult,
  TroupeError,
} from '@troupe/core';
import { inputCall, isInputRequest } from '../adk-input.js';
import { toHttpError } from '../http-error.js';
import { interruptedCallId, pausedOutcome, toolCallIdOf } from './interrupts.js';
import { MessageLanes } from './message-lanes.js';
import { NodeSteps } from './node-steps.js';
import { StatePatcher } from './state-patch.js';
import { jsonValue } from './state-input.js';
import { UsageTally } from './usage.js';

/** What the translator of one AG-UI run needs to know. */
export interface RunIdentity {
  threadId: string;
  /** The input's run id, echoed on RUN_STARTED and RUN_FINISHED. */
  runId: string;
  /** The Troupe invocation the run executes: the run id, or the paused invocation it continues. */
  invocationId: string;
  userId: string;
  /** The state the run starts from, as the client is shown it. */
  state: Record<string, unknown>;
  /** Client tool calls this input answered: their results are the client's, not sent back. */
  clientCalls: ReadonlySet<string>;
  /** The session's events before this run: the calls the client was shown in earlier runs. */
  earlierEvents?: readonly Event[];
}

/**
 * Turns one run's Troupe events into AG-UI events. There is one event vocabulary, Troupe's; this
 * is only its AG-UI encoding:
 *
 * - streamed and final model text: TEXT_MESSAGE_START/CONTENT/END, one message per agent turn,
 *   named after the agent; thought parts: REASONING_* (see {@link MessageLanes});
 * - function calls: TOOL_CALL_START/ARGS/END on the turn's message; function responses:
 *   TOOL_CALL_RESULT (the result as JSON text); a graph workflow's request for input is its
 *   `adk_request_input` call, as on `/run_sse`, so the interrupt's `toolCallId` names a call the
 *   client holds (and the thread's last message is the assistant's, not the user's turn again);
 * - custom events (`ctx.emit(name, data)`): CUSTOM with the same name, the data as its `value`;
 * - state: STATE_SNAPSHOT first, then a STATE_DELTA (JSON Patch) per event that changes state;
 * - a graph workflow's node runs: STEP_STARTED/STEP_FINISHED named by the node's path, the end
 *   record (its output and route) as the step's `rawEvent` (see {@link NodeSteps});
 * - the end: RUN_FINISHED with the outcome (success, interrupt, cancelled) and the token usage,
 *   or RUN_ERROR with the error event's code and message.
 */
export class EventTranslator {
  private readonly lanes = new MessageLanes();
  private readonly steps = new NodeSteps();
  private readonly state: StatePatcher;
  private readonly usage = new UsageTally();
  /** The run's last non-partial event: what the cancel route answers with. */
  lastEvent: Event | undefined;
  /** AG-UI ids of the calls shown to the client: this run's, and (once asked for) earlier runs'. */
  private readonly shownCalls = new Set<string>();
  private earlierCallsRead = false;

  constructor(private readonly run: RunIdentity) {
    this.state = new StatePatcher(run.state);
  }

  /** RUN_STARTED and the state the run starts from. */
  start(): AgUiEvent[] {
    const { threadId, runId, invocationId, userId, state } = this.run;
    return [
      {
        type: EventType.RUN_STARTED,
        threadId,
        runId,
        protocolVersion: PROTOCOL_VERSION,
        metadata: { troupe: { invocationId, userId } },
      },
      { type: EventType.STATE_SNAPSHOT, snapshot: state },
    ];
  }

  /** The AG-UI events of one Troupe event. */
  translate(raw: Event): AgUiEvent[] {
    if (raw.partial) return this.lanes.partial(raw);
    const event = this.withPausedCall(raw);
    this.lastEvent = raw;
    if (event.usage) this.usage.add(event.model, event.usage);
    const out: AgUiEvent[] = [];
    const steps = this.steps.translate(event);
    // A node's start record opens its step before anything the node says; its end record closes it after.
    if (event.actions.agentState?.node === 'started') out.push(...steps);
    // The user's own message is the client's already; an agent's user-role content carries tool results.
    if (event.content && event.author !== 'user') {
      if (event.content.role === 'model') out.push(...this.modelTurn(event));
      out.push(...this.toolResults(event));
    }
    // ctx.emit's events: the application's own, under its name.
    if (event.customEvent)
      out.push({ type: EventType.CUSTOM, name: event.customEvent.name, value: event.customEvent.data });
    const delta = this.state.patch(event.actions.stateDelta);
    if (delta.length > 0) out.push({ type: EventType.STATE_DELTA, delta });
    if (event.actions.agentState?.node !== 'started') out.push(...steps);
    return out;
  }

  /** The end of a run that returned: RUN_FINISHED with its outcome. */
  finish(result: RunResult): AgUiEvent[] {
    const { threadId, runId } = this.run;
    const outcome: RunFinishedOutcome =
      result.status === 'interrupted' ? pausedOutcome(result.interrupts) : { type: 'success' };
    // A run paused on frontend tools is a success on the wire, but has no return value yet.
    const output =
      result.status === 'completed' && result.output !== undefined ? { result: jsonValue(result.output) } : {};
    return [
      ...this.lanes.closeAll(),
      ...this.steps.closeAll(),
      { type: EventType.RUN_FINISHED, threadId, runId, outcome, ...output, ...this.usageField() },
    ];
  }

  /**
   * The end of a run that threw: RUN_FINISHED `cancelled` for a cancelled run, else RUN_ERROR with
   * the error event the runner stored. A failure the runner did not report itself (a bug) is told to
   * `onFailure` and reaches the client without its detail, as 5xx answers do.
   */
  fail(error: unknown, onFailure: (error: unknown) => void): AgUiEvent[] {
    const closing = [...this.lanes.closeAll(), ...this.steps.closeAll()];
    const { threadId, runId } = this.run;
    if (error instanceof TroupeError && error.code === 'CANCELLED') {
      return [
        ...closing,
        { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'cancelled' }, ...this.usageField() },
      ];
    }
    const reported = this.lastEvent?.errorCode !== undefined ? this.lastEvent : undefined;
    if (!reported) onFailure(error);
    const http = toHttpError(error);
    const code = reported?.errorCode ?? (error instanceof TroupeError ? error.code : http.code);
    const message = reported?.errorMessage ?? http.clientMessage;
    return [...closing, { type: EventType.RUN_ERROR, message, code, ...this.usageField() }];
  }

  private modelTurn(event: Event): AgUiEvent[] {
    const parts = event.content!.parts;
    const text = parts.map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
    const thought = parts.map((p) => ('text' in p && p.thought ? p.text : '')).join('');
    const { out: events, textId: messageId } = this.lanes.final(event, text, thought);
    // Calls without text still belong to one assistant message: the event's.
    const parentMessageId = messageId ?? event.id;
    for (const call of getFunctionCalls(event)) {
      const toolCallId = toolCallIdOf(event.path, call.id);
      this.shownCalls.add(toolCallId);
      events.push(
        { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: call.name, parentMessageId },
        { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(call.args ?? {}) },
        { type: EventType.TOOL_CALL_END, toolCallId },
      );
    }
    return events;
  }

  private toolResults(event: Event): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    getFunctionResponses(event).forEach((response, i) => {
      const toolCallId = toolCallIdOf(event.path, response.id);
      if (this.run.clientCalls.has(toolCallId)) return;
      out.push({
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${event.id}.${i}`,
        toolCallId,
        content: JSON.stringify(response.response),
        role: 'tool',
      });
    });
    return out;
  }

  private usageField(): { usage?: NonNullable<ReturnType<UsageTally['entries']>> } {
    const usage = this.usage.entries();
    return usage ? { usage } : {};
  }

  /**
   * An interrupt event with the call it paused as its content when the client holds no such call:
   * a workflow's request for input gets ADK's `adk_request_input` call, and a workflow's tool node
   * (which no model called) the tool's own call. Core stores neither. Without it the thread would
   * end with the user's turn, and the client's resume would read as a new message.
   */
  private withPausedCall(event: Event): Event {
    const interrupt = event.interrupt;
    if (!interrupt || isClientToolInterrupt(interrupt)) return event;
    if (isInputRequest(interrupt)) return withCall(event, interrupt.agentPath, inputCall(interrupt));
    const callId = interruptedCallId(interrupt);
    if (this.shownCalls.has(callId) || this.shownEarlier(callId)) return event;
    return withCall(event, interrupt.agentPath, {
      id: interrupt.toolCallId,
      name: interrupt.toolName,
      args: interrupt.args,
    });
  }

  /** Whether an earlier run of the thread showed the client this call (a model's call, or one made for its pause). */
  private shownEarlier(callId: string): boolean {
    if (!this.earlierCallsRead) {
      this.earlierCallsRead = true;
      for (const e of this.run.earlierEvents ?? []) {
        for (const call of getFunctionCalls(e)) this.shownCalls.add(toolCallIdOf(e.path, call.id));
        if (e.interrupt) this.shownCalls.add(interruptedCallId(e.interrupt));
      }
    }
    return this.shownCalls.has(callId);
  }
}

/** The event with `call` added to its content, made by the agent at `agentPath` (the call's AG-UI id is under it). */
function withCall(event: Event, agentPath: string, call: FunctionCall): Event {
  const parts = [...(event.content?.parts ?? []), { functionCall: call }];
  return { ...event, path: agentPath, content: { role: event.content?.role ?? 'model', parts } };
}

import { BaseAgent, type BaseAgentOptions } from '../agents/base-agent.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import { lastOutputOnBranch } from '../agents/replay.js';
import { textOf, type Event, type Usage } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import { isBaseLlm } from '../models/base-llm.js';
import { pickWithModel, type GroupChatSelector, type GroupChatSelectorContext } from './group-chat-selector.js';
import { checkUniqueNames } from './pattern-options.js';
import type { AgentKind } from '../agents/agent-outline.js';

export {
  GroupChatSelectorError,
  type GroupChatSelector,
  type GroupChatSelectorContext,
} from './group-chat-selector.js';

/** Options of {@link GroupChatAgent}. */
export interface GroupChatAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /** The agents that share the conversation. At least one; names unique. They become this agent's sub-agents. */
  participants: readonly BaseAgent[];
  /** Who speaks next: `'round_robin'`, a model (`BaseLlm`), or a function. See {@link GroupChatSelector}. */
  selector: GroupChatSelector;
  /** Turns (one participant's run each) before the chat stops by itself. @default 10 */
  maxTurns?: number;
  /**
   * Ends the chat after the turn in which it matches: a text that a participant's event contains
   * (case-sensitive), or a function called with each of the participants' complete events.
   */
  terminate?: string | ((event: Event) => boolean);
}

/** Why a group chat stopped, recorded as `agentState.stopReason` on its final event. */
export type GroupChatStopReason = 'terminated' | 'maxTurns' | 'selector';

/**
 * The chat's progress records: the speakers so far (the last one's turn running, or `done`), and on
 * its final event why it stopped.
 */
export type GroupChatProgress =
  { speakers: string[]; done: boolean } | { stopReason: GroupChatStopReason; turns: number; speakers: string[] };

/**
 * Participants that share one conversation, taking turns. Before each turn the selector picks who
 * speaks next; the participant runs on the chat's branch, so it sees the user's message and what
 * the others said. The chat ends after a turn that matches `terminate`, after `maxTurns` turns, or
 * when the selector returns undefined (a model selector: answers `DONE`). A model selector that
 * names no participant gets one retry, then the run fails with `GroupChatSelectorError`.
 *
 * Before each turn it records `{ speakers, done: false }` (the model selector's tokens on it), after
 * it `{ speakers, done: true }`, and last `{ stopReason, turns, speakers }` with the last speaker's
 * output; so a resume after a pause inside a participant continues that participant's turn and the
 * same speaker order, in any process.
 *
 * @example
 * const room = new GroupChatAgent({
 *   name: 'Newsroom',
 *   participants: [writer, critic, editor],
 *   selector: 'round_robin',
 *   maxTurns: 6,
 *   terminate: 'APPROVED',
 * });
 */
export class GroupChatAgent extends BaseAgent {
  readonly participants: readonly BaseAgent[];
  readonly selector: GroupChatSelector;
  readonly maxTurns: number;
  readonly terminate: string | ((event: Event) => boolean) | undefined;

  constructor(options: GroupChatAgentOptions) {
    const name = options?.name;
    const participants = options?.participants;
    if (!Array.isArray(participants) || participants.length === 0) {
      throw new ConfigurationError(
        `GroupChatAgent '${name}' has no participants; give it at least one agent in 'participants'.`,
      );
    }
    checkUniqueNames('GroupChatAgent', name, 'participants', participants);
    const selector = options.selector;
    if (selector !== 'round_robin' && typeof selector !== 'function' && !isBaseLlm(selector)) {
      throw new ConfigurationError(
        `GroupChatAgent '${name}' has selector ${JSON.stringify(selector)}; use 'round_robin', a model (BaseLlm instance; in YAML a model string), or a function (ctx) => participant name | undefined.`,
      );
    }
    const maxTurns = options.maxTurns ?? 10;
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new ConfigurationError(
        `GroupChatAgent '${name}' has maxTurns ${JSON.stringify(maxTurns)}; use a whole number of at least 1 (default 10).`,
      );
    }
    const terminate = options.terminate;
    if (
      terminate !== undefined &&
      typeof terminate !== 'function' &&
      (typeof terminate !== 'string' || terminate === '')
    ) {
      throw new ConfigurationError(
        `GroupChatAgent '${name}' has terminate ${JSON.stringify(terminate)}; use a non-empty text that ends the chat when a participant says it, or a function (event) => boolean.`,
      );
    }
    const {
      participants: _participants,
      selector: _selector,
      maxTurns: _maxTurns,
      terminate: _terminate,
      ...base
    } = options;
    super({ ...base, subAgents: participants });
    this.participants = this.subAgents;
    this.selector = selector;
    this.maxTurns = maxTurns;
    this.terminate = terminate;
  }

  override get kind(): AgentKind {
    return 'group_chat';
  }

  // It records its own progress and a final record, so parents need not record any after it.
  override get resumable(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    let speakers: string[] = [];
    let inFlight = false;
    let output: unknown;
    if (ctx.isResuming) {
      const progress = readProgress(ctx.lastProgress());
      if (progress && 'stopReason' in progress) return; // it had finished
      if (progress) {
        speakers = progress.speakers;
        inFlight = !progress.done;
      }
      output = lastOutputOnBranch(ctx, ctx.branch);
    }
    let stopReason: GroupChatStopReason | undefined;
    while (stopReason === undefined) {
      let speaker: BaseAgent;
      let childCtx: InvocationContext;
      if (inFlight) {
        // The turn that was running at the pause or crash resumes from its own events.
        speaker = this.participant(speakers.at(-1)!);
        childCtx = ctx;
        inFlight = false;
      } else {
        if (speakers.length >= this.maxTurns) {
          stopReason = 'maxTurns';
          break;
        }
        ctx.throwIfAborted();
        const { name, usage } = await this.pick(ctx, speakers);
        if (name === undefined) {
          stopReason = 'selector';
          break;
        }
        speaker = this.participant(name);
        speakers = [...speakers, name];
        yield this.record(ctx, { speakers, done: false }, usage);
        childCtx = ctx.fresh();
      }
      let paused = false;
      let terminated = false;
      for await (const event of speaker.runAsync(childCtx)) {
        if (event.output !== undefined && event.author === speaker.name) output = event.output;
        if (event.interrupt) paused = true;
        if (!event.partial && this.matchesTerminate(event)) terminated = true;
        yield event;
      }
      if (paused) return; // waiting for a human: the resume continues this turn
      if (terminated) stopReason = 'terminated';
      else yield this.record(ctx, { speakers, done: true });
    }
    const final = this.record(ctx, { stopReason, turns: speakers.length, speakers });
    final.actions.endOfAgent = true;
    if (output !== undefined) final.output = output;
    yield final;
  }

  private async pick(
    ctx: InvocationContext,
    speakers: readonly string[],
  ): Promise<{ name: string | undefined; usage?: Usage | undefined }> {
    const turn = speakers.length;
    if (this.selector === 'round_robin') return { name: this.participants[turn % this.participants.length]!.name };
    const selection: GroupChatSelectorContext = {
      turn,
      participants: this.participants,
      speakers,
      events: ctx.session.events.filter(
        (e) =>
          e.invocationId === ctx.invocationId &&
          !e.partial &&
          (e.author === 'user' || e.path.startsWith(`${ctx.path}/`)),
      ),
      state: ctx.session.state,
    };
    if (typeof this.selector === 'function') {
      const name = this.selector(selection);
      if (name !== undefined) this.participant(name);
      return { name };
    }
    return pickWithModel(ctx, this.selector, this.name, selection);
  }

  private participant(name: string): BaseAgent {
    const found = this.participants.find((p) => p.name === name);
    if (!found) {
      throw new ConfigurationError(
        `GroupChatAgent '${this.name}' was told to let ${JSON.stringify(name)} speak, which is not a participant. The selector must return one of: ${this.participants.map((p) => p.name).join(', ')}, or undefined to end the chat.`,
      );
    }
    return found;
  }

  private matchesTerminate(event: Event): boolean {
    if (this.terminate === undefined || !event.content) return false;
    if (typeof this.terminate === 'string') return textOf(event).includes(this.terminate);
    return this.terminate(event);
  }

  private record(ctx: InvocationContext, progress: GroupChatProgress, usage?: Usage): Event {
    const event = this.createEvent(ctx, { actions: { agentState: { ...progress } } });
    if (usage) event.usage = usage;
    return event;
  }
}

const isNames = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Reads a group chat's progress record back; other shapes are not its records. */
function readProgress(state: Record<string, unknown> | undefined): GroupChatProgress | undefined {
  if (!state || !isNames(state.speakers)) return undefined;
  const stop = state.stopReason;
  if ((stop === 'terminated' || stop === 'maxTurns' || stop === 'selector') && typeof state.turns === 'number') {
    return { stopReason: stop, turns: state.turns, speakers: state.speakers };
  }
  if (typeof state.done === 'boolean') return { speakers: state.speakers, done: state.done };
  return undefined;
}

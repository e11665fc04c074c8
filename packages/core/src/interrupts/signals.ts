import type { InterruptInfo } from '../events/event.js';

/** What a tool asks a human for; the agent adds where it came from. */
export type InterruptRequest = Pick<InterruptInfo, 'id' | 'kind' | 'hint' | 'message' | 'payload' | 'responseSchema'>;

/**
 * Thrown inside a tool by `requestConfirmation`/`requestInput` when no answer is known yet: the
 * call stops here and the run pauses. Internal control flow, never reported as an error.
 */
export class ToolInterrupt extends Error {
  constructor(readonly request: InterruptRequest) {
    super(`Tool call paused for ${request.kind} (interrupt ${request.id}).`);
  }
}

/** Thrown by a tool whose inner run paused (an AgentTool whose agent is waiting for a human). */
export class ToolPaused extends Error {
  constructor() {
    super('The tool call paused because the agent it runs is waiting for a human.');
  }
}

/** Thrown by `requestConfirmation` when the human said no: the tool does not run. */
export class ToolRejected extends Error {
  constructor(
    readonly interruptId: string,
    readonly payload: unknown,
  ) {
    super('The user rejected this tool call.');
  }
}

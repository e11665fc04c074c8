import { BasePlugin, type InvocationContext } from '@troupe/core';
import type { EventSink } from './event-sinks.js';

/**
 * Shows the user's own event of each turn (the message, or the answers of a resume) through a
 * sink, as soon as the runner has stored it: the runner yields only the agents' events, and a
 * script reading `--json` wants the whole conversation.
 */
export class ShowUserEvent extends BasePlugin {
  constructor(private readonly sink: () => EventSink) {
    super('troupe-cli-user-event');
  }

  override beforeRun({ context }: { context: InvocationContext }): undefined {
    const events = context.session.events;
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.invocationId !== context.invocationId) break;
      if (event.author === 'user') {
        this.sink().write(event);
        break;
      }
    }
    return undefined;
  }
}

import { type BaseAgent, TeamAgent } from '@troupe/core';
import type { EventSink } from './event-sinks.js';
import type { CliIo } from './io.js';
import type { TextStyle } from './terminal-style.js';

/**
 * Wraps a sink to warn on stderr when a TeamAgent that iterates (`iterateOn`) ends with no items:
 * its input had none under that field (a text message where a structured input was meant,
 * a misspelt field), so it did nothing, and the run would otherwise complete silently.
 */
export function warnOnEmptyTeams(sink: EventSink, root: BaseAgent, io: CliIo, style: TextStyle): EventSink {
  // Written once the turn's output has ended, so they never land inside the transcript or the spinner's line.
  let warnings: string[] = [];
  return {
    ...sink,
    endTurn() {
      sink.endTurn();
      for (const warning of warnings) io.stderr.write(warning);
      warnings = [];
    },
    write(event) {
      sink.write(event);
      if (event.partial || !event.actions.endOfAgent || !isObject(event.output)) return;
      const team = root.name === event.author ? root : root.findAgent(event.author);
      if (!(team instanceof TeamAgent) || team.iterateOn === undefined) return;
      const items = event.output[team.iterateOn];
      if (!Array.isArray(items) || items.length > 0) return;
      warnings.push(
        `${style.paint('error', 'Warning:')} team '${team.name}' iterated over zero items: its input has no '${team.iterateOn}' (or an empty list), so its skills never ran. Pass them in a structured input, e.g. --input-json '{"${team.iterateOn}": [...]}'.\n`,
      );
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

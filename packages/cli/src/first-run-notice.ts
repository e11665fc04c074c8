import { BasePlugin } from '@troupe/core';

/**
 * Lines about a run that a one-shot command prints once the run starts (its input accepted, its
 * message stored): that the offline model answers, that a new session was made. A run refused
 * before that (an input the agent's schema refuses) then shows only its usage error, not notes
 * about a run that never was. A chat prints them at once with {@link flush}.
 */
export class FirstRunNotice extends BasePlugin {
  private readonly lines: string[] = [];

  constructor(private readonly write: (text: string) => void) {
    super('first-run-notice');
  }

  /** Adds a line to print. */
  add(line: string): void {
    this.lines.push(line);
  }

  /** Prints the lines not printed yet. */
  flush(): void {
    if (this.lines.length > 0)
      this.write(
        this.lines
          .splice(0)
          .map((line) => `${line}\n`)
          .join(''),
      );
  }

  override beforeRun(): undefined {
    this.flush();
    return undefined;
  }
}

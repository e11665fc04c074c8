import { TroupeError } from '@troupe/core';

/** The command line was wrong: an unknown command or flag, a missing or extra argument. Exit code 2. */
export class CliUsageError extends TroupeError {
  constructor(message: string) {
    super('CLI_USAGE', message);
  }
}

/** Why an agent module could not be loaded. */
export type AgentLoadFailure = 'not-found' | 'unsupported-file' | 'bad-export' | 'invalid-definition' | 'import-failed';

/**
 * An agent file could not be found, imported, or did not export an agent. The message names the
 * file, what was found and what to change.
 */
export class AgentLoadError extends TroupeError {
  /**
   * What went wrong; `import-failed` is the module's own error (see `cause`), the rest are usage
   * mistakes (`invalid-definition`: a YAML/JSON definition core's `loadAgent` rejected; `cause` is its `AgentDefinitionError`).
   */
  readonly failure: AgentLoadFailure;

  constructor(failure: AgentLoadFailure, message: string, options?: { cause?: unknown }) {
    super('AGENT_LOAD', message, options);
    this.failure = failure;
  }
}

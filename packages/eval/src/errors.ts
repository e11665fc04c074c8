import { TroupeError } from '@troupe/core';

/** An eval set file or object is malformed. The message names the file, the field and the fix. */
export class EvalSetError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EVAL_SET', message, options);
  }
}

/** `evaluate` was called with options it cannot use (unknown metric, bad threshold, no eval set). */
export class EvalConfigError extends TroupeError {
  constructor(message: string) {
    super('EVAL_CONFIG', message);
  }
}

/** The judge model failed to answer (its error is the `cause`). */
export class JudgeError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('EVAL_JUDGE', message, options);
  }
}

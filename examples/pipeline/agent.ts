/**
 * Sequential pipeline pattern.
 *
 * A SequentialAgent runs its steps in a fixed order on the same session state. Each step stores
 * its answer with `outputKey`, and the next step reads it through an `{key}` placeholder in its
 * instruction: ValidateInput -> state.validation_status -> ProcessData -> state.result -> ReportResult.
 *
 * Try: npx troupe run examples/pipeline --input "Sum these numbers: 4, 8, 15, 16, 23, 42"
 */
import { LlmAgent, SequentialAgent } from '@troupe/core';

export const validator = new LlmAgent({
  name: 'ValidateInput',
  description: 'Checks that the input can be processed.',
  instruction:
    "Validate the input. Reply with exactly 'valid' if it is a list of numbers to process, otherwise 'invalid'.",
  outputKey: 'validation_status',
});

export const processor = new LlmAgent({
  name: 'ProcessData',
  description: 'Processes validated input.',
  instruction:
    "The validation status is '{validation_status}'. If it is 'valid', process the user's data as they ask and reply with the result; otherwise reply 'nothing to process'.",
  outputKey: 'result',
});

export const reporter = new LlmAgent({
  name: 'ReportResult',
  description: 'Reports the result to the user.',
  instruction: 'Report the result to the user in one friendly sentence. The result: {result}',
});

export const rootAgent = new SequentialAgent({
  name: 'DataPipeline',
  description: 'Validates, processes and reports data.',
  subAgents: [validator, processor, reporter],
});

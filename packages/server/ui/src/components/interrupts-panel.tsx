import { useState } from 'preact/hooks';
import { codeToReview, inputAnswer } from '../model/interrupts.js';
import type { InterruptInfo } from '../types.js';
import { prettyJson } from './format.js';

/** Props of {@link InterruptsPanel}. */
export interface InterruptsPanelProps {
  interrupts: readonly InterruptInfo[];
  disabled: boolean;
  onAnswer: (interrupt: InterruptInfo, answer: unknown) => void;
}

/** The open interrupts of the session: approve or reject a tool, or answer an input request. */
export function InterruptsPanel({ interrupts, disabled, onAnswer }: InterruptsPanelProps) {
  if (interrupts.length === 0) return null;
  return (
    <section class="interrupts" aria-labelledby="interrupts-heading">
      <h3 id="interrupts-heading">Waiting for you ({interrupts.length})</h3>
      {interrupts.map((interrupt) => (
        <InterruptCard key={interrupt.id} interrupt={interrupt} disabled={disabled} onAnswer={onAnswer} />
      ))}
    </section>
  );
}

function InterruptCard({
  interrupt,
  disabled,
  onAnswer,
}: {
  interrupt: InterruptInfo;
  disabled: boolean;
  onAnswer: InterruptsPanelProps['onAnswer'];
}) {
  const [text, setText] = useState('');
  const inputId = `answer-${interrupt.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const prompt =
    interrupt.kind === 'confirmation'
      ? (interrupt.hint ?? `Allow ${interrupt.toolName} to run?`)
      : (interrupt.message ?? `${interrupt.toolName} needs an answer.`);
  const review = codeToReview(interrupt);
  return (
    <article
      class="interrupt"
      aria-label={`${interrupt.kind === 'confirmation' ? 'Confirmation' : 'Input request'} for ${interrupt.toolName}`}
    >
      <p class="interrupt-title">
        <span class="badge warn">{interrupt.kind === 'confirmation' ? 'approval' : 'input'}</span>{' '}
        <strong>{interrupt.toolName}</strong> <span class="muted">by {interrupt.agentPath}</span>
      </p>
      <p>{prompt}</p>
      {review && (
        <figure class="code-review">
          <figcaption>
            {review.language}
            {review.args.length > 0 && <span class="muted"> with arguments {review.args.join(' ')}</span>}
            {review.files.length > 0 && <span class="muted">; files: {review.files.join(', ')}</span>}
          </figcaption>
          <pre class="json code" aria-label={`${review.language} code to run`}>
            {review.code}
          </pre>
        </figure>
      )}
      <details>
        <summary>Arguments</summary>
        <pre class="json">{prettyJson(interrupt.args)}</pre>
        {interrupt.payload !== undefined && <pre class="json">{prettyJson(interrupt.payload)}</pre>}
      </details>
      {interrupt.kind === 'confirmation' ? (
        <div class="actions">
          <button type="button" class="primary" disabled={disabled} onClick={() => onAnswer(interrupt, true)}>
            Approve
          </button>
          <button type="button" class="danger" disabled={disabled} onClick={() => onAnswer(interrupt, false)}>
            Reject
          </button>
        </div>
      ) : (
        <form
          class="actions"
          onSubmit={(e) => {
            e.preventDefault();
            onAnswer(interrupt, inputAnswer(interrupt, text));
          }}
        >
          <label for={inputId}>Answer</label>
          <input id={inputId} value={text} onInput={(e) => setText(e.currentTarget.value)} disabled={disabled} />
          <button type="submit" class="primary" disabled={disabled}>
            Send answer
          </button>
          {interrupt.responseSchema && (
            <details>
              <summary>Expected answer</summary>
              <pre class="json">{prettyJson(interrupt.responseSchema)}</pre>
            </details>
          )}
        </form>
      )}
    </article>
  );
}

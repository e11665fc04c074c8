import type { PatternProgress } from '../model/pattern-progress.js';

/**
 * A plan-execute agent's plan with its finished steps ticked and its latest progress in words (kept
 * after the plan ended), and a group chat's speaker order; nothing when the app has neither.
 */
export function PatternPanel({ progress }: { progress: PatternProgress }) {
  if (progress.plans.length === 0 && progress.chats.length === 0) return null;
  return (
    <section class="panel patterns" aria-labelledby="patterns-heading">
      <div class="panel-head">
        <h2 id="patterns-heading">Patterns</h2>
      </div>
      {progress.plans.map((plan) => (
        <div class="pattern" key={`plan-${plan.agent}`}>
          <h3 class="small-text">{plan.agent}: plan</h3>
          {plan.status !== undefined && (
            <p class={plan.finished ? 'plan-status finished' : 'plan-status'} data-finished={plan.finished}>
              {plan.status}
            </p>
          )}
          <ol class="plan-steps" aria-label={`Plan of ${plan.agent}`}>
            {plan.steps.map((step, i) => (
              <li key={i} class={`plan-step ${step.state}`} data-state={step.state}>
                <span aria-hidden="true">{step.state === 'done' ? '✓ ' : step.state === 'current' ? '▶ ' : '○ '}</span>
                {step.text}
                <span class="visually-hidden"> ({step.state})</span>
              </li>
            ))}
          </ol>
        </div>
      ))}
      {progress.chats.map((chat) => (
        <div class="pattern" key={`chat-${chat.agent}`}>
          <h3 class="small-text">{chat.agent}: speakers</h3>
          {chat.speakers.length === 0 ? (
            <p class="empty">Nobody has spoken yet.</p>
          ) : (
            <ol class="speaker-order" aria-label={`Speaker order of ${chat.agent}`}>
              {chat.speakers.map((speaker, i) => (
                <li key={i}>{speaker}</li>
              ))}
            </ol>
          )}
        </div>
      ))}
    </section>
  );
}

import { blockedTitle, compactJson, type EventFact } from '../model/event-facts.js';
import { InlineData } from './inline-data.js';

/** The facts of one event as short lines: text, tool calls and results, transfers, usage, errors... */
export function EventFactsView({ facts }: { facts: readonly EventFact[] }) {
  if (facts.length === 0) return <p class="muted small-text">(no content)</p>;
  return (
    <ul class="facts">
      {facts.map((fact, i) => (
        <li key={i} class={`fact fact-${fact.kind}`}>
          <FactLine fact={fact} />
        </li>
      ))}
    </ul>
  );
}

function FactLine({ fact }: { fact: EventFact }) {
  switch (fact.kind) {
    case 'text':
      return <span class="text">{clip(fact.text, 280)}</span>;
    case 'thought':
      return <span class="muted">thought: {clip(fact.text, 200)}</span>;
    case 'call':
      return (
        <span>
          <span class="tag call">call</span> <code>{fact.name}</code> <code class="args">{compactJson(fact.args)}</code>
        </span>
      );
    case 'result':
      return (
        <span>
          <span class="tag result">result</span> <code>{fact.name}</code>{' '}
          <code class="args">{compactJson(fact.response)}</code>
        </span>
      );
    case 'data':
      return <InlineData mimeType={fact.mimeType} data={fact.data} />;
    case 'transfer':
      return (
        <span>
          <span class="tag transfer">transfer</span> to <strong>{fact.to}</strong>
        </span>
      );
    case 'route':
      return (
        <span>
          <span class="tag transfer">route</span> <strong>{fact.key}</strong>
          {fact.reason ? <span class="muted"> — {fact.reason}</span> : null}
        </span>
      );
    case 'escalate':
      return <span class="tag transfer">escalate</span>;
    case 'state':
      return (
        <span>
          <span class="tag state">state</span> {fact.keys.join(', ')}
        </span>
      );
    case 'output':
      return (
        <span>
          <span class="tag">output</span> <code class="args">{compactJson(fact.value)}</code>
        </span>
      );
    case 'usage':
      return (
        <span class="muted">
          <span class="tag usage">usage</span> {fact.input} in · {fact.output} out
          {fact.cached ? ` · ${fact.cached} cached` : ''}
          {fact.thought ? ` · ${fact.thought} thought` : ''}
        </span>
      );
    case 'error':
      return (
        <span class="error-text">
          <span class="tag error">error</span> {fact.code}: {fact.message}
        </span>
      );
    case 'blocked':
      return (
        <span class="blocked-card">
          <span class="tag error">blocked</span> <strong class="error-text">{blockedTitle(fact)}</strong>
          <span class="muted"> — {clip(fact.message, 400)}</span>
        </span>
      );
    case 'interrupt':
      return (
        <span>
          <span class="tag warn">{fact.interruptKind === 'confirmation' ? 'approval' : 'input'}</span>{' '}
          <code>{fact.toolName}</code> <code class="args">{compactJson(fact.args)}</code>
          {fact.prompt ? <span class="muted"> — {clip(fact.prompt, 160)}</span> : null}
        </span>
      );
    case 'progress':
      return (
        <span class="progress-line">
          <span class={`tag progress ${fact.workflow}`}>
            {fact.workflow === 'plan_execute' ? 'plan' : fact.workflow.replace('_', ' ')}
          </span>{' '}
          {fact.text}
        </span>
      );
    case 'custom':
      return (
        <span>
          <span class="tag custom">{fact.name}</span>
          {fact.data === undefined ? null : <code class="args"> {compactJson(fact.data)}</code>}
        </span>
      );
    case 'answers':
      return (
        <span>
          <span class="tag result">answers</span> <code class="args">{compactJson(fact.answers)}</code>
        </span>
      );
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

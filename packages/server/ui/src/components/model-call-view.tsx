import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ApiClient } from '../api.js';
import { modelCallOf, type ModelCall } from '../model/model-call.js';
import type { Content, WireEvent } from '../types.js';
import { compactJson } from '../model/event-facts.js';
import { prettyJson } from './format.js';
import { Markdown } from './markdown.js';

/**
 * What the model saw for the selected event: the request of the model call that produced it
 * (system instruction, contents, tools, settings) and the response, from `GET /debug/trace/{id}`.
 * Shown only for events the server kept a model call for.
 */
export function ModelCallView({ api, event }: { api: ApiClient; event: WireEvent }) {
  // Kept with the id of the event it belongs to: when another event is selected, the render before
  // the effect runs must not show the previous event's model call under the new event.
  const [loaded, setLoaded] = useState<{ eventId: string; call: ModelCall | 'none' | { failed: string } }>();
  useEffect(() => {
    const eventId = event.id;
    if (event.author === 'user' || eventId.startsWith('local-')) return setLoaded({ eventId, call: 'none' });
    let current = true;
    api.eventTrace(eventId).then(
      (attributes) => current && setLoaded({ eventId, call: modelCallOf(attributes) ?? 'none' }),
      (error: unknown) => {
        // 404: no model call made this event (or it ran before the server started): nothing to show.
        if (!current) return;
        if (error instanceof ApiError && error.status === 404) setLoaded({ eventId, call: 'none' });
        else setLoaded({ eventId, call: { failed: error instanceof Error ? error.message : String(error) } });
      },
    );
    return () => {
      current = false;
    };
  }, [api, event.id, event.author]);

  const call = loaded?.eventId === event.id ? loaded.call : 'loading';
  if (call === 'none' || call === 'loading') return null;
  if ('failed' in call) return <p class="muted">Could not read the model call: {call.failed}</p>;
  return (
    <section class="model-call" aria-label="Model call">
      <h3>
        Model call <span class="muted">{call.model}</span>
      </h3>
      <h4>System instruction</h4>
      {call.systemInstruction ? (
        <pre class="json system-instruction">{call.systemInstruction}</pre>
      ) : (
        <p class="muted">(none)</p>
      )}
      <h4>
        Contents <span class="muted">({call.contents.length})</span>
      </h4>
      <ol class="request-contents">
        {call.contents.map((content, i) => (
          <li key={i} class={`content-${content.role}`}>
            <span class="tag">{content.role}</span> <ContentParts content={content} />
          </li>
        ))}
      </ol>
      <h4>
        Tools <span class="muted">({call.tools.length})</span>
      </h4>
      {call.tools.length === 0 ? (
        <p class="muted">(none)</p>
      ) : (
        <ul class="request-tools">
          {call.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code> <span class="muted">{tool.description}</span>
              {tool.parameters !== undefined && <code class="args"> {compactJson(tool.parameters, 200)}</code>}
            </li>
          ))}
        </ul>
      )}
      {Object.keys(call.config).length > 0 && (
        <details>
          <summary>Settings</summary>
          <pre class="json">{prettyJson(call.config)}</pre>
        </details>
      )}
      <h4>Response</h4>
      {call.response?.content ? (
        <div class="model-response">
          <ContentParts content={call.response.content} />
        </div>
      ) : (
        <p class="muted">{call.response?.errorMessage ?? '(no content)'}</p>
      )}
      {(call.response?.finishReason || call.response?.usage) && (
        <p class="muted small-text">
          {call.response.finishReason ? `finish: ${call.response.finishReason}` : ''}
          {call.response.usage ? ` usage: ${compactJson(call.response.usage)}` : ''}
        </p>
      )}
      <details>
        <summary>Request and response JSON</summary>
        <pre class="json">{prettyJson(call)}</pre>
      </details>
    </section>
  );
}

/** A content's parts: text as Markdown, calls and results as one line of JSON. */
function ContentParts({ content }: { content: Content }) {
  return (
    <div class="content-parts">
      {content.parts.map((part, i) =>
        'text' in part ? (
          part.thought ? (
            <p key={i} class="muted">
              thought: {part.text}
            </p>
          ) : (
            <Markdown key={i} text={part.text} />
          )
        ) : 'functionCall' in part ? (
          <p key={i}>
            <span class="tag call">call</span> <code>{part.functionCall.name}</code>{' '}
            <code class="args">{compactJson(part.functionCall.args)}</code>
          </p>
        ) : 'functionResponse' in part ? (
          <p key={i}>
            <span class="tag result">result</span> <code>{part.functionResponse.name}</code>{' '}
            <code class="args">{compactJson(part.functionResponse.response)}</code>
          </p>
        ) : (
          <p key={i} class="muted">
            {compactJson(part)}
          </p>
        ),
      )}
    </div>
  );
}

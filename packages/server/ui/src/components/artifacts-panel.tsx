import { useEffect, useState } from 'preact/hooks';
import type { ApiClient, SessionRef } from '../api.js';
import type { Part } from '../types.js';
import { isImageType } from '../model/image-types.js';
import { base64Bytes, dataUrl } from './inline-data.js';

/** Props of {@link ArtifactsPanel}. */
export interface ArtifactsPanelProps {
  api: ApiClient;
  session: SessionRef;
  /** Changes when the session may have new artifacts (its event count): the list is read again. */
  refresh: number;
  onError: (error: unknown) => void;
}

/** The session's artifacts (its own and the user's `user:` ones): names, versions, and the chosen version's content. */
export function ArtifactsPanel({ api, session, refresh, onError }: ArtifactsPanelProps) {
  const [names, setNames] = useState<string[]>([]);
  const [open, setOpen] = useState<{ name: string; versions: number[]; version: number; part: Part | undefined }>();
  const { app, user, sessionId } = session;

  useEffect(() => {
    let current = true;
    api
      .listArtifacts({ app, user, sessionId })
      .then((list) => current && setNames(list))
      .catch(onError);
    return () => {
      current = false;
    };
  }, [api, app, user, sessionId, refresh, onError]);

  useEffect(() => setOpen(undefined), [app, user, sessionId]);

  const show = async (name: string, version?: number) => {
    try {
      const ref = { app, user, sessionId };
      const versions = await api.artifactVersions(ref, name);
      const chosen = version ?? versions.at(-1) ?? 0;
      setOpen({ name, versions, version: chosen, part: undefined });
      const part = await api.loadArtifact(ref, name, chosen);
      setOpen({ name, versions, version: chosen, part });
    } catch (error) {
      onError(error);
    }
  };

  return (
    <section class="panel artifacts" aria-labelledby="artifacts-heading">
      <div class="panel-head">
        <h2 id="artifacts-heading">Artifacts</h2>
      </div>
      {names.length === 0 ? (
        <p class="empty">No artifacts in this session.</p>
      ) : (
        <ul class="artifact-list" aria-label="Artifacts of the session">
          {names.map((name) => (
            <li key={name} class={open?.name === name ? 'selected' : ''}>
              <button type="button" class="link" onClick={() => void show(name)} aria-expanded={open?.name === name}>
                {name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {open && (
        <div class="artifact-view" data-artifact={open.name}>
          <div class="artifact-versions" role="group" aria-label={`Versions of ${open.name}`}>
            <span class="small-text muted">versions:</span>
            {open.versions.map((v) => (
              <button
                key={v}
                type="button"
                class={`small${v === open.version ? ' active' : ''}`}
                aria-pressed={v === open.version}
                onClick={() => void show(open.name, v)}
              >
                {v}
              </button>
            ))}
          </div>
          {open.part === undefined ? (
            <p class="muted small-text">Loading…</p>
          ) : (
            <ArtifactContent name={open.name} version={open.version} part={open.part} />
          )}
        </div>
      )}
    </section>
  );
}

/** One version's content: an image inline, text as text, anything else as a download link. */
function ArtifactContent({ name, version, part }: { name: string; version: number; part: Part }) {
  if ('text' in part) return <pre class="artifact-text">{part.text}</pre>;
  if ('inlineData' in part) {
    const { mimeType, data } = part.inlineData;
    if (isImageType(mimeType))
      return <img class="artifact-image" src={dataUrl(mimeType, data)} alt={`${name} (version ${version})`} />;
    if (/^text\/|^application\/(json|xml)/i.test(mimeType)) return <pre class="artifact-text">{decodeText(data)}</pre>;
    return (
      <a class="artifact-download" href={dataUrl(mimeType, data)} download={downloadName(name)}>
        Download {name} ({mimeType}, {base64Bytes(data)} bytes)
      </a>
    );
  }
  return <pre class="artifact-text">{JSON.stringify(part, null, 2)}</pre>;
}

function decodeText(data: string): string {
  const binary = atob(data);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** A file name for the browser: the artifact's last path segment, without the `user:` prefix. */
function downloadName(name: string): string {
  return (
    name
      .replace(/^user:/, '')
      .split('/')
      .pop() || 'artifact'
  );
}

import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, type ApiClient, type SessionRef } from './api.js';
import { AgentTree } from './components/agent-tree.js';
import { ArtifactsPanel } from './components/artifacts-panel.js';
import { ChatPanel } from './components/chat-panel.js';
import { EventDetail } from './components/event-detail.js';
import { EvalPanel } from './components/eval-panel.js';
import { EventsPanel } from './components/events-panel.js';
import { Header } from './components/header.js';
import { InputForm } from './components/input-form.js';
import { PatternPanel } from './components/pattern-panel.js';
import { SessionsPanel } from './components/sessions-panel.js';
import { TokenForm } from './components/token-form.js';
import { TraceView } from './components/trace-view.js';
import type { PickedNode } from './components/workflow-graph-view.js';
import { WorkflowPanel } from './components/workflow-panel.js';
import { kindsOf } from './model/agent-kinds.js';
import { openInterrupts } from './model/interrupts.js';
import { foldEvent, localInputEvent, localResumeEvent, localUserEvent, type LiveView } from './model/live-run.js';
import { patternProgress } from './model/pattern-progress.js';
import { initialStateOf, replayStates, type StateMap } from './model/state-replay.js';
import { transcript } from './model/transcript.js';
import { workflowSites } from './model/workflow-graph.js';
import type { UrlState } from './url-state.js';
import type { AgentGraphNode, InterruptInfo, SessionSummary, WireEvent, WireSession } from './types.js';

/** Props of {@link App}. */
export interface AppProps {
  api: ApiClient;
  /** Where the UI was pointed at (app, user, session from the URL), and how to record changes. */
  url: UrlState;
  /** Stores the token typed after a 401. */
  setToken: (token: string) => void;
  /** Calls the listener when a token arrives another way (a `#token=` link opened in this tab); returns the unsubscribe. */
  onTokenChange?: (listener: () => void) => () => void;
}

/** What the right-hand column shows. */
type Tab = 'events' | 'graph' | 'trace' | 'eval';
const TABS: ReadonlyArray<readonly [Tab, string]> = [
  ['events', 'Events'],
  ['graph', 'Graph'],
  ['trace', 'Trace'],
  ['eval', 'Eval'],
];

const EMPTY_VIEW: LiveView = { events: [], streaming: undefined };
const REPLAY_STEP_MS = 700;

/** The dev UI: apps, sessions, the agent tree, the chat, the events and the state they changed. */
export function App({ api, url, setToken, onTokenChange }: AppProps) {
  const [apps, setApps] = useState<string[]>([]);
  const [app, setApp] = useState<string | undefined>(url.initial.app);
  const [user, setUser] = useState(url.initial.user ?? 'user');
  const [sessions, setSessions] = useState<WireSession[]>([]);
  /** Why the sessions could not be listed, shown in their panel instead of "No sessions yet." */
  const [sessionsError, setSessionsError] = useState<string>();
  const [summaries, setSummaries] = useState<ReadonlyMap<string, SessionSummary>>(new Map());
  const [inputSchema, setInputSchema] = useState<Record<string, unknown> | null>(null);
  const [tab, setTab] = useState<Tab>('events');
  const [graph, setGraph] = useState<AgentGraphNode>();
  /** The workflow node whose runs the Graph tab shows. */
  const [pickedNode, setPickedNode] = useState<PickedNode>();
  const [sessionId, setSessionId] = useState<string>();
  const [initial, setInitial] = useState<StateMap>({});
  const [view, setView] = useState<LiveView>(EMPTY_VIEW);
  const [running, setRunning] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [speaking, setSpeaking] = useState<{ author: string; path: string }>();
  const [selected, setSelected] = useState<number>();
  const [replayAt, setReplayAt] = useState<number>();
  const [error, setError] = useState<string>();
  const [needToken, setNeedToken] = useState(false);
  const [reload, setReload] = useState(0);
  /** Bumped to open the structured input form (after a text message the agent refused). */
  const [openInputForm, setOpenInputForm] = useState(0);
  const pendingSession = useRef(url.initial.session);
  const currentRun = useRef<{ ref: SessionRef; controller: AbortController } | undefined>(undefined);
  const creating = useRef<Promise<SessionRef | undefined> | undefined>(undefined);

  const report = useCallback((caught: unknown) => {
    if (caught instanceof DOMException && caught.name === 'AbortError') return;
    if (caught instanceof ApiError && caught.status === 401) setNeedToken(true);
    setError(caught instanceof Error ? caught.message : String(caught));
  }, []);

  // A token given by a #token= link in this tab: read the apps again with it.
  useEffect(
    () =>
      onTokenChange?.(() => {
        setNeedToken(false);
        setError(undefined);
        setReload((n) => n + 1);
      }),
    [onTokenChange],
  );

  // The apps, again after a token was given.
  useEffect(() => {
    api
      .listApps()
      .then((names) => {
        setNeedToken(false);
        setApps(names);
        setApp((current) => (current !== undefined && names.includes(current) ? current : names[0]));
      })
      .catch(report);
  }, [api, report, reload]);

  const openSession = useCallback(
    async (ref: SessionRef) => {
      const stored = await api.getSession(ref);
      setSessionId(stored.id);
      setInitial(initialStateOf(stored));
      setView({ events: stored.events ?? [], streaming: undefined });
      setSelected(undefined);
      setReplayAt(undefined);
      url.record({ app: ref.app, user: ref.user, session: stored.id });
    },
    [api, url],
  );

  /** The sessions' names and start times (a list of sessions carries no events to name them by). */
  const refreshSummaries = useCallback(
    async (appName: string) => {
      const list = await api.sessionSummaries(appName, user);
      setSummaries(new Map(list.map((summary) => [summary.id, summary])));
    },
    [api, user],
  );

  // The graph and sessions of the app; the session named in the URL is opened once.
  useEffect(() => {
    setGraph(undefined);
    setInputSchema(null);
    setSessions([]);
    setSessionsError(undefined);
    setSummaries(new Map());
    setSessionId(undefined);
    setView(EMPTY_VIEW);
    setSelected(undefined);
    if (app === undefined) return;
    url.record({ app, user });
    let current = true;
    (async () => {
      // Each read on its own: an app that fails to load still lists its stored sessions, and a
      // listing that fails says so in the Sessions panel.
      const [tree, listed, schema] = await Promise.allSettled([
        api.graph(app),
        api.listSessions(app, user),
        api.inputSchema(app),
      ]);
      if (!current) return;
      if (tree.status === 'fulfilled') setGraph(tree.value);
      else report(tree.reason);
      // The schema needs the app loaded too: its failure is the graph's, reported once.
      if (schema.status === 'fulfilled') setInputSchema(schema.value);
      else if (tree.status === 'fulfilled') report(schema.reason);
      if (listed.status === 'rejected') {
        if (listed.reason instanceof ApiError && listed.reason.status === 401) report(listed.reason);
        else setSessionsError(messageOf(listed.reason));
        return;
      }
      const list = listed.value;
      void refreshSummaries(app).catch(report);
      // A session created while the list was loading is kept.
      setSessions((known) => [...list, ...known.filter((s) => !list.some((l) => l.id === s.id))]);
      const wanted = pendingSession.current;
      pendingSession.current = undefined;
      if (wanted !== undefined && list.some((s) => s.id === wanted))
        await openSession({ app, user, sessionId: wanted });
    })().catch(report);
    return () => {
      current = false;
    };
  }, [api, app, user, url, openSession, report, refreshSummaries, reload]);

  const refreshSessions = useCallback(async () => {
    if (app === undefined) return;
    try {
      setSessions(await api.listSessions(app, user));
      setSessionsError(undefined);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) throw caught;
      setSessionsError(messageOf(caught));
      return;
    }
    await refreshSummaries(app);
  }, [api, app, user, refreshSummaries]);

  const newSession = useCallback((): Promise<SessionRef | undefined> => {
    if (app === undefined) return Promise.resolve(undefined);
    const creation = (async () => {
      const created = await api.createSession(app, user);
      setSessions((list) => [...list, created]);
      setSessionId(created.id);
      setInitial(initialStateOf(created));
      setView({ events: created.events ?? [], streaming: undefined });
      setSelected(undefined);
      setReplayAt(undefined);
      url.record({ app, user, session: created.id });
      return { app, user, sessionId: created.id };
    })();
    // A message sent before the new session exists goes to it, rather than to yet another new one.
    creating.current = creation;
    const forget = () => {
      if (creating.current === creation) creating.current = undefined;
    };
    creation.then(forget, forget);
    return creation;
  }, [api, app, user, url]);

  /** Streams a run (a new message or a resume), then reads the stored session again. */
  const stream = useCallback(
    async (
      ref: SessionRef,
      opening: WireEvent,
      start: (onEvent: (event: WireEvent) => void, signal: AbortSignal) => Promise<void>,
    ) => {
      const controller = new AbortController();
      currentRun.current = { ref, controller };
      setRunning(true);
      setError(undefined);
      setSelected(undefined);
      setReplayAt(undefined);
      setView((v) => foldEvent(v, opening));
      try {
        await start((event) => {
          if (event.author && event.author !== 'user') setSpeaking({ author: event.author, path: event.path });
          setView((v) => foldEvent(v, event));
        }, controller.signal);
      } catch (caught) {
        // A text message (its opening event holds text, no input) to an agent that takes a
        // structured input: the server names the shape; the form under the chat is the way to send it.
        const text = opening.content !== undefined && opening.actions.agentState === undefined;
        if (caught instanceof ApiError && caught.code === 'INPUT_VALIDATION' && text && inputSchema !== null) {
          setError(`${caught.message} Fill in the Structured input form under the chat instead.`);
          setOpenInputForm((n) => n + 1);
        } else report(caught);
      } finally {
        currentRun.current = undefined;
        setRunning(false);
        setStopping(false);
        setSpeaking(undefined);
        await openSession(ref).catch(report);
        await refreshSessions().catch(report);
      }
    },
    [openSession, refreshSessions, report, inputSchema],
  );

  const send = useCallback(
    async (message: { text: string } | { input: Record<string, unknown> }) => {
      try {
        const pending = creating.current ? await creating.current : undefined;
        const ref =
          pending ?? (sessionId !== undefined && app !== undefined ? { app, user, sessionId } : await newSession());
        if (!ref) return;
        const opening =
          'text' in message ? localUserEvent(message.text, Date.now()) : localInputEvent(message.input, Date.now());
        await stream(ref, opening, (onEvent, signal) => api.runSse(ref, message, onEvent, signal));
      } catch (caught) {
        report(caught);
      }
    },
    [api, app, user, sessionId, newSession, stream, report],
  );

  /**
   * Stop: the server cancels the run and answers once its cancellation is stored. The run's own
   * stream then ends with that event, and `stream` reads the session again, so the cancellation
   * is shown (dropping the connection instead would read the session before it was stored).
   */
  const stop = useCallback(async () => {
    const run = currentRun.current;
    if (!run) return;
    setStopping(true);
    try {
      const ended = await api.cancelRun(run.ref);
      if (currentRun.current === run) setView((v) => foldEvent(v, ended));
    } catch (caught) {
      // Nothing runs there in this server any more, or the request failed: dropping the
      // connection cancels whatever is left of the run.
      run.controller.abort();
      if (!(caught instanceof ApiError && caught.status === 404)) report(caught);
    }
  }, [api, report]);

  const events = view.events;
  const interrupts = useMemo(() => (running ? [] : openInterrupts(events)), [events, running]);

  const answer = useCallback(
    (interrupt: InterruptInfo, value: unknown) => {
      if (app === undefined || sessionId === undefined) return;
      const ref = { app, user, sessionId };
      const invocationId = events.find((e) => e.interrupt?.id === interrupt.id)?.invocationId ?? '';
      const responses = { [interrupt.id]: value };
      void stream(ref, localResumeEvent(invocationId, responses, Date.now()), (onEvent, signal) =>
        api.resumeSse(ref, responses, onEvent, signal),
      );
    },
    [api, app, user, sessionId, events, stream],
  );

  // Replay: select one event after the other; the chat and the tree follow the selection.
  useEffect(() => {
    if (replayAt === undefined) return;
    setSelected(replayAt);
    if (replayAt >= events.length - 1) {
      setReplayAt(undefined);
      return;
    }
    const timer = setTimeout(() => setReplayAt(replayAt + 1), REPLAY_STEP_MS);
    return () => clearTimeout(timer);
  }, [replayAt, events.length]);

  const kindOf = useMemo(() => kindsOf(graph), [graph]);
  // The Graph tab is there for apps with a graph workflow.
  const sites = useMemo(() => workflowSites(graph), [graph]);
  const tabs = sites.length > 0 ? TABS : TABS.filter(([id]) => id !== 'graph');
  const shownTab = tab === 'graph' && sites.length === 0 ? 'events' : tab;
  const steps = useMemo(() => replayStates(initial, events), [initial, events]);
  // The patterns as of the selected event (or the latest), like the state view.
  const patterns = useMemo(() => {
    const upTo = selected ?? events.length - 1;
    return patternProgress(graph, events.slice(0, upTo + 1), steps[upTo]?.after ?? initial);
  }, [graph, events, steps, selected, initial]);
  const shownEvents = replayAt === undefined ? events : events.slice(0, replayAt + 1);
  const items = useMemo(() => transcript(shownEvents, kindOf), [shownEvents, kindOf]);
  const selectedEvent = selected === undefined ? undefined : events[selected];
  const active = running
    ? speaking
    : selectedEvent && selectedEvent.author !== 'user'
      ? { author: selectedEvent.author, path: selectedEvent.path }
      : undefined;

  const sendBlocked =
    app === undefined
      ? 'Pick an app first'
      : running
        ? 'Wait for the run to finish'
        : interrupts.length > 0
          ? 'Answer the open interrupt above first'
          : undefined;
  const status = running
    ? `Running${speaking ? `: ${speaking.author} is speaking` : '…'}`
    : interrupts.length > 0
      ? `Paused: ${interrupts.length} interrupt${interrupts.length > 1 ? 's' : ''} waiting`
      : sessionId
        ? `Session ${sessionId}`
        : 'No session open';

  return (
    <div class="layout">
      <Header apps={apps} app={app} onApp={setApp} user={user} onUser={setUser} status={status} />
      {error && (
        <div class="alert" role="alert">
          <span>{error}</span>
          <button type="button" class="small" onClick={() => setError(undefined)}>
            Dismiss
          </button>
        </div>
      )}
      {needToken && (
        <TokenForm
          onToken={(token) => {
            setToken(token);
            setError(undefined);
            setReload((n) => n + 1);
          }}
        />
      )}
      <main class="columns">
        <div class="column left">
          <SessionsPanel
            sessions={sessions}
            error={sessionsError}
            summaries={summaries}
            current={sessionId}
            disabled={running || app === undefined}
            onNew={() => void newSession().catch(report)}
            onOpen={(id) => app !== undefined && void openSession({ app, user, sessionId: id }).catch(report)}
          />
          <AgentTree graph={graph} active={active?.author} activePath={active?.path} live={running} />
          <PatternPanel progress={patterns} />
          {app !== undefined && sessionId !== undefined && (
            <ArtifactsPanel
              api={api}
              session={{ app, user, sessionId }}
              refresh={running ? -1 : events.length}
              onError={report}
            />
          )}
        </div>
        <ChatPanel
          items={items}
          streaming={view.streaming}
          interrupts={interrupts}
          running={running}
          stopping={stopping}
          sendBlocked={sendBlocked}
          onSend={(text) => void send({ text })}
          inputForm={
            inputSchema ? (
              <InputForm
                schema={inputSchema}
                sendBlocked={sendBlocked}
                onSend={(input) => void send({ input })}
                openRequest={openInputForm}
              />
            ) : undefined
          }
          onAnswer={answer}
          onStop={() => void stop()}
          onSelectEvent={(index) => {
            setReplayAt(undefined);
            setSelected(index);
          }}
        />
        <div class="column right">
          <div class="tabs" role="tablist" aria-label="Inspect">
            {tabs.map(([id, label]) => (
              <button
                key={id}
                type="button"
                role="tab"
                id={`tab-${id}`}
                aria-selected={shownTab === id}
                class={shownTab === id ? 'tab active' : 'tab'}
                onClick={() => setTab(id)}
              >
                {label}
              </button>
            ))}
          </div>
          {shownTab === 'graph' && (
            <WorkflowPanel
              sites={sites}
              events={events}
              selected={selected}
              running={running}
              picked={pickedNode}
              onPick={setPickedNode}
              onSelect={(index) => {
                setReplayAt(undefined);
                setSelected(index);
              }}
            />
          )}
          {shownTab === 'trace' && app !== undefined && (
            <TraceView
              api={api}
              app={app}
              sessionId={sessionId}
              refresh={running ? -1 : events.length}
              onSelectEvent={(eventId) => {
                const index = events.findIndex((event) => event.id === eventId);
                if (index < 0) return;
                setReplayAt(undefined);
                setSelected(index);
                setTab('events');
              }}
            />
          )}
          {shownTab === 'eval' && app !== undefined && <EvalPanel api={api} app={app} />}
          {shownTab === 'events' && (
            <>
              <EventsPanel
                events={events}
                kindOf={kindOf}
                selected={selected}
                onSelect={(index) => {
                  setReplayAt(undefined);
                  setSelected(index);
                }}
                replaying={replayAt !== undefined}
                onReplay={() => setReplayAt(0)}
                onStopReplay={() => setReplayAt(undefined)}
                disabled={running}
                onRewind={(invocationId) => {
                  if (app === undefined || sessionId === undefined) return;
                  const ref = { app, user, sessionId };
                  void api
                    .rewind(ref, invocationId)
                    .then(() => openSession(ref))
                    .catch(report);
                }}
              />
              <EventDetail
                api={api}
                event={selectedEvent}
                index={selected}
                step={selected === undefined ? undefined : steps[selected]}
              />
            </>
          )}
        </div>
      </main>
    </div>
  );
}

/** The message of anything caught, for a line of the page. */
function messageOf(caught: unknown): string {
  return caught instanceof Error ? caught.message : String(caught);
}

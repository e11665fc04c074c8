import { type Event as AgUiEvent, EventType } from '@ag-ui/core';
import type { Event } from '@troupe/core';
import { encodeEvent } from '../wire.js';

/**
 * A graph workflow's node runs as AG-UI steps. A node run's start record opens a step named by
 * its `nodeInfo.path` (`triage.classify`; a dynamic child or worker item ends in `@<runId>`), and
 * its end record (or a failed try, after which a retry opens it again) finishes it. The end
 * record rides along as the step's `rawEvent`, as on `/run_sse`, so a client reads the node's
 * `output` and `route` there. A run resumed in this AG-UI run ends without having started here:
 * its step is opened and finished together. Steps still open when the run ends (a node waiting
 * for an answer) are finished before RUN_FINISHED, as AG-UI requires.
 */
export class NodeSteps {
  private readonly open = new Set<string>();

  /** The step events of one Troupe event: none for events that are not node records. */
  translate(event: Event): AgUiEvent[] {
    const path = event.nodeInfo?.path;
    const record = event.actions.agentState?.node;
    if (event.partial || path === undefined) return [];
    if (record === 'started') {
      if (this.open.has(path)) return [];
      this.open.add(path);
      return [{ type: EventType.STEP_STARTED, stepName: path }];
    }
    if (record !== 'ended' && record !== 'failed') return [];
    const out: AgUiEvent[] = this.open.has(path) ? [] : [{ type: EventType.STEP_STARTED, stepName: path }];
    this.open.delete(path);
    out.push({ type: EventType.STEP_FINISHED, stepName: path, rawEvent: encodeEvent(event) });
    return out;
  }

  /** Finishes the steps still open. */
  closeAll(): AgUiEvent[] {
    const out: AgUiEvent[] = [...this.open].map((stepName) => ({ type: EventType.STEP_FINISHED, stepName }));
    this.open.clear();
    return out;
  }
}

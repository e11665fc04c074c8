import type { AgentGraphNode } from '../types.js';

/** Props of {@link AgentTree}. */
export interface AgentTreeProps {
  graph: AgentGraphNode | undefined;
  /** The agent speaking now (during a run) or that wrote the selected event. */
  active: string | undefined;
  /** The `path` of that event: its agents from the root, highlighted more lightly. */
  activePath: string | undefined;
  /** True while a run streams: the active agent is speaking, not just selected. */
  live: boolean;
}

/** The app's agent tree from `GET /apps/{app}/graph`, with the speaking agent highlighted. */
export function AgentTree({ graph, active, activePath, live }: AgentTreeProps) {
  const onPath = new Set((activePath ?? '').split('/').filter(Boolean));
  return (
    <section class="panel tree" aria-labelledby="tree-heading">
      <div class="panel-head">
        <h2 id="tree-heading">Agents</h2>
        {active && (
          <span class={live ? 'badge speaking-badge' : 'badge'}>
            {live ? 'speaking' : 'selected'}: {active}
          </span>
        )}
      </div>
      {graph ? (
        <ul class="agent-tree" aria-label="Agent tree">
          <AgentNode node={graph} active={active} onPath={onPath} live={live} />
        </ul>
      ) : (
        <p class="empty">No app selected.</p>
      )}
    </section>
  );
}

function AgentNode({
  node,
  active,
  onPath,
  live,
}: {
  node: AgentGraphNode;
  active: string | undefined;
  onPath: ReadonlySet<string>;
  live: boolean;
}) {
  const isActive = node.name === active;
  const classes = [
    'agent-node',
    isActive ? (live ? 'speaking' : 'active') : '',
    !isActive && onPath.has(node.name) ? 'on-path' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <li>
      <div
        class={classes}
        aria-current={isActive ? 'true' : undefined}
        data-agent={node.name}
        title={node.description || undefined}
      >
        <span class="agent-name">{node.name}</span>
        <span class="kind">{node.type === 'custom' ? node.class : node.type}</span>
        {node.model && <span class="muted small-text">{node.model}</span>}
        {isActive && <span class="visually-hidden">{live ? '(speaking)' : '(selected event)'}</span>}
      </div>
      {node.tools.length > 0 && (
        <ul class="tools" aria-label={`Tools of ${node.name}`}>
          {node.tools.map((tool) => (
            <li key={tool.name}>
              <span class="tool-name" title={tool.description || undefined}>
                <span class="tag">tool</span> <code>{tool.name}</code>
              </span>
              {tool.agent && (
                <ul>
                  <AgentNode node={tool.agent} active={active} onPath={onPath} live={live} />
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {node.children.length > 0 && (
        <ul>
          {node.children.map((child) => (
            <AgentNode key={child.name} node={child} active={active} onPath={onPath} live={live} />
          ))}
        </ul>
      )}
    </li>
  );
}

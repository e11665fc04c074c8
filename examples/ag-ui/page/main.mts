/**
 * A minimal AG-UI front end for a Troupe app, with nothing but @ag-ui/client and the DOM: it chats
 * with `/ag-ui/concierge`, shows the agents' messages as they stream, asks the guest to approve what
 * needs approval (interrupts, answered with `resume`), runs its own `show_note` tool when the agent
 * calls it (a frontend tool, answered with a tool message), and shows the thread's state.
 */
import { HttpAgent, type Message, type Tool } from '@ag-ui/client';

const agent = new HttpAgent({ url: '/ag-ui/concierge' });

/** The page's own tools: offered to the agent with every run, run here when it calls them. */
const tools: Tool[] = [
  {
    name: 'show_note',
    description: 'Shows a note on the page, such as a reminder.',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The note.' } },
      required: ['text'],
    },
  },
];

const handlers: Record<string, (args: Record<string, unknown>) => unknown> = {
  show_note: ({ text }) => {
    const item = document.createElement('li');
    item.textContent = String(text);
    element('notes').append(item);
    return { shown: true };
  },
};

function element<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** Runs the agent once, then answers the frontend tool calls it left, until it needs nothing more. */
async function run(parameters: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<void> {
  let pending: string[] = [];
  setBusy(true);
  element('error').textContent = '';
  try {
    await agent.runAgent(
      { tools, ...parameters },
      {
        onRunFinishedEvent: (finished) => {
          if (finished.outcome === 'success') pending = finished.pendingToolCallIds;
        },
        onRunErrorEvent: ({ event }) => {
          element('error').textContent = `The run failed: ${event.message}`;
        },
      },
    );
  } catch (error) {
    element('error').textContent = error instanceof Error ? error.message : String(error);
  } finally {
    setBusy(false);
    render();
  }
  if (pending.length === 0) return;
  for (const id of pending) agent.addMessage({ id: `result-${id}`, role: 'tool', toolCallId: id, ...runTool(id) });
  await run();
}

/** Runs the page's tool for one call; an unknown tool or a failure is still an answer. */
function runTool(callId: string): { content: string; error?: string } {
  const call = agent.messages
    .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
    .find((c) => c.id === callId);
  const handler = call && handlers[call.function.name];
  if (!call || !handler) return { content: '', error: `This page has no tool for call '${callId}'.` };
  try {
    return { content: JSON.stringify(handler(JSON.parse(call.function.arguments || '{}') as Record<string, unknown>)) };
  } catch (error) {
    return { content: '', error: error instanceof Error ? error.message : String(error) };
  }
}

function setBusy(busy: boolean): void {
  element<HTMLButtonElement>('send').disabled = busy;
  element('messages').setAttribute('aria-busy', String(busy));
}

/** The guest's answers to the open questions; the run goes on once every one is answered. */
const decisions = new Map<string, 'resolved' | 'cancelled'>();

function decide(interruptId: string, status: 'resolved' | 'cancelled'): void {
  decisions.set(interruptId, status);
  const open = agent.pendingInterrupts;
  if (!open.every((i) => decisions.has(i.id))) return render();
  // Approving a confirmation is `resolved` with `true`; `cancelled` rejects the call.
  const resume = open.map((i) => ({
    interruptId: i.id,
    status: decisions.get(i.id)!,
    ...(decisions.get(i.id) === 'resolved' ? { payload: true } : {}),
  }));
  decisions.clear();
  void run({ resume });
}

function render(): void {
  element('messages').replaceChildren(...agent.messages.map(messageItem));
  element('state').textContent = JSON.stringify(agent.state, null, 2);
  element('interrupts').replaceChildren(
    ...(agent.isRunning ? [] : agent.pendingInterrupts).map((interrupt) => {
      const box = document.createElement('div');
      box.className = 'interrupt';
      const question = document.createElement('p');
      question.textContent = interrupt.message ?? interrupt.reason;
      const answer = (status: 'resolved' | 'cancelled', label: string) => {
        const button = document.createElement('button');
        button.textContent = label;
        button.disabled = decisions.has(interrupt.id);
        button.addEventListener('click', () => decide(interrupt.id, status));
        return button;
      };
      box.append(question, answer('resolved', 'Approve'), answer('cancelled', 'Reject'));
      return box;
    }),
  );
}

function messageItem(message: Message): HTMLLIElement {
  const item = document.createElement('li');
  item.className = message.role;
  const author = document.createElement('span');
  author.className = 'author';
  author.textContent =
    message.role === 'user' ? 'You' : message.role === 'assistant' ? (message.name ?? 'Agent') : message.role;
  item.append(author, document.createTextNode(textOf(message)));
  return item;
}

function textOf(message: Message): string {
  if (message.role === 'assistant') {
    const calls = message.toolCalls?.map((c) => `→ ${c.function.name}(${c.function.arguments})`) ?? [];
    return [message.content ?? '', ...calls].filter(Boolean).join('\n');
  }
  if (message.role === 'activity') return JSON.stringify(message.content);
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ');
}

agent.subscribe({ onMessagesChanged: render, onStateChanged: render });

element('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = element<HTMLInputElement>('text');
  const text = input.value.trim();
  if (!text || agent.isRunning) return;
  input.value = '';
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  render();
  void run();
});

render();

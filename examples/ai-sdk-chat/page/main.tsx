/**
 * A minimal AI SDK front end for a Troupe app: React and `useChat` from @ai-sdk/react, pointed at
 * the app's `/chat` route. It streams the agent's answer, asks the guest to approve a reservation
 * (the AI SDK's tool approval: `addToolApprovalResponse`, sent back by `useChat` itself through
 * `sendAutomaticallyWhen`), and shows the tool's result and the receipt the tool emits (a data part).
 */
import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { type FormEvent, useState } from 'react';
import { createRoot } from 'react-dom/client';

// The chat is a Troupe session of this page's guest: created by the server on the first message.
const chatId = crypto.randomUUID();
const transport = new DefaultChatTransport({ api: `/apps/box-office/users/guest/sessions/${chatId}/chat` });

type Part = UIMessage['parts'][number];

function App() {
  const [input, setInput] = useState('');
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const busy = status === 'submitted' || status === 'streaming';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === '') return;
    void sendMessage({ text: input });
    setInput('');
  };

  /** One part of an assistant message; the agent's name comes with its text (`providerMetadata.troupe`). */
  const renderPart = (part: Part, key: string) => {
    if (part.type === 'text') {
      const author = (part.providerMetadata?.troupe as { author?: string } | undefined)?.author;
      return (
        <div key={key} className="text">
          {author && <span className="author">{author}</span>}
          {part.text}
        </div>
      );
    }
    if (part.type === 'reasoning') {
      return (
        <div key={key} className="reasoning">
          Thinking: {part.text}
        </div>
      );
    }
    if (part.type === 'data-receipt') {
      const receipt = part.data as { tickets: number; reference: string; total: number };
      return (
        <div key={key} className="receipt">
          Receipt {receipt.reference}: {receipt.tickets} ticket(s), {receipt.total} EUR
        </div>
      );
    }
    if (!isToolUIPart(part)) return null;
    const name = getToolName(part);
    switch (part.state) {
      case 'approval-requested':
        return (
          <div key={key} className="approval" role="group" aria-label="Approval">
            <p>{part.approval.requestReason ?? `Allow ${name}?`}</p>
            <button onClick={() => void addToolApprovalResponse({ id: part.approval.id, approved: true })}>
              Approve
            </button>
            <button
              onClick={() =>
                void addToolApprovalResponse({ id: part.approval.id, approved: false, reason: 'The guest declined.' })
              }
            >
              Deny
            </button>
          </div>
        );
      case 'approval-responded':
        return (
          <div key={key} className="tool">
            {name}: {part.approval.approved ? 'approved' : 'denied'}, waiting…
          </div>
        );
      case 'output-available':
        return (
          <div key={key} className="tool">
            {name} returned {JSON.stringify(part.output)}
          </div>
        );
      case 'output-denied':
        return (
          <div key={key} className="tool">
            {name} was denied and did not run.
          </div>
        );
      case 'output-error':
        return (
          <div key={key} className="tool error">
            {name} failed: {part.errorText}
          </div>
        );
      default:
        return (
          <div key={key} className="tool">
            Calling {name} {JSON.stringify(part.input)}
          </div>
        );
    }
  };

  return (
    <main>
      <ul id="messages" aria-label="Conversation">
        {messages.map((message) => (
          <li key={message.id} className={message.role}>
            {message.role === 'user'
              ? message.parts.map((part, i) => (part.type === 'text' ? <span key={i}>{part.text}</span> : null))
              : message.parts.map((part, i) => renderPart(part, `${message.id}-${i}`))}
          </li>
        ))}
      </ul>
      <p id="error" className="error" role="alert">
        {error ? error.message : ''}
      </p>
      <form onSubmit={submit}>
        <input
          aria-label="Message"
          placeholder="Say hello, or reserve 2 tickets"
          autoComplete="off"
          value={input}
          onChange={(event) => setInput(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(<App />);

import { AbstractChat, type ChatInit, type ChatState, type UIMessage } from 'ai';

/**
 * The AI SDK's chat client (`AbstractChat`, which `useChat`'s `Chat` extends with React state) over
 * plain fields: the same send, stream-reading and approval logic, without React in the tests.
 */
export class PlainChat<M extends UIMessage> extends AbstractChat<M> {
  constructor(init: Omit<ChatInit<M>, 'messages'>) {
    const state: ChatState<M> = {
      status: 'ready',
      error: undefined,
      messages: [],
      pushMessage: (message) => void state.messages.push(message),
      popMessage: () => void state.messages.pop(),
      replaceMessage: (index, message) => void (state.messages[index] = message),
      snapshot: (thing) => structuredClone(thing),
    };
    super({ ...init, state });
  }
}

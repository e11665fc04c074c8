/**
 * The `troupe` command line, and the pieces of it other tools can reuse: the agent module loader,
 * the event renderer and the run command.
 * @packageDocumentation
 */
export { runCli } from './cli.js';
export { type CliIo, type TextInput, type TextOutput, processIo } from './io.js';
export { AgentLoadError, type AgentLoadFailure, CliUsageError } from './errors.js';
export { ExitCode, exitCodeFor } from './exit-codes.js';
export {
  AGENT_FILE_NAMES,
  appNameFor,
  DEFINITION_EXTENSIONS,
  isAgentDefinition,
  type LoadAgentOptions,
  type LoadedAgent,
  loadAgentModule,
  resolveAgentFile,
} from './load-agent.js';
export { importModule } from './import-module.js';
export {
  agentsUsingDefaultModel,
  chooseDefaultModel,
  type DefaultModelChoice,
  OFFLINE_MODEL,
  offlineModelNotice,
} from './default-model.js';
export {
  createSessionStore,
  DEFAULT_DB_PATH,
  openSession,
  type SessionRequest,
  type SessionStore,
  type SessionStoreOptions,
} from './session-store.js';
export {
  confirmationQuestion,
  describeSchema,
  inputRequestText,
  parseConfirmation,
  parseInputAnswer,
} from './interrupt-prompt.js';
export { createLineReader, type LineReader } from './line-reader.js';
export { Conversation, type ConversationOptions } from './conversation.js';
export {
  finishRender,
  initialRenderState,
  type RenderOptions,
  type RenderOutput,
  type RenderState,
  renderEvent,
} from './render-events.js';
export { type EventSink, jsonLinesSink, transcriptSink } from './event-sinks.js';
export {
  isRejectedAnswer,
  outcomeMessage,
  type ResumeRequest,
  resumeTurn,
  runTurn,
  type TurnOutcome,
  type TurnRequest,
} from './run-turn.js';
export { runCommand } from './commands/run.js';
export { parseRunOptions, type RunOptions } from './commands/run-options.js';
export { chat, type ChatOptions, EXIT_WORDS } from './commands/chat.js';
export { apiCommand } from './commands/api.js';
export { webCommand } from './commands/web.js';
export { devUiDir, serveCommand } from './commands/serve-apps.js';
export {
  DEFAULT_PORT,
  parseServeOptions,
  type ServeCommandOptions,
  type ServeMode,
  serveUsage,
} from './commands/serve-options.js';

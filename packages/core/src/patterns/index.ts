export {
  SupervisorAgent,
  type SupervisorAgentOptions,
  type SupervisorProgress,
  type SupervisorStopReason,
} from './supervisor.js';
export {
  PlanExecuteAgent,
  PlanValidationError,
  planSchema,
  replanSchema,
  type PastStep,
  type Plan,
  type PlanExecuteAgentOptions,
  type PlanExecuteProgress,
  type PlanExecuteStopReason,
  type Replan,
} from './plan-execute.js';
export {
  GroupChatAgent,
  GroupChatSelectorError,
  type GroupChatAgentOptions,
  type GroupChatProgress,
  type GroupChatSelector,
  type GroupChatSelectorContext,
  type GroupChatStopReason,
} from './group-chat.js';

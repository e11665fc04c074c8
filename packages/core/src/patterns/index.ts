export { SupervisorAgent, type SupervisorAgentOptions, type SupervisorProgress, type SupervisorStopReason } from './supervisor.js';
export { GroupChatAgent, GroupChatSelectorError, type GroupChatAgentOptions, type GroupChatProgress, type GroupChatSelector, type GroupChatSelectorContext, type GroupChatStopReason } from './group-chat.js';

export { SupervisorAgent, type SupervisorAgentOptions, type SupervisorProgress, type SupervisorStopReason } from './supervisor.js';

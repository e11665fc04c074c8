/** Helpers for testing agents without a real model. */
export { ScriptedModel, type ScriptedReply } from './scripted-model.js';
export { FakeEmbedder, type FakeEmbedderOptions } from './fake-embedder.js';

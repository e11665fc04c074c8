export { OpenTelemetryPlugin, TRACER_NAME, type OpenTelemetryPluginOptions } from './opentelemetry-plugin.js';
export { ATTR, type EndReason } from './attributes.js';

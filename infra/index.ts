/**
 * `echomq-lambda/cdk`: the constructs a CDK app composes (SPEC §12). Today the stack and its
 * settings; the `EchoMq` construct takes this entry's place.
 */
export { type EchoMqSettings, InvalidSettingsError, resolveSettings } from './settings.js';
export { EchoMqStack, type EchoMqStackProps } from './stack.js';

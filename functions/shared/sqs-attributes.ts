/**
 * The SQS face's message attribute names (README.md, "The SQS face"): the ones a producer sets to
 * route an SQS record, and the ones the face adds to a dead letter. Shared by the SQS function and the
 * `emq send` and `emq dlq` commands, so both read and write the same names.
 */

/** Set by the producer: the queue, the caller's job id, and `base64` for a binary payload. */
export const QUEUE_ATTRIBUTE = 'emq-queue';
export const JOB_ID_ATTRIBUTE = 'emq-job-id';
export const ENCODING_ATTRIBUTE = 'emq-encoding';

/** Added by the face to a dead letter: why it is one, and the message it was. */
export const ERROR_CODE_ATTRIBUTE = 'emq-error-code';
export const ERROR_DETAIL_ATTRIBUTE = 'emq-error-detail';
export const SOURCE_MESSAGE_ID_ATTRIBUTE = 'emq-source-message-id';

/** The routing attributes, which a replay of a dead letter needs. */
export const ROUTING_ATTRIBUTES: readonly string[] = [
  QUEUE_ATTRIBUTE,
  JOB_ID_ATTRIBUTE,
  ENCODING_ATTRIBUTE,
];

/** The reason attributes: a replayed letter still carries them, and a new reason replaces them. */
export const REASON_ATTRIBUTES: readonly string[] = [
  ERROR_CODE_ATTRIBUTE,
  ERROR_DETAIL_ATTRIBUTE,
  SOURCE_MESSAGE_ID_ATTRIBUTE,
];

/**
 * HTTP events an attacker writes by hand, each of which the function must refuse (400) with
 * nothing written (docs/security.md, "hostile input"):
 *
 * - batch bodies whose JSON text holds a lone UTF-16 surrogate escape (`"\ud800"`) in a payload,
 *   an idempotencyKey or an id, or a member name written twice (`"payload"` twice, `"jobs"`
 *   twice). JSON.stringify can write neither, so these bodies are built as raw text;
 * - a field the function reads, of the wrong type, in each event form (payload 2.0, payload
 *   1.0, Function URLs): the body, isBase64Encoded, the headers, the Idempotency-Key's value,
 *   payload 1.0's multiValueHeaders;
 * - the Idempotency-Key sent twice: under two spellings (`Idempotency-Key`, `idempotency-key`)
 *   in one map, or twice in payload 1.0's multiValueHeaders, with equal or different values.
 *
 * Every event is otherwise a request the function would admit, so a refusal can only be the
 * hostile part's doing.
 */
import fc from 'fast-check';
import { jobIdAt } from '../../../src/keyspace/ids.js';
import {
  type FixtureName,
  FORMATS,
  type Format,
  fixture,
  type HttpEventJson,
} from '../../fixtures/http/events.js';

export interface HostileCase {
  /** The class of the case, counted in the run's summary. */
  readonly label: string;
  readonly event: HttpEventJson;
}

/** One JSON member, written as raw text: `"name":value`. */
type Member = readonly [name: string, valueText: string];

function object(members: readonly Member[]): string {
  return `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

/** A text value JSON.stringify writes (valid UTF-16 only). */
const text = (value: string): string => JSON.stringify(value);

/** A lone surrogate as an attacker escapes it: high or low alone, or a pair written backwards. */
function loneSurrogateArb(): fc.Arbitrary<string> {
  const hex = (code: number): string => `\\u${code.toString(16)}`;
  return fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdbff }).map(hex),
    fc.integer({ min: 0xdc00, max: 0xdfff }).map(hex),
    fc.constantFrom('\\ud800', '\\udbff', '\\udc00', '\\udfff', '\\uDFFF\\uD800', '\\udc00\\ud800'),
  );
}

/** A JSON string text holding a lone surrogate escape among ordinary characters. */
function surrogateTextArb(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-'), maxLength: 6 }),
      loneSurrogateArb(),
      fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-'), maxLength: 6 }),
    )
    .map(([before, lone, after]) => `"${before}${lone}${after}"`);
}

/** A valid item's members, each job keyed by its own idempotencyKey (so items never clash). */
function validItemArb(index: number): fc.Arbitrary<Member[]> {
  return fc.constantFrom<Member[]>(
    [['payload', text(`job ${index}`)]],
    [
      ['payload', text(`job ${index}`)],
      ['idempotencyKey', text(`fz-item-${index}`)],
    ],
    [
      ['payload', text(Buffer.from(`job ${index}`).toString('base64'))],
      ['encoding', text('base64')],
    ],
  );
}

/** The item that carries the hostile part. */
function hostileItemArb(): fc.Arbitrary<{ label: string; members: Member[] }> {
  const surrogate = fc
    .tuple(fc.constantFrom('payload', 'idempotencyKey', 'id'), surrogateTextArb())
    .map(([field, value]) => ({
      label: `batch lone surrogate in ${field}`,
      members:
        field === 'payload'
          ? [['payload', value] as Member]
          : [['payload', text('p')] as Member, [field, value] as Member],
    }));
  const duplicate = fc
    .tuple(
      fc.constantFrom('payload', 'idempotencyKey', 'encoding', 'id'),
      fc.boolean(),
      // Fresh ids: an old one is refused for its age, which would hide the duplicate.
      fc.integer({ min: 0, max: 2 ** 22 - 1 }).map((low) => jobIdAt(Date.now(), low)),
    )
    .map(([field, same, id]) => {
      const values: Record<string, [string, string]> = {
        payload: ['"a"', same ? '"a"' : '"b"'],
        idempotencyKey: ['"k1"', same ? '"k1"' : '"k2"'],
        encoding: ['"utf8"', same ? '"utf8"' : '"base64"'],
        id: [text(id), same ? text(id) : text(jobIdAt(Date.now(), 7))],
      };
      const [first, second] = values[field] as [string, string];
      const members: Member[] =
        field === 'payload'
          ? [
              ['payload', first],
              ['payload', second],
            ]
          : [
              ['payload', '"YQ=="'],
              [field, first],
              [field, second],
            ];
      return { label: `batch duplicated member ${field}`, members };
    });
  return fc.oneof(surrogate, duplicate);
}

/** A batch body as raw JSON text: valid items around one hostile item, or `"jobs"` twice. */
function hostileBatchBodyArb(): fc.Arbitrary<{ label: string; body: string }> {
  const items = fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
    .chain(([before, after]) =>
      fc.tuple(
        fc.tuple(...Array.from({ length: before }, (_, at) => validItemArb(at))),
        hostileItemArb(),
        fc.tuple(...Array.from({ length: after }, (_, at) => validItemArb(before + 1 + at))),
      ),
    )
    .map(([head, hostile, tail]) => ({
      label: hostile.label,
      body: object([['jobs', `[${[...head, hostile.members, ...tail].map(object).join(',')}]`]]),
    }));
  const twice = fc.constantFrom(
    object([
      ['jobs', '[{"payload":"a"}]'],
      ['jobs', '[{"payload":"b"}]'],
    ]),
    object([
      ['jobs', '[{"payload":"a"}]'],
      ['jobs', '[{"payload":"a"}]'],
    ]),
    object([
      ['jobs', '[]'],
      ['jobs', '[{"payload":"a"}]'],
    ]),
  );
  return fc.oneof(
    { weight: 6, arbitrary: items },
    {
      weight: 1,
      arbitrary: twice.map((body) => ({ label: 'batch duplicated member jobs', body })),
    },
  );
}

const POST: Readonly<Record<Format, FixtureName>> = {
  v2: 'v2-post',
  v1: 'v1-post',
  url: 'url-post',
};

/** A batch POST carrying `body` as text or, as a binary-media front would send it, base64. */
function batchEvent(form: Format, queue: string, body: string, base64: boolean): HttpEventJson {
  const event = fixture(POST[form], { queue, batch: true });
  return {
    ...event,
    body: base64 ? Buffer.from(body, 'utf8').toString('base64') : body,
    isBase64Encoded: base64,
  };
}

function hostileBatchArb(queues: readonly string[]): fc.Arbitrary<HostileCase> {
  return fc
    .tuple(
      fc.constantFrom(...FORMATS),
      fc.constantFrom(...queues),
      hostileBatchBodyArb(),
      fc.boolean(),
    )
    .map(([form, queue, { label, body }, base64]) => ({
      label,
      event: batchEvent(form, queue, body, base64),
    }));
}

/** Values of a type no event field of these forms ever has where a string or boolean belongs. */
const WRONG_VALUES: readonly unknown[] = [7, 0, true, false, {}, { a: 'b' }, [], ['x'], [1]];

/** A field the function reads, set to a value of the wrong type. */
type Breakage = (event: HttpEventJson, form: Format) => HttpEventJson | undefined;

const BREAKAGES: Readonly<Record<string, Breakage>> = {
  // A body is a string (or absent, or null from a REST API without one).
  body: (event) => ({ ...event, body: { sku: 'A-113' } }),
  'body as number': (event) => ({ ...event, body: 42 }),
  'body as array': (event) => ({ ...event, body: ['{"sku":"A-113"}'] }),
  isBase64Encoded: (event) => ({ ...event, isBase64Encoded: 'false' }),
  'isBase64Encoded as number': (event) => ({ ...event, isBase64Encoded: 0 }),
  headers: (event) => ({ ...event, headers: ['Idempotency-Key', 'k'] }),
  'headers as text': (event) => ({ ...event, headers: 'idempotency-key: k' }),
  multiValueHeaders: (event, form) =>
    form === 'v1' ? { ...event, multiValueHeaders: 'Idempotency-Key: k' } : undefined,
  'multiValueHeaders value': (event, form) =>
    form === 'v1'
      ? {
          ...event,
          multiValueHeaders: {
            ...(event.multiValueHeaders as Record<string, unknown>),
            'Idempotency-Key': 'not-a-list',
          },
        }
      : undefined,
};

/** The Idempotency-Key's value of the wrong type, in every map the form carries. */
function wrongKeyEvent(event: HttpEventJson, form: Format, value: unknown): HttpEventJson {
  const name = form === 'v1' ? 'Idempotency-Key' : 'idempotency-key';
  const headers = { ...(event.headers as Record<string, unknown>), [name]: value };
  if (form !== 'v1') return { ...event, headers };
  const multi = { ...(event.multiValueHeaders as Record<string, unknown>), [name]: [value] };
  return { ...event, headers, multiValueHeaders: multi };
}

function wrongTypeArb(queues: readonly string[]): fc.Arbitrary<HostileCase> {
  const base = fc
    .tuple(fc.constantFrom(...FORMATS), fc.constantFrom(...queues))
    .map(([form, queue]) => ({ form, event: fixture(POST[form], { queue }) }));
  const field = fc
    .tuple(base, fc.constantFrom(...Object.keys(BREAKAGES)))
    .map(([{ form, event }, name]) => {
      const broken = (BREAKAGES[name] as Breakage)(event, form);
      return broken === undefined
        ? { label: `wrong type: ${form} body`, event: { ...event, body: 7 } }
        : { label: `wrong type: ${form} ${name}`, event: broken };
    });
  const key = fc.tuple(base, fc.constantFrom(...WRONG_VALUES)).map(([{ form, event }, value]) => ({
    label: `wrong type: ${form} Idempotency-Key value`,
    event: wrongKeyEvent(event, form, value),
  }));
  return fc.oneof(field, key);
}

const SPELLINGS = ['Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY', 'idempotency-Key'];

/** The Idempotency-Key sent twice: two spellings in one map, or a list of two in payload 1.0. */
function repeatedKeyArb(queues: readonly string[]): fc.Arbitrary<HostileCase> {
  const spellings = fc.uniqueArray(fc.constantFrom(...SPELLINGS), { minLength: 2, maxLength: 2 });
  const values = fc
    .tuple(fc.constantFrom('key-a', 'key-b'), fc.boolean())
    .map(([first, same]) => [first, same ? first : `${first}-other`] as const);
  return fc
    .tuple(
      fc.constantFrom(...FORMATS),
      fc.constantFrom(...queues),
      spellings,
      values,
      fc.constantFrom('spellings', 'list'),
    )
    .map(([form, queue, [a, b], [first, second], how]) => {
      const event = fixture(POST[form], { queue });
      const headers = event.headers as Record<string, string>;
      if (form !== 'v1') {
        // A direct invoke can hand payload 2.0 a map no API Gateway would (it lower-cases).
        return {
          label: `repeated key: ${form} two spellings`,
          event: { ...event, headers: { ...headers, [a as string]: first, [b as string]: second } },
        };
      }
      const multi = event.multiValueHeaders as Record<string, string[]>;
      if (how === 'list') {
        return {
          label: 'repeated key: v1 multiValueHeaders list',
          event: {
            ...event,
            headers: { ...headers, 'Idempotency-Key': second },
            multiValueHeaders: { ...multi, 'Idempotency-Key': [first, second] },
          },
        };
      }
      // What the audit sent: each spelling once, in both maps as a REST API keeps them.
      return {
        label: 'repeated key: v1 two spellings',
        event: {
          ...event,
          headers: { ...headers, [a as string]: first, [b as string]: second },
          multiValueHeaders: { ...multi, [a as string]: [first], [b as string]: [second] },
        },
      };
    });
}

/** Events the function must refuse with 400, writing nothing. */
export function hostileHttpArb(queues: readonly string[]): fc.Arbitrary<HostileCase> {
  return fc.oneof(
    { weight: 3, arbitrary: hostileBatchArb(queues) },
    { weight: 2, arbitrary: wrongTypeArb(queues) },
    { weight: 2, arbitrary: repeatedKeyArb(queues) },
  );
}

/**
 * What the local stack takes from the stack the repository deploys: its routes, its
 * functions' environments and its SQS event source's settings, read from the synthesized
 * CloudFormation template, so that a route or a setting the stack would not deploy fails
 * locally too. Resources are found by type and by the references between them (the routes'
 * integration names the HTTP function, the event source mapping the SQS function), never by
 * logical id, which changes whenever the constructs do.
 */

/** One route of the HTTP API: `POST /queues/{queue}/jobs`, or `$default` (everything). */
export interface DeployedRoute {
  readonly method: string;
  readonly path: string;
}

export interface EventSourceSettings {
  /** Records per invocation (BatchSize; CloudFormation's default 10). */
  readonly batchSize: number;
  /** How long records are gathered for one invocation (MaximumBatchingWindowInSeconds; default 0). */
  readonly batchingWindowSeconds: number;
  /** FunctionResponseTypes holds ReportBatchItemFailures: only the listed records come back. */
  readonly reportBatchItemFailures: boolean;
}

export interface DeployedSettings {
  readonly routes: readonly DeployedRoute[];
  /** The HTTP function's environment, without the target's variables. */
  readonly httpEnv: Readonly<Record<string, string>>;
  /** The SQS function and its event source, where the stack has one. */
  readonly sqs:
    | { readonly env: Readonly<Record<string, string>>; readonly eventSource: EventSourceSettings }
    | undefined;
}

/**
 * What describes the deployed target rather than the functions: where Valkey and the DLQ are,
 * how to authenticate, and which family of calls its servers run (ElastiCache has no module;
 * the local servers load it). The local stack gives its own servers' instead.
 */
export const TARGET_VARIABLES: ReadonlySet<string> = new Set([
  'EMQ_URL',
  'EMQ_CLUSTER',
  'EMQ_EXECUTOR',
  'EMQ_SECRET_ARN',
  'EMQ_USERNAME',
  'EMQ_PASSWORD',
  'EMQ_TLS_CA',
  'EMQ_IAM_AUTH',
  'EMQ_IAM_CACHE_NAME',
  'EMQ_IAM_REGION',
  'EMQ_IAM_SERVERLESS',
  'EMQ_DLQ_URL',
]);

export class TemplateError extends Error {}

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/** The settings of a synthesized template (its parsed JSON). Throws TemplateError. */
export function deployedSettings(template: unknown): DeployedSettings {
  const resources = resourcesOf(template);
  const ofType = (type: string) =>
    [...resources.entries()].filter(([, resource]) => resource.Type === type);

  const routes = ofType('AWS::ApiGatewayV2::Route');
  if (routes.length === 0) {
    throw new TemplateError(
      'The synthesized stack has no HTTP API routes (AWS::ApiGatewayV2::Route): the local stack serves the HTTP API the stack deploys.',
    );
  }
  const targets = new Set(
    routes.map(([, route]) => {
      const integration = resources.get(referencedId(route.Properties?.Target) ?? '');
      const target = referencedId(integration?.Properties?.IntegrationUri);
      const functionId = target === undefined ? undefined : functionBehind(resources, target);
      if (functionId === undefined) {
        throw new TemplateError(
          `Route "${String(route.Properties?.RouteKey)}" does not integrate a Lambda function of the stack.`,
        );
      }
      return functionId;
    }),
  );
  if (targets.size !== 1) {
    throw new TemplateError(
      `The routes integrate ${targets.size} functions; the local stack runs one HTTP function.`,
    );
  }
  const httpEnv = environmentOf(resources, [...targets][0] as string, 'HTTP');

  const mappings = ofType('AWS::Lambda::EventSourceMapping');
  if (mappings.length > 1) {
    throw new TemplateError(
      `The stack has ${mappings.length} event source mappings; the local stack polls one queue.`,
    );
  }
  const mapping = mappings[0]?.[1].Properties;
  return {
    routes: routes.map(([, route]) => routeOf(route.Properties?.RouteKey)),
    httpEnv,
    sqs:
      mapping === undefined
        ? undefined
        : {
            env: environmentOf(
              resources,
              functionBehind(resources, functionIdOf(mapping.FunctionName)),
              'SQS',
            ),
            eventSource: {
              batchSize: numberOr(mapping.BatchSize, 10),
              batchingWindowSeconds: numberOr(mapping.MaximumBatchingWindowInSeconds, 0),
              reportBatchItemFailures:
                Array.isArray(mapping.FunctionResponseTypes) &&
                mapping.FunctionResponseTypes.includes('ReportBatchItemFailures'),
            },
          },
  };
}

function resourcesOf(template: unknown): Map<string, Resource> {
  const resources = (template as { Resources?: unknown } | null)?.Resources;
  if (typeof resources !== 'object' || resources === null) {
    throw new TemplateError('The synthesized template has no Resources.');
  }
  return new Map(Object.entries(resources as Record<string, Resource>));
}

/**
 * `{"Ref": id}`, `{"Fn::GetAtt": [id, ...]}`, or either inside `{"Fn::Join": ...}` or the
 * `Fn::Select` of an `Fn::Split` (an alias's name, as an event source names it): the id.
 */
function referencedId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const node = value as Record<string, unknown>;
  if (typeof node.Ref === 'string') return node.Ref;
  const attribute = node['Fn::GetAtt'];
  if (Array.isArray(attribute) && typeof attribute[0] === 'string') return attribute[0];
  for (const part of ['Fn::Select', 'Fn::Split']) {
    const args = node[part];
    if (Array.isArray(args)) return referencedId(args[1]);
  }
  const join = node['Fn::Join'];
  if (Array.isArray(join) && Array.isArray(join[1])) {
    for (const part of join[1] as unknown[]) {
      const id = referencedId(part);
      if (id !== undefined) return id;
    }
  }
  return undefined;
}

/** The function an id names: itself, or the function behind an alias (`live`) or a version. */
function functionBehind(resources: ReadonlyMap<string, Resource>, id: string): string {
  const resource = resources.get(id);
  const behind =
    resource?.Type === 'AWS::Lambda::Alias' || resource?.Type === 'AWS::Lambda::Version'
      ? referencedId(resource.Properties?.FunctionName)
      : undefined;
  return behind === undefined ? id : functionBehind(resources, behind);
}

function functionIdOf(name: unknown): string {
  const id = referencedId(name);
  if (id === undefined) {
    throw new TemplateError("The event source mapping does not name a function of the stack's.");
  }
  return id;
}

/**
 * A function's Environment.Variables: the literal values; the target's variables left out
 * (the local stack sets its own). Any other variable computed at deploy time cannot be
 * served locally, so it is refused by name.
 */
function environmentOf(
  resources: ReadonlyMap<string, Resource>,
  id: string,
  face: string,
): Record<string, string> {
  const resource = resources.get(id);
  if (resource?.Type !== 'AWS::Lambda::Function') {
    throw new TemplateError(`The ${face} face's target is not a Lambda function of the stack.`);
  }
  const environment = resource.Properties?.Environment as { Variables?: unknown } | undefined;
  const variables = (environment?.Variables ?? {}) as Record<string, unknown>;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (TARGET_VARIABLES.has(name)) continue;
    if (typeof value !== 'string') {
      throw new TemplateError(
        `The stack gives the ${face} function ${name} from a value known only at deploy time; the local stack cannot give it one.`,
      );
    }
    env[name] = value;
  }
  return env;
}

function routeOf(key: unknown): DeployedRoute {
  if (key === '$default') return { method: 'ANY', path: '$default' };
  const match = typeof key === 'string' ? /^([A-Z]+) (\/\S*)$/.exec(key) : null;
  if (match === null)
    throw new TemplateError(`Route key ${JSON.stringify(key)} is not METHOD /path.`);
  return { method: match[1] as string, path: match[2] as string };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/**
 * Whether API Gateway routes `method path` (a request's, without its query) by one of
 * `routes`: a `{name}` segment matches one segment, a trailing `{name+}` the rest, `ANY` any
 * method, `$default` everything. HTTP APIs route HEAD only where a route says HEAD (or ANY).
 */
export function routed(routes: readonly DeployedRoute[], method: string, path: string): boolean {
  const segments = path.split('/');
  return routes.some((route) => {
    if (route.path === '$default') return true;
    if (route.method !== 'ANY' && route.method !== method) return false;
    const pattern = route.path.split('/');
    for (let at = 0; at < pattern.length; at++) {
      const part = pattern[at] as string;
      if (/^\{[^}]+\+\}$/.test(part)) return at === pattern.length - 1 && segments.length > at;
      const segment = segments[at];
      if (segment === undefined) return false;
      if (/^\{[^}]+\}$/.test(part) ? segment === '' : part !== segment) return false;
    }
    return segments.length === pattern.length;
  });
}

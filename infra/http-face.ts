/**
 * The HTTP face on whichever API it is given: routes added to the user's HTTP API, methods on
 * a resource of the user's REST API (private ones too), a Function URL (which serves every
 * route), or a new HTTP API with a throttled stage and JSON access logs (the default). Every
 * operation of openapi/openapi.yaml is routed on each, and callers need IAM (SigV4) unless a
 * new HTTP API is given a JWT authorizer.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { OPERATIONS } from '../openapi/operations.js';
import type { ResolvedSettings } from './settings.js';

/** Where the HTTP face is served (SPEC §12). */
export type EchoMqHttp =
  /** Routes added to the user's HTTP API (its stages deploy them). */
  | { readonly api: apigwv2.IHttpApi }
  /** Methods under `resource` (default the root) of the user's REST API; the user deploys it. */
  | { readonly restApi: apigw.IRestApi; readonly resource?: apigw.IResource }
  /** A Function URL with IAM auth: every route, no API Gateway. */
  | { readonly functionUrl: true };

export interface EchoMqHttpFaceProps {
  readonly settings: ResolvedSettings;
  readonly handler: lambda.Function;
  /** Default: a new HTTP API. */
  readonly on?: EchoMqHttp | undefined;
}

/** `{queue}` -> `*`, as execute-api resource ARNs match path parameters. */
const arnPath = (path: string) => path.replace(/\{[^}]+\}/g, '*');

export class EchoMqHttpFace extends Construct {
  /** The HTTP API the routes are on (new or the user's); undefined on a REST API or Function URL. */
  readonly api: apigwv2.IHttpApi | undefined;
  /** The user's REST API, where the face is on one. */
  readonly restApi: apigw.IRestApi | undefined;
  readonly functionUrl: lambda.FunctionUrl | undefined;
  /** The stage of the HTTP API the construct made. */
  readonly stage: apigwv2.HttpStage | undefined;
  private readonly invokeArns: string[];

  constructor(scope: Construct, id: string, props: EchoMqHttpFaceProps) {
    super(scope, id);
    const { settings, handler, on } = props;
    if (on === undefined) {
      const api = new apigwv2.HttpApi(this, 'Api', {
        description: 'echomq-lambda: admit jobs into EchoMQ queues',
        createDefaultStage: false,
      });
      this.stage = this.newStage(api, settings);
      const { integration, authorizer } = httpIntegration(handler, settings);
      for (const { method, path } of OPERATIONS) {
        api.addRoutes({ path, methods: [method as apigwv2.HttpMethod], integration, authorizer });
      }
      this.api = api;
    } else if ('api' in on) {
      const { integration, authorizer } = httpIntegration(handler, settings);
      for (const { method, path } of OPERATIONS) {
        new apigwv2.HttpRoute(this, `${method}${path}`, {
          httpApi: on.api,
          routeKey: apigwv2.HttpRouteKey.with(path, method as apigwv2.HttpMethod),
          integration,
          authorizer,
        });
      }
      this.api = on.api;
    } else if ('restApi' in on) {
      const base = on.resource ?? on.restApi.root;
      const integration = new apigw.LambdaIntegration(handler, { allowTestInvoke: false });
      for (const { method, path } of OPERATIONS) {
        base.resourceForPath(path.slice(1)).addMethod(method, integration, {
          authorizationType: apigw.AuthorizationType.IAM,
        });
      }
      this.restApi = on.restApi;
    } else {
      this.functionUrl = handler.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
    }
    this.invokeArns = OPERATIONS.flatMap(({ method, path }) => {
      const target = this.api ?? this.restApi;
      return target === undefined ? [] : [target.arnForExecuteApi(method, arnPath(path), '*')];
    });
  }

  /** The URL callers use: the new stage's, the Function URL, or undefined on the user's API. */
  get url(): string | undefined {
    return this.stage?.url ?? this.functionUrl?.url;
  }

  /** 5xx answers of the API the construct made. */
  get serverErrors(): cloudwatch.IMetric | undefined {
    return this.stage?.metricServerError({ statistic: 'Sum' });
  }

  /** execute-api:Invoke on each route, or lambda:InvokeFunctionUrl on the Function URL. */
  grantInvoke(grantee: iam.IGrantable): void {
    if (this.functionUrl !== undefined) {
      this.functionUrl.grantInvokeUrl(grantee);
      return;
    }
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: this.invokeArns }),
    );
  }

  private newStage(api: apigwv2.HttpApi, settings: ResolvedSettings): apigwv2.HttpStage {
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetentionDays,
      removalPolicy: settings.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    return new apigwv2.HttpStage(this, 'Stage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.http.throttleRate, burstLimit: settings.http.throttleBurst },
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(accessLogs),
        format: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            time: '$context.requestTime',
            route: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            caller: '$context.identity.caller',
            sourceIp: '$context.identity.sourceIp',
          }),
        ),
      },
    });
  }
}

/** One Lambda integration for every route, behind IAM (SigV4) or the configured JWT issuer. */
function httpIntegration(
  handler: lambda.IFunction,
  settings: ResolvedSettings,
): { integration: HttpLambdaIntegration; authorizer: apigwv2.IHttpRouteAuthorizer } {
  const auth = settings.http.auth;
  return {
    integration: new HttpLambdaIntegration('Handler', handler),
    authorizer:
      auth.kind === 'jwt'
        ? new HttpJwtAuthorizer('JwtAuthorizer', auth.issuer, { jwtAudience: [...auth.audience] })
        : new HttpIamAuthorizer(),
  };
}

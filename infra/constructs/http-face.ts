/**
 * The HTTP face on whichever API it is given: routes added to the user's HTTP API, methods on
 * a resource of the user's REST API (private ones too), a Function URL (which serves every
 * route), or a new HTTP API with a throttled stage and JSON access logs (the default). Every
 * operation of openapi/openapi.yaml is routed on each. Who may call them (docs/deploy.md,
 * "Into an existing account"): on the team's API, `authorizer` when given, else a JWT of `auth`
 * when asked, else the API's own default authorizer where it has one, else IAM (SigV4); a new HTTP
 * API takes IAM or a JWT.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { OPERATIONS } from '../../openapi/operations.js';
import type { HttpOptions, ResolvedDeployment } from '../deployment/deployment.js';

/** A new HTTP API (the default), shaped by its options. */
export interface EchoMqNewHttpApi extends HttpOptions {
  readonly api?: undefined;
  readonly restApi?: undefined;
  readonly functionUrl?: undefined;
}

/** Routes added to the user's HTTP API (its stages deploy them). */
export interface EchoMqOnHttpApi extends HttpOptions {
  /** The team's HTTP API: the routes are added to it (its stages deploy them). */
  readonly api: apigwv2.IHttpApi;
  /**
   * The routes' authorizer; required (or `auth`) with an imported API, whose default authorizer
   * synthesis cannot read: `new HttpIamAuthorizer()` for IAM.
   * @default a JWT authorizer where `auth` asks for one, else the API's `defaultAuthorizer` (and its scopes) where it is an `HttpApi` of the app that has one, else IAM
   */
  readonly authorizer?: apigwv2.IHttpRouteAuthorizer;
}

/** Methods under `resource` (default the root) of the user's REST API; the user deploys it. */
export interface EchoMqOnRestApi extends HttpOptions {
  /** The team's REST API (private too): methods are added under `resource`; the team deploys it. */
  readonly restApi: apigw.IRestApi;
  /**
   * The resource the routes go under.
   * @default the REST API's root
   */
  readonly resource?: apigw.IResource;
  /**
   * The methods' authorizer.
   * @default the resource's `defaultMethodOptions` where they name an authorization, else IAM
   */
  readonly authorizer?: apigw.IAuthorizer;
}

/** A Function URL with IAM auth: every route, no API Gateway. */
export interface EchoMqOnFunctionUrl extends HttpOptions {
  /** A Function URL with IAM auth serves every route, without API Gateway. */
  readonly functionUrl: true;
}

/**
 * Where the HTTP face is served, and how (docs/props.md, "EchoMqHttp"; docs/deploy.md,
 * "Into an existing account").
 */
export type EchoMqHttp = EchoMqNewHttpApi | EchoMqOnHttpApi | EchoMqOnRestApi | EchoMqOnFunctionUrl;

export interface EchoMqHttpFaceProps {
  readonly deployment: ResolvedDeployment;
  /** What the routes invoke: the HTTP function's alias `live`. */
  readonly handler: lambda.IFunction;
  /**
   * @default a new HTTP API
   */
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
  /** Callers need IAM (SigV4): what grantInvoke grants is then what they need. */
  readonly iamAuthorized: boolean;
  private readonly invokeArns: string[];

  constructor(scope: Construct, id: string, props: EchoMqHttpFaceProps) {
    super(scope, id);
    const { deployment, handler, on } = props;
    if (on !== undefined && 'api' in on && on.api !== undefined) {
      const integration = new HttpLambdaIntegration('Handler', handler);
      const { authorizer, authorizationScopes } = teamRouteAuthorizer(on, deployment);
      for (const { method, path } of OPERATIONS) {
        new apigwv2.HttpRoute(this, `${method}${path}`, {
          httpApi: on.api,
          routeKey: apigwv2.HttpRouteKey.with(path, method as apigwv2.HttpMethod),
          integration,
          authorizer,
          ...(authorizationScopes === undefined ? {} : { authorizationScopes }),
        });
      }
      this.api = on.api;
      this.iamAuthorized = authorizer instanceof HttpIamAuthorizer;
    } else if (on !== undefined && 'restApi' in on && on.restApi !== undefined) {
      const base = on.resource ?? on.restApi.root;
      const integration = new apigw.LambdaIntegration(handler, { allowTestInvoke: false });
      const defaults = base.defaultMethodOptions;
      const options: apigw.MethodOptions =
        on.authorizer !== undefined
          ? { authorizer: on.authorizer, authorizationType: on.authorizer.authorizationType }
          : defaults?.authorizer !== undefined || defaults?.authorizationType !== undefined
            ? {}
            : { authorizationType: apigw.AuthorizationType.IAM };
      this.iamAuthorized =
        (options.authorizationType ?? defaults?.authorizationType) === apigw.AuthorizationType.IAM;
      for (const { method, path } of OPERATIONS) {
        const added = base.resourceForPath(path.slice(1)).addMethod(method, integration, options);
        if (this.iamAuthorized) {
          Validations.of(added).acknowledge({
            id: 'AwsSolutions-COG4',
            reason:
              'IAM (SigV4) authorizes the method: its callers are AWS principals the team grants with grantEnqueue, not Cognito users.',
          });
        }
      }
      this.restApi = on.restApi;
    } else if (on !== undefined && 'functionUrl' in on && on.functionUrl === true) {
      this.functionUrl = handler.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
      this.iamAuthorized = true;
    } else {
      const api = new apigwv2.HttpApi(this, 'Api', {
        description: 'echomq-lambda: admit jobs into EchoMQ queues',
        createDefaultStage: false,
      });
      this.stage = this.newStage(api, deployment);
      const integration = new HttpLambdaIntegration('Handler', handler);
      const authorizer = authorizerOf(deployment.http.auth);
      for (const { method, path } of OPERATIONS) {
        api.addRoutes({ path, methods: [method as apigwv2.HttpMethod], integration, authorizer });
      }
      this.api = api;
      this.iamAuthorized = authorizer instanceof HttpIamAuthorizer;
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

  /**
   * execute-api:Invoke on each route, or lambda:InvokeFunctionUrl on the Function URL, where
   * callers are authorized by IAM; nothing where an authorizer of the team's (JWT, Lambda,
   * Cognito) decides, as IAM plays no part there.
   */
  grantInvoke(grantee: iam.IGrantable): void {
    if (!this.iamAuthorized) return;
    if (this.functionUrl !== undefined) {
      this.functionUrl.grantInvokeUrl(grantee);
      return;
    }
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: this.invokeArns }),
    );
  }

  private newStage(api: apigwv2.HttpApi, deployment: ResolvedDeployment): apigwv2.HttpStage {
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: deployment.logRetentionDays,
      removalPolicy: deployment.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    return new apigwv2.HttpStage(this, 'Stage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: {
        rateLimit: deployment.http.throttleRate,
        burstLimit: deployment.http.throttleBurst,
      },
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

/** The authorizer the deployment asks for: IAM (SigV4), or a JWT of the issuer. */
function authorizerOf(auth: ResolvedDeployment['http']['auth']): apigwv2.IHttpRouteAuthorizer {
  return auth.kind === 'jwt'
    ? new HttpJwtAuthorizer('JwtAuthorizer', auth.issuer, { jwtAudience: [...auth.audience] })
    : new HttpIamAuthorizer();
}

/**
 * The team's choice first (docs/deploy.md, "Into an existing account"): its `authorizer`, else a
 * JWT that `auth` asks for, else the default authorizer its HttpApi applies to routes that name
 * none (with its scopes), else IAM. An imported API's defaults are not known at synthesis: name
 * `authorizer` for it.
 */
function teamRouteAuthorizer(
  on: EchoMqOnHttpApi,
  deployment: ResolvedDeployment,
): { authorizer: apigwv2.IHttpRouteAuthorizer; authorizationScopes?: string[] | undefined } {
  if (on.authorizer !== undefined) return { authorizer: on.authorizer };
  if (on.auth !== undefined) return { authorizer: authorizerOf(deployment.http.auth) };
  if (on.api instanceof apigwv2.HttpApi && on.api.defaultAuthorizer !== undefined) {
    return {
      authorizer: on.api.defaultAuthorizer,
      authorizationScopes: on.api.defaultAuthorizationScopes,
    };
  }
  return { authorizer: new HttpIamAuthorizer() };
}

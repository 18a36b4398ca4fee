/**
 * The HTTP API of SPEC §8: three routes to the HTTP function, IAM authorization by default (a
 * JWT authorizer as the option), stage throttling and JSON access logs.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ResolvedSettings } from './settings.js';

export interface EchoMqApiProps {
  readonly settings: ResolvedSettings;
  readonly handler: lambda.IFunction;
}

/** SPEC §8: the routes, each with its method. */
export const ROUTES: ReadonlyArray<readonly [apigw.HttpMethod, string]> = [
  [apigw.HttpMethod.POST, '/queues/{queue}/jobs'],
  [apigw.HttpMethod.PUT, '/queues/{queue}/jobs/{id}'],
  [apigw.HttpMethod.GET, '/queues/{queue}/jobs/{id}'],
];

export class EchoMqApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;

  constructor(scope: Construct, id: string, props: EchoMqApiProps) {
    super(scope, id);
    const { settings } = props;
    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'echomq-lambda: admit jobs into EchoMQ queues',
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: settings.logRetentionDays,
      removalPolicy: settings.keepLogsOnDelete ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stage = new apigw.HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: settings.http.throttleRate, burstLimit: settings.http.throttleBurst },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
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

    const auth = settings.http.auth;
    const authorizer =
      auth.kind === 'jwt'
        ? new HttpJwtAuthorizer('JwtAuthorizer', auth.issuer, { jwtAudience: [...auth.audience] })
        : new HttpIamAuthorizer();
    const integration = new HttpLambdaIntegration('Handler', props.handler);
    for (const [method, path] of ROUTES) {
      this.api.addRoutes({ path, methods: [method], integration, authorizer });
    }
  }

  /** The base URL of the stage. */
  get url(): string {
    return this.stage.url;
  }
}

/**
 * EchoMq behind a private REST API: reachable only through the VPC's execute-api interface
 * endpoint, with the routes under `/emq` and IAM (SigV4) on every method. The construct makes
 * its own ElastiCache cluster, queue and DLQ here (kept on delete). The REST API is yours:
 * deploy it (its deployment picks up the methods the construct adds).
 */
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { EchoMq, EchoMqCache } from 'echomq-lambda/cdk';

const app = new App();
const stack = new Stack(app, 'JobsPrivate', {
  env: { account: '123456789012', region: 'us-east-1' },
});

const vpc = new ec2.Vpc(stack, 'Vpc', {
  maxAzs: 2,
  natGateways: 0,
  subnetConfiguration: [{ name: 'private', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }],
});
vpc.addFlowLog('FlowLog', { trafficType: ec2.FlowLogTrafficType.REJECT });
const endpoint = vpc.addInterfaceEndpoint('ExecuteApi', {
  service: ec2.InterfaceVpcEndpointAwsService.APIGATEWAY,
});
const accessLogs = new logs.LogGroup(stack, 'ApiAccessLogs', {
  removalPolicy: RemovalPolicy.DESTROY,
});
const restApi = new apigw.RestApi(stack, 'Api', {
  endpointConfiguration: { types: [apigw.EndpointType.PRIVATE], vpcEndpoints: [endpoint] },
  policy: new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        principals: [new iam.AnyPrincipal()],
        actions: ['execute-api:Invoke'],
        resources: ['execute-api:/*'],
        conditions: { StringEquals: { 'aws:SourceVpce': endpoint.vpcEndpointId } },
      }),
    ],
  }),
  deployOptions: {
    tracingEnabled: true,
    accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
    accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
    loggingLevel: apigw.MethodLoggingLevel.ERROR,
  },
  cloudWatchRole: true,
});

new EchoMq(stack, 'EchoMq', {
  vpc,
  // No NAT here: the construct makes the SQS and Secrets Manager endpoints the functions use.
  interfaceEndpoints: true,
  cache: EchoMqCache.elastiCache(),
  http: { restApi, resource: restApi.root.addResource('emq') },
});

app.synth();

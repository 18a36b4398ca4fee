// CloudFormation custom-resource events in the exact shape the CDK provider framework passes on.
import { randomUUID } from 'node:crypto';
import type {
  CloudFormationCustomResourceCreateEvent,
  CloudFormationCustomResourceDeleteEvent,
  CloudFormationCustomResourceUpdateEvent,
} from 'aws-lambda';

const SERVICE_TOKEN =
  'arn:aws:lambda:eu-west-1:123456789012:function:EchoMqLambda-FenceProviderframeworkonEvent-AbCdEf';

/** Resource properties beyond the wire, as the fence resource may carry them (`Mode`). */
export type ExtraProperties = Readonly<Record<string, string>>;

function common(wire: string, extra: ExtraProperties = {}) {
  return {
    ServiceToken: SERVICE_TOKEN,
    ResponseURL:
      'https://cloudformation-custom-resource-response-euwest1.s3.eu-west-1.amazonaws.com/arn%3Aaws%3Acloudformation%3Aeu-west-1%3A123456789012%3Astack/EchoMqLambda/x?X-Amz-Signature=stand-in',
    StackId:
      'arn:aws:cloudformation:eu-west-1:123456789012:stack/EchoMqLambda/6f1c2e70-0000-4000-8000-000000000000',
    RequestId: randomUUID(),
    LogicalResourceId: 'Fence66DD93FF',
    ResourceType: 'Custom::EchoMqFence',
    ResourceProperties: {
      ServiceToken: SERVICE_TOKEN,
      Wire: wire,
      Endpoint: 'clustercfg.emq.example:6379',
      Executor: 'native',
      ...extra,
    },
  };
}

export function createEvent(
  wire = '1',
  extra: ExtraProperties = {},
): CloudFormationCustomResourceCreateEvent {
  return { ...common(wire, extra), RequestType: 'Create' };
}

export function updateEvent(
  wire: string,
  oldWire = '1',
  extra: ExtraProperties = {},
): CloudFormationCustomResourceUpdateEvent {
  const base = common(wire, extra);
  return {
    ...base,
    RequestType: 'Update',
    PhysicalResourceId: 'emq-fence',
    OldResourceProperties: { ...base.ResourceProperties, Wire: oldWire },
  };
}

export function deleteEvent(wire = '1'): CloudFormationCustomResourceDeleteEvent {
  return { ...common(wire), RequestType: 'Delete', PhysicalResourceId: 'emq-fence' };
}

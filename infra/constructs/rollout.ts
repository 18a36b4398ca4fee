/**
 * A gradual rollout of a release (docs/upgrading.md), where the team asks for one: CodeDeploy
 * shifts the alias `live` of each face from the live version to the new one (canary or
 * linear), and rolls back when one of the construct's alarms fires. Only for a release that keeps the wire
 * identity: the fence installer, told the rollout is gradual, fails the deploy where the
 * identity changes (functions/fence/on-event.ts), and that release goes all at once.
 */
import { Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as codedeploy from 'aws-cdk-lib/aws-codedeploy';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** How a release reaches the live alias. */
export interface EchoMqRollout {
  /**
   * How CodeDeploy shifts traffic, such as `LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES`
   * or `LINEAR_10PERCENT_EVERY_1MINUTE`.
   */
  readonly preference: codedeploy.ILambdaDeploymentConfig;
}

export interface EchoMqRolloutGroupsProps {
  readonly rollout: EchoMqRollout;
  /** Each face's alias `live`, by name. */
  readonly aliases: Readonly<Record<string, lambda.Alias>>;
  /** The alarms that roll a shift back. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

export class EchoMqRolloutGroups extends Construct {
  readonly groups: codedeploy.LambdaDeploymentGroup[];

  constructor(scope: Construct, id: string, props: EchoMqRolloutGroupsProps) {
    super(scope, id);
    const application = new codedeploy.LambdaApplication(this, 'Application');
    this.groups = Object.entries(props.aliases).map(([name, alias]) => {
      const group = new codedeploy.LambdaDeploymentGroup(this, name, {
        application,
        alias,
        deploymentConfig: props.rollout.preference,
        alarms: [...props.alarms],
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      Validations.of(group).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        reason:
          "AWSCodeDeployRoleForLambdaLimited is AWS's managed minimum for CodeDeploy to move a Lambda alias and run its hooks.",
      });
      return group;
    });
  }
}

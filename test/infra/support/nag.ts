// cdk-nag v3: run the AwsSolutions pack over a construct tree and read the acknowledgments.
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, type NagPack, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** One line per finding not acknowledged: `rule at construct path`. */
export function awsSolutionsFindings(scope: IConstruct): string[] {
  return findings(new AwsSolutionsChecks(), scope);
}

/** The same for the Serverless pack. */
export function serverlessFindings(scope: IConstruct): string[] {
  return findings(new ServerlessChecks(), scope);
}

function findings(pack: NagPack, scope: IConstruct): string[] {
  const report = pack.validateScope(scope);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map(
      (resource) => `${violation.ruleName} at ${resource.constructPath ?? '?'}`,
    ),
  );
}

export interface Acknowledgment {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** Every acknowledgment recorded with Validations.of(...).acknowledge in the tree. */
export function acknowledgmentsIn(scope: IConstruct): Acknowledgment[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, reason]) => ({
          path: construct.node.path,
          id,
          reason: typeof reason === 'string' ? reason : JSON.stringify(reason),
        })),
      ),
  );
}

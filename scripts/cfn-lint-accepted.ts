/**
 * The cfn-lint errors the synthesized templates are allowed, each with why the template is
 * right: the one place they are named (scripts/lint-templates.ts applies them, docs/linting.md
 * lists them).
 */

export interface Accepted {
  readonly rule: string;
  /** The CloudFormation type of the resource the finding is on. */
  readonly resourceType: string;
  readonly message: RegExp;
  /** Why the template is right and the linter wrong. */
  readonly why: string;
}

/** The only errors tolerated: where the template is right and cfn-lint's schema is behind. */
export const ACCEPTED: readonly Accepted[] = [
  {
    rule: 'E3002',
    resourceType: 'AWS::ElastiCache::ReplicationGroup',
    message: /'Durability' was unexpected/,
    why: 'Durability (ElastiCache for Valkey 9 durable writes, infra/cache/elasticache/durability.ts) is a CloudFormation property newer than the linter schema.',
  },
  {
    rule: 'E1152',
    resourceType: 'AWS::EC2::Instance',
    message: /^'resolve:ssm:\/aws\/service\/ami-amazon-linux-latest\//,
    why: 'A self-managed node names its image as resolve:ssm:<parameter>, which EC2 resolves at launch (so a new AL2023 release never replaces a node); the schema only knows ami-... literals.',
  },
  {
    rule: 'E1017',
    resourceType: 'AWS::Lambda::Function',
    message: /\['\w*ClusterCreated\w*', 'Data'\]\} is not of type 'string'/,
    why: "The self-managed cluster's wait condition returns its signal's Data as JSON text, which the functions' environment splits the CA certificate out of; the schema types the attribute as an object.",
  },
];

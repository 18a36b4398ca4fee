/**
 * The user data of one node: write its environment file, fetch the node scripts from S3, run
 * bootstrap.sh (and, on node 0, cluster-create.sh). cloud-init runs it at every boot, so a
 * stop/start (EC2 recovery, a changed module) brings the node back through the same steps.
 *
 * It holds names and locations only (secret ARNs, S3 keys, the wait condition URL): the nodes
 * read every password from Secrets Manager with their instance role.
 */
import * as ec2 from 'aws-cdk-lib/aws-ec2';

/** Where the node keeps its environment and its copy of the scripts. */
export const ENV_FILE = '/etc/emq/node.env';
export const SCRIPTS_DIR = '/opt/emq/scripts';

export interface NodeUserDataProps {
  /** The EMQ_* variables of bootstrap.sh (see its header) and AWS_DEFAULT_REGION, in file order. */
  readonly environment: Readonly<Record<string, string>>;
  /** The zipped scripts folder. */
  readonly scriptsBucket: string;
  readonly scriptsKey: string;
  /** Node 0 creates the cluster and signals the wait condition. */
  readonly createsCluster: boolean;
}

export function nodeUserData(props: NodeUserDataProps): ec2.UserData {
  const shell = ec2.UserData.forLinux();
  const variables = Object.entries(props.environment).map(
    ([name, value]) => `${name}=${quoted(value)}`,
  );
  const zip = `${SCRIPTS_DIR}.zip`;
  shell.addCommands(
    'set -euo pipefail',
    'umask 077',
    'install -d -m 0700 /etc/emq /opt/emq',
    `cat >${ENV_FILE} <<'EMQ_SETTINGS'`,
    ...variables,
    'EMQ_SETTINGS',
    `set -a && . ${ENV_FILE} && set +a`,
    `export EMQ_ENV_FILE=${ENV_FILE}`,
    `aws s3 cp --only-show-errors s3://${props.scriptsBucket}/${props.scriptsKey} ${zip}`,
    // The AMI has python3 (cloud-init runs on it), not necessarily unzip.
    `rm -rf ${SCRIPTS_DIR} && python3 -m zipfile -e ${zip} ${SCRIPTS_DIR} && chmod 0755 ${SCRIPTS_DIR}/*.sh`,
    ...(props.createsCluster
      ? [
          `${SCRIPTS_DIR}/bootstrap.sh || { ${SCRIPTS_DIR}/cluster-create.sh --fail 'bootstrap failed on node 0 (see /var/log/cloud-init-output.log)'; exit 1; }`,
          `${SCRIPTS_DIR}/cluster-create.sh`,
        ]
      : [`${SCRIPTS_DIR}/bootstrap.sh`]),
  );

  const userData = new ec2.MultipartUserData();
  // Run the shell part at every boot, not only the first.
  userData.addPart(
    ec2.MultipartBody.fromRawBody({
      contentType: 'text/cloud-config; charset="utf-8"',
      body: 'cloud_final_modules:\n  - [scripts-user, always]\n',
    }),
  );
  userData.addUserDataPart(shell, ec2.MultipartBody.SHELL_SCRIPT, true);
  return userData;
}

/** Single-quoted for a shell file; values are checked to hold no quote. */
function quoted(value: string): string {
  if (value.includes("'"))
    throw new Error("a node's environment value may not hold a single quote");
  return `'${value}'`;
}

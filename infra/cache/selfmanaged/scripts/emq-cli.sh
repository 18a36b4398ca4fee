#!/usr/bin/env bash
# valkey-cli for operators on a node (through Session Manager): as the admin user whose
# password it reads from Secrets Manager, over TLS with the cluster's CA, against this node or
# the host:port given first. The password travels in the environment, never on a command line.
#   sudo /opt/emq/scripts/emq-cli.sh CLUSTER INFO
#   sudo /opt/emq/scripts/emq-cli.sh 10.40.3.11:6379 ROLE
#   sudo /opt/emq/scripts/emq-cli.sh --cluster check 10.40.2.10:6379
set -euo pipefail
# The settings file the user data wrote, unless the settings are in the environment already.
if [ -z "${EMQ_ENV_FILE:-}" ] && [ -z "${EMQ_NODES:-}" ]; then export EMQ_ENV_FILE=/etc/emq/node.env; fi
# shellcheck source=node-lib.sh
. "$(dirname "$(readlink -f "$0")")/node-lib.sh"
emq_load_settings
emq_load_admin
node=$EMQ_SELF
if [[ ${1:-} =~ ^[0-9A-Za-z.-]+:[0-9]+$ ]]; then
  node=$1
  shift
fi
emq_cli "$node" "$@"

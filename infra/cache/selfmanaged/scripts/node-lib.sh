# Sourced by bootstrap.sh and cluster-create.sh: settings, logging, waiting, AWS reads and
# valkey-cli as the admin user. Every path, port and binary comes from a variable so the same
# scripts run on an EC2 node (EMQ_SYSTEM=1) and unprivileged on loopback in a test (EMQ_SYSTEM=0).
# Nothing here prints a password, a key or a secret value.

emq_log() { printf '%s emq-node[%s] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${EMQ_NODE_INDEX:-?}" "$*" >&2; }
emq_die() {
  emq_log "error: $*"
  exit 1
}

# Settings: the user data writes them to EMQ_ENV_FILE; a test passes them in the environment.
emq_load_settings() {
  if [ -n "${EMQ_ENV_FILE:-}" ]; then
    set -a
    # shellcheck disable=SC1090
    . "$EMQ_ENV_FILE"
    set +a
  fi
  local name
  for name in EMQ_NODE_INDEX EMQ_NODES EMQ_SHARDS EMQ_REPLICAS EMQ_WIRE EMQ_MODULE_URI \
    EMQ_APP_SECRET_ARN EMQ_ADMIN_SECRET_ARN EMQ_TLS_SECRET_ARN EMQ_ACCESS_STRING \
    EMQ_INSTALLER_SECRET_ARN EMQ_INSTALLER_ACCESS_STRING; do
    [ -n "${!name:-}" ] || emq_die "$name is not set"
  done
  : "${EMQ_SYSTEM:=1}"
  : "${EMQ_CONF_DIR:=/etc/valkey/emq}"
  : "${EMQ_DATA_DIR:=/var/lib/valkey/emq}"
  : "${EMQ_RUN_DIR:=/run/valkey-emq}"
  : "${EMQ_NODE_TIMEOUT_MS:=5000}"
  : "${EMQ_WAIT_SECONDS:=1800}"
  : "${EMQ_START_SECONDS:=600}"
  : "${VALKEY_SERVER:=valkey-server}"
  : "${VALKEY_CLI:=valkey-cli}"
  : "${AWS_CLI:=aws}"
  : "${OPENSSL:=openssl}"
  read -r -a EMQ_NODE_LIST <<<"$EMQ_NODES"
  EMQ_NODE_COUNT=${#EMQ_NODE_LIST[@]}
  [ "$EMQ_NODE_COUNT" -eq $((EMQ_SHARDS * (EMQ_REPLICAS + 1))) ] ||
    emq_die "EMQ_NODES lists $EMQ_NODE_COUNT nodes; $EMQ_SHARDS shards of $((EMQ_REPLICAS + 1)) need $((EMQ_SHARDS * (EMQ_REPLICAS + 1)))"
  [ "$EMQ_NODE_INDEX" -lt "$EMQ_NODE_COUNT" ] || emq_die "EMQ_NODE_INDEX $EMQ_NODE_INDEX is not in EMQ_NODES"
  EMQ_SELF=${EMQ_NODE_LIST[$EMQ_NODE_INDEX]}
  EMQ_TLS_DIR=$EMQ_CONF_DIR/tls
}

emq_host() { printf '%s' "${1%:*}"; }
emq_port() { printf '%s' "${1##*:}"; }

# Runs "$@" once a second until it succeeds or `seconds` pass.
emq_wait() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 1
  done
}

# A Secrets Manager value, read with the instance role (the test puts a stand-in CLI first).
emq_secret() {
  "$AWS_CLI" secretsmanager get-secret-value --secret-id "$1" --query SecretString --output text
}

emq_json_field() { jq -er --arg field "$2" '.[$field] | strings' <<<"$1"; }

# The admin user from its secret; emq_cli then speaks as the admin.
emq_load_admin() {
  local json
  json=$(emq_secret "$EMQ_ADMIN_SECRET_ARN") || emq_die "cannot read the admin secret"
  EMQ_ADMIN_USER=$(emq_json_field "$json" username) || emq_die "the admin secret has no username"
  EMQ_ADMIN_PASSWORD=$(emq_json_field "$json" password) || emq_die "the admin secret has no password"
  EMQ_CLI_USER=$EMQ_ADMIN_USER
  EMQ_CLI_PASSWORD=$EMQ_ADMIN_PASSWORD
}

# valkey-cli against one node (host:port) over TLS as EMQ_CLI_USER; the password travels in the
# environment, never on a command line another process could read. An address nobody holds yet
# (an instance still launching) drops packets, so connecting gives up after 3 s.
emq_cli() {
  local node=$1
  shift
  REDISCLI_AUTH=$EMQ_CLI_PASSWORD "$VALKEY_CLI" -t 3 -h "$(emq_host "$node")" -p "$(emq_port "$node")" \
    --tls --cacert "$EMQ_TLS_DIR/ca.pem" --user "$EMQ_CLI_USER" --no-auth-warning "$@"
}

emq_answers() { [ "$(emq_cli "$1" PING 2>/dev/null)" = PONG ]; }

# One field of CLUSTER INFO, or empty when the node does not answer.
emq_cluster_info() {
  emq_cli "$1" CLUSTER INFO 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"
}

emq_has_slots() { [ "$(emq_cluster_info "$1" cluster_slots_assigned)" -gt 0 ] 2>/dev/null; }

#!/usr/bin/env bash
# Brings up one node of the self-managed EchoMQ Valkey cluster. Runs at every boot (user data)
# and is idempotent: it restarts the server only when its files changed.
#
# Settings (variables, or EMQ_ENV_FILE naming a file of them):
#   EMQ_NODE_INDEX        this node's position in EMQ_NODES (0 coordinates creation)
#   EMQ_NODES             every node's host:port, space-separated, node i of shard i % EMQ_SHARDS
#   EMQ_SHARDS, EMQ_REPLICAS  primaries, and replicas per primary
#   EMQ_WIRE              the wire identity the module is loaded with
#   EMQ_MODULE_URI        s3:// location of the EchoMQ module
#   EMQ_APP_SECRET_ARN, EMQ_ADMIN_SECRET_ARN  {"username","password"} of the functions / admin
#   EMQ_INSTALLER_SECRET_ARN  {"username","password"} of the installer (identity and library)
#   EMQ_TLS_SECRET_ARN    {"ca","cert","key"}; node 0 fills it on first boot
#   EMQ_ACCESS_STRING     ACL rules of the functions' user
#   EMQ_INSTALLER_ACCESS_STRING  ACL rules of the installer's user
#   EMQ_SYSTEM            1: install packages, mount the data volume, run under systemd (EC2);
#                         0: none of that, run in the background in the given directories (tests)
#   EMQ_CONF_DIR, EMQ_DATA_DIR, EMQ_RUN_DIR, EMQ_DATA_DEVICE, EMQ_VALKEY_PACKAGE,
#   EMQ_MAXMEMORY, EMQ_NODE_TIMEOUT_MS, VALKEY_SERVER, VALKEY_CLI, AWS_CLI, OPENSSL
set -euo pipefail
umask 077
SCRIPT_DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source=node-lib.sh
. "$SCRIPT_DIR/node-lib.sh"
# shellcheck source=node-tls.sh
. "$SCRIPT_DIR/node-tls.sh"
emq_load_settings

install_packages() {
  if ! command -v "$VALKEY_SERVER" >/dev/null || ! command -v jq >/dev/null; then
    dnf install -y -q "${EMQ_VALKEY_PACKAGE:-valkey}" jq openssl
  fi
  local version
  version=$("$VALKEY_SERVER" --version | sed -n 's/.* v=\([0-9]*\)\..*/\1/p')
  [ "${version:-0}" -ge 8 ] || emq_die "valkey-server 8 or later is needed, found major ${version:-none}"
  id -u valkey >/dev/null 2>&1 || useradd --system --no-create-home --shell /sbin/nologin valkey
  # Forking for AOF rewrites needs overcommit; the package's own service must not take the port.
  printf 'vm.overcommit_memory = 1\n' >/etc/sysctl.d/90-emq-valkey.conf
  sysctl -q -p /etc/sysctl.d/90-emq-valkey.conf
  systemctl disable --now valkey.service >/dev/null 2>&1 || true
}

mount_data_volume() {
  local device=${EMQ_DATA_DEVICE:-/dev/sdf}
  mkdir -p "$EMQ_DATA_DIR"
  mountpoint -q "$EMQ_DATA_DIR" && return 0
  emq_wait 120 test -b "$device" || emq_die "data volume $device did not appear"
  blkid "$device" >/dev/null 2>&1 || mkfs.xfs -q "$device"
  local uuid
  uuid=$(blkid -s UUID -o value "$device")
  grep -q "$uuid" /etc/fstab || printf 'UUID=%s %s xfs defaults,noatime,nofail 0 2\n' "$uuid" "$EMQ_DATA_DIR" >>/etc/fstab
  mount "$EMQ_DATA_DIR"
}

read_credentials() {
  emq_load_admin
  local json
  json=$(emq_secret "$EMQ_APP_SECRET_ARN") || emq_die "cannot read the functions' secret"
  APP_USER=$(emq_json_field "$json" username) || emq_die "the functions' secret has no username"
  APP_PASSWORD=$(emq_json_field "$json" password) || emq_die "the functions' secret has no password"
  json=$(emq_secret "$EMQ_INSTALLER_SECRET_ARN") || emq_die "cannot read the installer's secret"
  INSTALLER_USER=$(emq_json_field "$json" username) || emq_die "the installer's secret has no username"
  INSTALLER_PASSWORD=$(emq_json_field "$json" password) || emq_die "the installer's secret has no password"
}

fetch_module() {
  "$AWS_CLI" s3 cp --only-show-errors "$EMQ_MODULE_URI" "$EMQ_CONF_DIR/emq.so.new" >/dev/null
  # The server refuses to load a module without execute permission.
  chmod 0755 "$EMQ_CONF_DIR/emq.so.new"
  mv "$EMQ_CONF_DIR/emq.so.new" "$EMQ_CONF_DIR/emq.so"
}

sha256_hex() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

# Hashed passwords only: the ACL file never holds a password in clear. The fence guard's
# password never leaves this node; it is kept so that a reboot does not change the file.
# Between boots a rotation gives a user its new password beside the current one (ACL SETUSER,
# then ACL SAVE into this file); at boot the file is written anew from the secrets' current
# passwords, so after a reboot only those log in (docs/operations.md, Rotating credentials).
write_acl() {
  [ -s "$EMQ_CONF_DIR/guard.pass" ] || "$OPENSSL" rand -hex 24 >"$EMQ_CONF_DIR/guard.pass"
  cat >"$EMQ_CONF_DIR/users.acl" <<ACL
user default off resetkeys resetchannels -@all
user $EMQ_ADMIN_USER on #$(sha256_hex "$EMQ_ADMIN_PASSWORD") ~* &* +@all
user $APP_USER $EMQ_ACCESS_STRING #$(sha256_hex "$APP_PASSWORD")
user $INSTALLER_USER $EMQ_INSTALLER_ACCESS_STRING #$(sha256_hex "$INSTALLER_PASSWORD")
user emq-guard on #$(sha256_hex "$(cat "$EMQ_CONF_DIR/guard.pass")") resetkeys resetchannels -@all +ping +role +cluster|nodes +emq.wire +emq.wire.install
ACL
}

write_config() {
  local host port binds maxmemory
  host=$(emq_host "$EMQ_SELF")
  port=$(emq_port "$EMQ_SELF")
  binds=$host
  [ "$host" = 127.0.0.1 ] || binds="$host 127.0.0.1"
  maxmemory=${EMQ_MAXMEMORY:-$(awk '/^MemTotal:/ { printf "%d", $2 * 1024 * 0.75 }' /proc/meminfo)}
  {
    printf '%s\n' "bind $binds" 'port 0' "tls-port $port" \
      "tls-cert-file $EMQ_TLS_DIR/server.pem" "tls-key-file $EMQ_TLS_DIR/server.key" \
      "tls-ca-cert-file $EMQ_TLS_DIR/ca.pem" 'tls-auth-clients no' 'tls-replication yes' \
      'tls-cluster yes' 'cluster-enabled yes' 'cluster-config-file nodes.conf' \
      "cluster-node-timeout $EMQ_NODE_TIMEOUT_MS" "cluster-announce-ip $host" \
      'cluster-require-full-coverage no' "dir $EMQ_DATA_DIR" 'appendonly yes' \
      'appendfsync everysec' 'save ""' "aclfile $EMQ_CONF_DIR/users.acl" \
      "loadmodule $EMQ_CONF_DIR/emq.so wire $EMQ_WIRE" "maxmemory $maxmemory" \
      'maxmemory-policy noeviction' 'hash-max-listpack-value 1024' "masteruser $EMQ_ADMIN_USER" "masterauth $EMQ_ADMIN_PASSWORD"
    if [ "$EMQ_SYSTEM" = 1 ]; then
      printf '%s\n' 'daemonize no' 'supervised no'
    else
      # Not daemonized: start_server knows the pid before the server runs (see there).
      printf '%s\n' 'daemonize no' "pidfile $EMQ_RUN_DIR/valkey.pid" "logfile $EMQ_RUN_DIR/valkey.log"
    fi
  } >"$EMQ_CONF_DIR/valkey.conf"
}

files_digest() {
  cat "$EMQ_CONF_DIR/valkey.conf" "$EMQ_CONF_DIR/users.acl" "$EMQ_CONF_DIR/emq.so" "$EMQ_TLS_DIR"/* |
    sha256sum | cut -d' ' -f1
}

running() {
  if [ "$EMQ_SYSTEM" = 1 ]; then
    systemctl is-active --quiet emq-valkey.service
  else
    # The server this run started (SERVER_PID), else the one its pid file names: the server
    # rewrites that file while it starts, so a reading then may find it empty.
    local pid=${SERVER_PID:-}
    [ -n "$pid" ] || pid=$(cat "$EMQ_RUN_DIR/valkey.pid" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
  fi
}

stop_local() {
  local pid
  pid=$(cat "$EMQ_RUN_DIR/valkey.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  emq_wait 30 sh -c "! kill -0 $pid 2>/dev/null" || kill -9 "$pid" 2>/dev/null || true
}

# Loading a large AOF takes a while; a server that exited will not answer, so stop waiting.
server_up() {
  emq_answers "$EMQ_SELF" && return 0
  running || emq_die "the server exited at start (see its log)"
  return 1
}

start_server() {
  local digest applied
  digest=$(files_digest)
  applied=$(cat "$EMQ_DATA_DIR/.emq-applied" 2>/dev/null || true)
  if running && [ "$digest" = "$applied" ]; then
    emq_log "server already running with these files"
    return 0
  fi
  if [ "$EMQ_SYSTEM" = 1 ]; then
    chown -R valkey:valkey "$EMQ_CONF_DIR" "$EMQ_DATA_DIR"
    cat >/etc/systemd/system/emq-valkey.service <<UNIT
[Unit]
Description=echomq-lambda Valkey cluster node
After=network-online.target
Wants=network-online.target
RequiresMountsFor=$EMQ_DATA_DIR

[Service]
User=valkey
Group=valkey
ExecStart=$(command -v "$VALKEY_SERVER") $EMQ_CONF_DIR/valkey.conf
Restart=always
RestartSec=2
LimitNOFILE=65536
TimeoutStopSec=60

[Install]
WantedBy=multi-user.target
UNIT
    cat >/etc/systemd/system/emq-fence-guard.service <<UNIT
[Unit]
Description=echomq-lambda: restore the wire identity on this primary
After=emq-valkey.service

[Service]
Type=oneshot
Environment=EMQ_ENV_FILE=${EMQ_ENV_FILE:-}
ExecStart=$SCRIPT_DIR/fence-guard.sh
UNIT
    cat >/etc/systemd/system/emq-fence-guard.timer <<UNIT
[Unit]
Description=echomq-lambda: check the wire identity on this primary every 15 s

[Timer]
OnBootSec=60
OnUnitActiveSec=15
AccuracySec=1

[Install]
WantedBy=timers.target
UNIT
    systemctl daemon-reload
    systemctl enable emq-valkey.service emq-fence-guard.timer >/dev/null 2>&1
    systemctl restart emq-valkey.service
    systemctl start emq-fence-guard.timer
  else
    stop_local
    # A daemonizing server writes its pid file only after it forked and bound its ports, so
    # right after the start the file is missing (first boot) or names the dead predecessor (a
    # crash): server_up would take a server still starting for one that exited. Started in the
    # background, its pid is known at once and written before the first check. Its own output
    # (a refused setting, say) goes to its log, and it holds no pipe of whoever ran this script.
    "$VALKEY_SERVER" "$EMQ_CONF_DIR/valkey.conf" </dev/null >>"$EMQ_RUN_DIR/valkey.log" 2>&1 &
    SERVER_PID=$!
    printf '%s\n' "$SERVER_PID" >"$EMQ_RUN_DIR/valkey.pid"
  fi
  printf '%s\n' "$digest" >"$EMQ_DATA_DIR/.emq-applied"
  emq_wait "$EMQ_START_SECONDS" server_up || emq_die "the server did not answer within $EMQ_START_SECONDS s"
  emq_log "server started"
}

# The primary that serves the first slot of `shard` now (failover may have moved it).
shard_owner() {
  local peer=$1 slot=$(($2 * 16384 / EMQ_SHARDS))
  emq_cli "$peer" CLUSTER NODES | tr -d '\r' | awk -v slot="$slot" '
    $3 ~ /master/ && $3 !~ /fail/ {
      for (i = 9; i <= NF; i++) {
        n = split($i, range, "-"); lo = range[1]; hi = (n == 2 ? range[2] : range[1])
        if (slot >= lo && slot <= hi) { print $1; exit }
      }
    }'
}

replicate_to() { emq_cli "$EMQ_SELF" CLUSTER REPLICATE "$1" 2>/dev/null | grep -q '^OK'; }

# A node that starts without a cluster identity while the cluster already serves replaces a
# lost node. Its predecessor (same address) is dropped from every peer's table before this server
# answers there, since peers then mark the old entry address-less and it can no longer be found.
fresh_identity() {
  [ ! -s "$EMQ_DATA_DIR/nodes.conf" ] || [ "$(grep -vc '^vars ' "$EMQ_DATA_DIR/nodes.conf")" -le 1 ]
}

serving_peer() {
  local node
  for node in "${EMQ_NODE_LIST[@]}"; do
    if [ "$node" != "$EMQ_SELF" ] && emq_has_slots "$node"; then
      printf '%s' "$node"
      return 0
    fi
  done
  return 1
}

forget_predecessor() {
  local peer=$1 id node
  for id in $(emq_cli "$peer" CLUSTER NODES | tr -d '\r' | awk -v addr="$EMQ_SELF@" 'index($2, addr) == 1 { print $1 }'); do
    for node in "${EMQ_NODE_LIST[@]}"; do
      [ "$node" = "$EMQ_SELF" ] || emq_cli "$node" CLUSTER FORGET "$id" >/dev/null 2>&1 || true
    done
    emq_log "forgot predecessor $id"
  done
}

# Sets OWNER. Right after a loss the peers may still be failing the shard over, or flag its
# primary as failing for a moment on a busy network: one reading is not an answer.
find_owner() { OWNER=$(shard_owner "$1" "$2") && [ -n "$OWNER" ]; }

join_as_replica() {
  local peer=$1 shard=$((EMQ_NODE_INDEX % EMQ_SHARDS))
  emq_wait "$EMQ_WAIT_SECONDS" find_owner "$peer" "$shard" || emq_die "no live primary serves shard $shard"
  emq_cli "$EMQ_SELF" CLUSTER MEET "$(emq_host "$peer")" "$(emq_port "$peer")" >/dev/null
  emq_wait 120 replicate_to "$OWNER" || emq_die "could not replicate primary $OWNER"
  emq_log "joined shard $shard as a replica of $OWNER"
}

if [ "$EMQ_SYSTEM" = 1 ]; then
  install_packages
  mount_data_volume
fi
mkdir -p "$EMQ_CONF_DIR" "$EMQ_DATA_DIR" "$EMQ_RUN_DIR"
read_credentials
obtain_tls
fetch_module
write_acl
write_config
peer=''
if fresh_identity && peer=$(serving_peer); then
  emq_log "the cluster already serves: this node replaces a lost one (through $peer)"
  forget_predecessor "$peer"
fi
start_server
[ -z "$peer" ] || join_as_replica "$peer"
"$SCRIPT_DIR/fence-guard.sh" || emq_log "the fence guard did not finish; its timer tries again"
emq_log "node $EMQ_SELF ready"

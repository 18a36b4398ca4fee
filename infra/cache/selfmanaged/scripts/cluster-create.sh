#!/usr/bin/env bash
# Creates the cluster once every node answers, installs the wire identity on every primary and
# tells CloudFormation (EMQ_SIGNAL_URL, a wait condition handle) how it went, with the CA the
# functions must trust as the signal's data. Runs on node 0 after bootstrap.sh at every boot,
# but does its work once: a marker on the data volume records success, and later boots leave
# the identity to fence-guard.sh. Without the marker (a fresh volume) a cluster that already
# serves is not created again, and installing the identity is idempotent.
#
# Settings: those of bootstrap.sh, plus EMQ_SIGNAL_URL (none: no signal) and EMQ_WAIT_SECONDS.
# `cluster-create.sh --fail <reason>` only signals a failure (bootstrap failed on node 0).
set -euo pipefail
umask 077
# shellcheck source=node-lib.sh
. "$(dirname "$(readlink -f "$0")")/node-lib.sh"
emq_load_settings

MARKER=$EMQ_DATA_DIR/.emq-cluster-ready

# CloudFormation shows the reason in the stack events: it names a step, never a value. A wait
# condition takes one signal; after the deploy its URL has expired, so a failed signal is only
# logged (the marker keeps later boots from trying).
signal() {
  local status=$1 reason=$2 data=${3:-}
  if [ -z "${EMQ_SIGNAL_URL:-}" ]; then
    emq_log "no wait condition to signal ($status: $reason)"
    return 0
  fi
  # printf, not jq: a failure signal may come before bootstrap.sh installed jq. The reasons are
  # this script's own words and the data is base64, so nothing needs escaping.
  printf '{"Status":"%s","Reason":"%s","UniqueId":"emq-cluster","Data":"%s"}' "$status" "$reason" "$data" |
    curl -fsS --retry 5 --retry-all-errors -X PUT -H 'Content-Type:' --data-binary @- "$EMQ_SIGNAL_URL" >/dev/null ||
    emq_log "could not signal the wait condition ($status)"
}

if [ "${1:-}" = --fail ]; then
  signal FAILURE "${2:-node 0 failed before creating the cluster}"
  exit 1
fi

if [ -e "$MARKER" ]; then
  emq_log "the cluster was created from this node before; fence-guard.sh keeps the identity"
  exit 0
fi

STEP='reading the admin secret'
trap 'status=$?; [ $status -eq 0 ] || signal FAILURE "cluster creation failed while $STEP (node 0 log: /var/log/cloud-init-output.log)" || true' EXIT
emq_load_admin

primary_of_shard() { printf '%s' "${EMQ_NODE_LIST[$1]}"; }

all_answer() {
  local node
  for node in "${EMQ_NODE_LIST[@]}"; do emq_answers "$node" || return 1; done
}

all_know_each_other() {
  local node
  for node in "${EMQ_NODE_LIST[@]}"; do
    [ "$(emq_cluster_info "$node" cluster_known_nodes)" = "$EMQ_NODE_COUNT" ] || return 1
  done
}

all_ok() {
  local node
  for node in "${EMQ_NODE_LIST[@]}"; do
    [ "$(emq_cluster_info "$node" cluster_state)" = ok ] || return 1
  done
}

replicate() { emq_cli "$1" CLUSTER REPLICATE "$2" 2>/dev/null | grep -q '^OK'; }

role_of() { emq_cli "$1" ROLE 2>/dev/null | head -n 1 | tr -d '\r'; }

link_up() { emq_cli "$1" INFO replication | tr -d '\r' | grep -q '^master_link_status:up'; }

create() {
  local node shard index first last id
  STEP='introducing the nodes'
  for node in "${EMQ_NODE_LIST[@]:1}"; do
    emq_cli "${EMQ_NODE_LIST[0]}" CLUSTER MEET "$(emq_host "$node")" "$(emq_port "$node")" >/dev/null
  done
  emq_wait 120 all_know_each_other
  STEP='assigning slots'
  for ((shard = 0; shard < EMQ_SHARDS; shard++)); do
    first=$((shard * 16384 / EMQ_SHARDS))
    last=$(((shard + 1) * 16384 / EMQ_SHARDS - 1))
    emq_cli "$(primary_of_shard "$shard")" CLUSTER ADDSLOTSRANGE "$first" "$last" | grep -q '^OK'
  done
  STEP='attaching the replicas'
  for ((index = EMQ_SHARDS; index < EMQ_NODE_COUNT; index++)); do
    id=$(emq_cli "$(primary_of_shard $((index % EMQ_SHARDS)))" CLUSTER MYID | tr -d '\r')
    emq_wait 120 replicate "${EMQ_NODE_LIST[$index]}" "$id"
  done
  emq_log "cluster created: $EMQ_SHARDS shards, $EMQ_REPLICAS replicas each"
}

STEP='waiting for every node to answer'
emq_wait "$EMQ_WAIT_SECONDS" all_answer
created=0
for node in "${EMQ_NODE_LIST[@]}"; do
  if emq_has_slots "$node"; then created=1 && break; fi
done
if [ "$created" = 1 ]; then emq_log "the cluster already serves; not creating it"; else create; fi

STEP='waiting for cluster_state ok'
emq_wait 180 all_ok
STEP='waiting for the replicas to sync'
for node in "${EMQ_NODE_LIST[@]}"; do
  [ "$(role_of "$node")" = master ] || emq_wait 180 link_up "$node"
done

STEP='installing the wire identity'
for node in "${EMQ_NODE_LIST[@]}"; do
  [ "$(role_of "$node")" = master ] || continue
  emq_cli "$node" EMQ.WIRE.INSTALL >/dev/null
  [ "$(emq_cli "$node" EMQ.WIRE | tr -d '\r' | paste -sd ' ')" = "$EMQ_WIRE $EMQ_WIRE" ]
done
emq_log "wire identity '$EMQ_WIRE' installed on every primary"

STEP='signalling CloudFormation'
: >"$MARKER"
signal SUCCESS 'cluster ready, wire identity installed' "$(base64 -w0 <"$EMQ_TLS_DIR/ca.pem")"

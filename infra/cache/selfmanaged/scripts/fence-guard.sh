#!/usr/bin/env bash
# Puts this node's copy of the wire identity back when the node serves slots as a primary
# without it. Valkey deletes the keys of slots a node does not own when it loads its data, and
# {emq}:version lives in one slot, so after a restart every primary but one has lost the copy the
# module checks on each write (docs/wire.md, "The fence"). It installs only the identity of the
# module this node loaded, the one the deploy-time fence installer put there. Runs from a systemd
# timer and at the end of bootstrap.sh, as a local user that may run nothing but these checks.
set -euo pipefail
# shellcheck source=node-lib.sh
. "$(dirname "$(readlink -f "$0")")/node-lib.sh"
emq_load_settings
EMQ_CLI_USER=emq-guard
EMQ_CLI_PASSWORD=$(cat "$EMQ_CONF_DIR/guard.pass")

[ "$(emq_cli "$EMQ_SELF" ROLE | head -n 1 | tr -d '\r')" = master ] || exit 0
# A primary without slots is not serving yet (cluster creation or a replacement joining).
emq_cli "$EMQ_SELF" CLUSTER NODES | tr -d '\r' | awk '$3 ~ /myself/ && NF > 8 { found = 1 } END { exit !found }' ||
  exit 0
[ "$(emq_cli "$EMQ_SELF" EMQ.WIRE | tr -d '\r' | paste -sd ' ')" != "$EMQ_WIRE $EMQ_WIRE" ] || exit 0
emq_cli "$EMQ_SELF" EMQ.WIRE.INSTALL >/dev/null
emq_log "wire identity '$EMQ_WIRE' restored on this primary"

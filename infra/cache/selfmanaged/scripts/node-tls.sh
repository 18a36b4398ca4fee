# The cluster's TLS material, sourced by bootstrap.sh: node 0 makes it at first boot and publishes
# it in EMQ_TLS_SECRET_ARN; every node waits for it there and writes it to EMQ_TLS_DIR.

# One server certificate for every node (their addresses are fixed), signed by a CA whose key is
# thrown away: the secret holds only what the nodes serve and what clients trust.
make_tls_material() {
  local work=$1 san='' seen=' ' node host
  for node in "${EMQ_NODE_LIST[@]}"; do
    host=$(emq_host "$node")
    case "$seen" in *" $host "*) continue ;; esac
    seen="$seen$host "
    if [[ $host =~ ^[0-9.]+$ ]]; then san="$san,IP:$host"; else san="$san,DNS:$host"; fi
  done
  "$OPENSSL" req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 3650 \
    -subj '/CN=echomq-lambda Valkey CA' -keyout "$work/ca.key" -out "$work/ca.pem" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null
  "$OPENSSL" req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
    -subj '/CN=echomq-lambda Valkey' -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
  printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n' \
    "${san#,}" >"$work/server.ext"
  "$OPENSSL" x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
    -set_serial "0x$("$OPENSSL" rand -hex 16)" -days 3650 -sha256 -extfile "$work/server.ext" \
    -out "$work/server.pem" 2>/dev/null
  jq -n --rawfile ca "$work/ca.pem" --rawfile cert "$work/server.pem" --rawfile key "$work/server.key" \
    '{ca: $ca, cert: $cert, key: $key}' >"$work/tls.json"
}

tls_json_complete() { jq -e '(.ca | strings) and (.cert | strings) and (.key | strings)' <<<"$1" >/dev/null 2>&1; }

tls_published() {
  TLS_JSON=$(emq_secret "$EMQ_TLS_SECRET_ARN" 2>/dev/null) && tls_json_complete "$TLS_JSON"
}

obtain_tls() {
  TLS_JSON=$(emq_secret "$EMQ_TLS_SECRET_ARN") || emq_die "cannot read the TLS secret"
  if ! tls_json_complete "$TLS_JSON"; then
    if [ "$EMQ_NODE_INDEX" -eq 0 ]; then
      local work
      work=$(mktemp -d)
      make_tls_material "$work"
      "$AWS_CLI" secretsmanager put-secret-value --secret-id "$EMQ_TLS_SECRET_ARN" \
        --secret-string "file://$work/tls.json" >/dev/null
      rm -rf "$work"
      emq_log "TLS material created and published"
    else
      emq_log "waiting for node 0 to publish the TLS material"
    fi
    emq_wait "$EMQ_WAIT_SECONDS" tls_published || emq_die "no TLS material after $EMQ_WAIT_SECONDS s"
  fi
  mkdir -p "$EMQ_TLS_DIR.new"
  jq -j .ca <<<"$TLS_JSON" >"$EMQ_TLS_DIR.new/ca.pem"
  jq -j .cert <<<"$TLS_JSON" >"$EMQ_TLS_DIR.new/server.pem"
  jq -j .key <<<"$TLS_JSON" >"$EMQ_TLS_DIR.new/server.key"
  rm -rf "$EMQ_TLS_DIR"
  mv "$EMQ_TLS_DIR.new" "$EMQ_TLS_DIR"
}

#!/usr/bin/env bash
# Makes sure a Valkey the tests run against is installed, and optionally prints where it is.
#
#   bash scripts/install-valkey.sh                            Valkey 8.0 (bookworm-backports)
#   bash scripts/install-valkey.sh --print-path               ... and print its bin directory
#   bash scripts/install-valkey.sh --version 9.1 --print-path Valkey 9.1.2 in a private prefix
#
# The printed directory holds runnable `valkey-server` and `valkey-cli`; point EMQ_VALKEY_BIN at
# it and the test harness, the bench and `npm start` use that server. Only the path goes to
# stdout (everything else to stderr), so `EMQ_VALKEY_BIN=$(bash ... --print-path)` works.
#
# Valkey 8 is in Debian 12's bookworm-backports suite, not in plain bookworm; Homebrew has it on
# macOS. Valkey 9.1.2 is only in Debian sid, and its binary needs glibc 2.38 (bookworm has
# 2.36): so the sid packages and the libraries they need are unpacked into a private prefix and
# started through that prefix's own dynamic loader (docs/development.md, "Valkey 9"). Sid is never
# added to the system's apt sources: a private sources list and state directory are used. The prefix
# is a cache (EMQ_VALKEY_CACHE, default $XDG_CACHE_HOME/emq-valkey or ~/.cache/emq-valkey), so CI on
# one machine installs it once. Used by .ci/run and `npm start`.
set -euo pipefail

version=8.0
print_path=0
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="${2:?--version needs a value: 8.0 or 9.1}"; shift 2 ;;
    --version=*) version="${1#--version=}"; shift ;;
    --print-path) print_path=1; shift ;;
    -h | --help) sed -n '2,9p' "$0" >&2; exit 0 ;;
    *) echo "install-valkey.sh: unknown argument '$1' (use --version 8.0|9.1 and --print-path)" >&2; exit 2 ;;
  esac
done

case "$version" in
  8 | 8.0) exec bash "$(dirname "$0")/valkey/install-8.0.sh" "$print_path" ;;
  9 | 9.1) exec bash "$(dirname "$0")/valkey/install-9.1.sh" "$print_path" ;;
  *) echo "install-valkey.sh: no route for Valkey '$version'; the tested versions are 8.0 and 9.1" >&2; exit 2 ;;
esac

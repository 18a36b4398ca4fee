#!/usr/bin/env bash
# Valkey 8 from the system: bookworm-backports on Debian 12 (root), the distribution elsewhere,
# Homebrew on macOS. Argument 1: "1" prints the directory holding valkey-server on stdout.
# Called by ../install-valkey.sh; all progress goes to stderr.
set -euo pipefail
print_path="${1:-0}"
. "$(dirname "$0")/apt-archive.sh"

have_valkey8() {
  command -v valkey-server >/dev/null 2>&1 &&
    valkey-server --version | grep -Eq 'v=(8|9|[1-9][0-9])\.'
}

install() {
  if [ -r /etc/debian_version ] && [ "$(id -u)" = 0 ]; then
    . /etc/os-release
    suite="${VERSION_CODENAME:-bookworm}"
    if [ "${ID:-}" = debian ] && [ "$suite" = bookworm ]; then
      if ! debian_archive_uri bookworm-backports >/dev/null; then
        # The backports suite of the archive this machine already uses for bookworm.
        archive="$(debian_archive_uri bookworm)" || {
          echo 'install-valkey.sh: no apt source of this machine serves bookworm, so there is no Debian archive to take bookworm-backports from; add one to /etc/apt/sources.list.d/' >&2
          exit 1
        }
        cat >/etc/apt/sources.list.d/bookworm-backports.sources <<SOURCES
Types: deb
URIs: $archive
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
      fi
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports valkey-server valkey-tools >/dev/null
    else
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valkey-server valkey-tools >/dev/null
    fi
  elif command -v brew >/dev/null 2>&1; then
    brew install valkey
  else
    cat >&2 <<'HELP'
Valkey 8 is not installed and this script cannot install it here.
  Debian 12 (as root):  add the bookworm-backports suite of your Debian archive (the URI
                        your bookworm entry in /etc/apt uses) to /etc/apt/sources.list.d/, then
                        apt-get update && apt-get install -t bookworm-backports valkey-server valkey-tools
  Ubuntu 24.04+:        sudo apt-get install valkey-server valkey-tools
  macOS:                brew install valkey
HELP
    exit 1
  fi

  # The package starts a system service on port 6379 where an init system runs; the project
  # starts its own servers, so stop it if it came up.
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet valkey-server 2>/dev/null; then
    systemctl stop valkey-server || true
  fi
  have_valkey8 || { echo 'valkey-server 8 is still missing after the install' >&2; exit 1; }
  valkey-server --version >&2
}

have_valkey8 || install 1>&2
if [ "$print_path" = 1 ]; then dirname "$(command -v valkey-server)"; fi

#!/usr/bin/env bash
# Valkey 9.1.2 from Debian sid, unpacked into a private prefix (docs/development.md, "Valkey 9", the
# unpack route). Argument 1: "1" prints the prefix's bin directory on stdout. Called by
# ../install-valkey.sh; all progress goes to stderr. Idempotent: a prefix whose wrapper answers
# 9.1.2 is reused.
#
# Why a private loader: sid's valkey-server needs glibc 2.38 and bookworm has 2.36, so the
# wrappers in <prefix>/bin exec <prefix>'s ld-linux-x86-64.so.2 with --library-path pointing
# only at the prefix. Why a private apt state: sid must never reach the system's sources.
# Sid comes from the Debian archive this machine's apt already uses (apt-archive.sh);
# EMQ_VALKEY_SID_MIRROR may name another archive holding 9.1.2 (an archive snapshot, once sid
# has moved on).
set -euo pipefail
print_path="${1:-0}"
want=9.1.2
. "$(dirname "$0")/apt-archive.sh"
cache="${EMQ_VALKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/emq-valkey}"
prefix="$cache/valkey-$want"
arch="$(dpkg --print-architecture 2>/dev/null || echo unknown)"
case "$arch" in
  amd64) loader=lib64/ld-linux-x86-64.so.2; triplet=x86_64-linux-gnu ;;
  arm64) loader=lib/ld-linux-aarch64.so.1; triplet=aarch64-linux-gnu ;;
  *) echo "install-valkey.sh: the Valkey $want route needs Debian's dpkg on amd64 or arm64 (found '$arch')" >&2; exit 1 ;;
esac
# The packages named by docs/development.md "Valkey 9" plus the libraries they in turn need
# (libssl3t64: libzstd1, zlib1g; libjemalloc2: libstdc++6, libgcc-s1). The check below proves
# nothing is missing.
packages=(valkey-server valkey-tools libc6 libssl3t64 libjemalloc2 liblzf1 libatomic1
  libsystemd0 libzstd1 zlib1g libgcc-s1 libstdc++6)

is_installed() {
  [ -x "$prefix/bin/valkey-server" ] && [ -x "$prefix/bin/valkey-cli" ] &&
    "$prefix/bin/valkey-server" --version 2>/dev/null | grep -q "v=$want " &&
    "$prefix/bin/valkey-cli" --version 2>/dev/null | grep -q "$want"
}

install() {
  for tool in apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || { echo "install-valkey.sh: Valkey $want needs $tool (Debian/Ubuntu)" >&2; exit 1; }
  done
  mirror="${EMQ_VALKEY_SID_MIRROR:-}"
  if [ -z "$mirror" ]; then
    # shellcheck disable=SC1091
    [ -r /etc/os-release ] && . /etc/os-release
    if [ "${ID:-}" != debian ] || ! mirror="$(debian_archive_uri "${VERSION_CODENAME:-}")"; then
      echo "install-valkey.sh: Valkey $want comes from Debian sid, taken from the Debian archive this machine's apt uses, and none is configured here; set EMQ_VALKEY_SID_MIRROR to a Debian archive's URI" >&2
      exit 1
    fi
  fi
  work="$(mktemp -d "$cache/.install.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/root"
  touch "$work/apt/status"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$work/apt/sources.list"
  apt_opts=(-q -o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/apt/lists" -o "Dir::State::status=$work/apt/status"
    -o "Dir::Cache=$work/apt/cache" -o "APT::Architecture=$arch" -o Debug::NoLocking=1
    -o APT::Sandbox::User=root)
  echo "--- Valkey $want: fetching sid's package index from $mirror" >&2
  apt-get "${apt_opts[@]}" update >&2
  candidate="$(apt-cache "${apt_opts[@]}" policy valkey-server | awk '/Candidate:/ {print $2}')"
  case "$candidate" in
    "$want"-*) ;;
    *) echo "install-valkey.sh: $mirror sid offers valkey-server '$candidate', not $want; set EMQ_VALKEY_SID_MIRROR to an archive that has it (an archive snapshot from when sid had it)" >&2; exit 1 ;;
  esac
  (cd "$work/debs" && apt-get "${apt_opts[@]}" download valkey-server="$candidate" valkey-tools="$candidate" "${packages[@]:2}" >&2)
  for deb in "$work/debs"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done

  root="$work/root"
  # usrmerge: sid ships libraries under usr/lib; older packages under lib. Search both.
  libs="$prefix/usr/lib/$triplet:$prefix/lib/$triplet"
  [ -e "$root/usr/$loader" ] && loader_path="$prefix/usr/$loader" || loader_path="$prefix/$loader"
  mkdir -p "$root/bin"
  for tool in valkey-server valkey-cli; do
    cat >"$root/bin/$tool" <<WRAPPER
#!/bin/sh
# Valkey $want from Debian sid, run with its own glibc (written by scripts/install-valkey.sh).
exec "$loader_path" --library-path "$libs" "$prefix/usr/bin/$tool" "\$@"
WRAPPER
    chmod +x "$root/bin/$tool"
  done

  # Move into place atomically, so a concurrent caller sees either nothing or a whole prefix.
  rm -rf "$prefix.old"
  [ -e "$prefix" ] && mv "$prefix" "$prefix.old"
  mv "$root" "$prefix"
  rm -rf "$prefix.old"

  # Every library the server loads must come from the prefix, never from the system.
  listing="$("${loader_path}" --library-path "$libs" --list "$prefix/usr/bin/valkey-server")"
  if echo "$listing" | grep -q 'not found' || echo "$listing" | grep '=>' | grep -v "=> $prefix/" | grep -q .; then
    echo "install-valkey.sh: valkey-server $want resolves libraries outside $prefix:" >&2
    echo "$listing" >&2
    exit 1
  fi
}

mkdir -p "$cache"
# One installer at a time per cache (CI, a sibling checkout and a developer may race).
exec 9>"$cache/.lock"
flock 9
if ! is_installed; then
  install
  is_installed || { echo "install-valkey.sh: $prefix/bin/valkey-server does not answer $want after the install" >&2; exit 1; }
  "$prefix/bin/valkey-server" --version >&2
fi
if [ "$print_path" = 1 ]; then echo "$prefix/bin"; fi

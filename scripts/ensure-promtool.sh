#!/usr/bin/env bash
# Installs `promtool`, the linter the metrics test runs on every service's /metrics, from Debian's
# `prometheus` package when it is missing. That package also ships the Prometheus server: the install must
# neither start it nor enable it at boot, since only promtool is wanted.
set -euo pipefail
command -v promtool >/dev/null && exit 0
# shellcheck source=../infra/local/lib/common.sh
source "$(dirname "$0")/../infra/local/lib/common.sh"
init_data_dir
sudo=()
if ! is_root; then
  { command -v sudo >/dev/null && sudo -n true 2>/dev/null; } ||
    die "promtool: need root (or passwordless sudo) to apt-get install prometheus"
  sudo=(sudo -n)
fi
# The package's scripts start the server through invoke-rc.d or deb-systemd-invoke, and both ask policy-rc.d
# first: one that refuses every action keeps it stopped. A policy-rc.d already in place is the machine's own
# and stays as it is.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod 755 "$policy"
  trap '"${sudo[@]}" rm -f "$policy"' EXIT
fi
need_pkg promtool prometheus command -v promtool
apt_install_queued
# Undo the boot-time start the package enables (update-rc.d passes this on to systemd where it runs).
"${sudo[@]}" update-rc.d prometheus disable >/dev/null 2>&1 || true
command -v promtool >/dev/null || die "promtool: not found after installing prometheus"

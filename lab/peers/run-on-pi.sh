#!/usr/bin/env bash
# Run a lab command on a chosen Pi version under Node 22, e.g.
#   lab/peers/run-on-pi.sh 0.87.1 lab/run-lab.ts --preset full --arms native,fold,extension:/tmp/peer/extensions/index.js
#   lab/peers/run-on-pi.sh 0.87.1 bin/pi-fold.ts replay session.jsonl --arms native,fold,extension:/tmp/peer/extensions/index.js
# Installs Node 22 and that Pi into the cache folder first if needed (lab/peers/install-pi-host.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
version="${1:?usage: run-on-pi.sh <pi version> <script.ts> [arguments…]}"
shift
read -r node22 pi_home < <(lab/peers/install-pi-host.sh "$version" | tail -1)
PI_FOLD_PI_HOST="$pi_home" exec "$node22" --import tsx --import ./lab/peers/use-pi-host.mjs "$@"

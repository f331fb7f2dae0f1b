#!/usr/bin/env bash
# Consumer checks: what a user of the published package meets. Packs pi-fold (or takes
# $PI_FOLD_TARBALL), installs the tarball into a fresh temporary project, then
#   (a) a plain `node` ESM script: a generateText tool loop with MockLanguageModelV3 that folds
#       and peeks exact bytes back (.ci/consumer/plain-node.mjs); and require('pi-fold') from CommonJS;
#   (b) a TypeScript consumer, strict default tsconfig, skipLibCheck off: `tsc --noEmit` passes,
#       and a deliberate type error is caught (.ci/consumer/ts/);
#   (c) `npx pi-fold --help`, `verify`, `gc --dry-run` and `view` on the store (a) made, with no Pi installed;
#   (d) `pi install` of the tarball (npm source; Pi 0.x puts it in a scratch `npm -g` prefix,
#       Pi 1.x in the Pi home's npm folder) and of the unpacked package directory into scratch Pi homes, then an offline `pi -p` (scripted provider) whose tools include pi_fold_context.
# Usage: .ci/consumer-checks.sh <label> <Pi's cli.js> <ai version>   (the `node` on PATH runs all)
# Prints one summary line per check; exits non-zero when any check fails.
set -uo pipefail
cd "$(dirname "$0")/.."
label="$1"; pi_cli="$(realpath "$2")"; ai_version="$3"
checkout="$(pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/pi-fold-consumer-XXXXXX")"
trap 'rm -rf "$work"' EXIT
started_all=$(date +%s)
failures=0
summary=()

# check <name> <command…>: runs it with output to a log (shown when it fails), records PASS/FAIL
# with its last output line.
check() {
  local name="$1"; shift
  local log="$work/check-${#summary[@]}.log" started=$(date +%s)
  if ( "$@" ) >"$log" 2>&1; then
    summary+=("PASS ${name} ($(( $(date +%s) - started ))s): $(tail -n 1 "$log" | cut -c1-170)")
  else
    failures=$((failures + 1))
    summary+=("FAIL ${name} ($(( $(date +%s) - started ))s): $(tail -n 1 "$log" | cut -c1-170)")
    echo "---- FAIL ${name}; its output:"; tail -n 40 "$log"; echo "----"
  fi
}

tarball="${PI_FOLD_TARBALL:-}"
if [[ -z "$tarball" ]]; then
  echo "== consumer[$label]: npm pack (prepack builds dist/)"
  tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
fi
echo "== consumer[$label]: node $(node --version), $(basename "$tarball"): $(du -k "$tarball" | cut -f1) KiB, $(tar tzf "$tarball" | wc -l) files"

project="$work/project"
mkdir -p "$project"
cp -r .ci/consumer/. "$project/"
printf '{ "name": "pi-fold-consumer", "private": true, "type": "module" }\n' >"$project/package.json"
store="$work/store"

install_tarball() {
  (cd "$project" && npm install --no-audit --no-fund --loglevel=error "$tarball" "ai@$ai_version" zod@4.6.7 typescript@5.9.3 @types/node@22.19.1) || return 1
  echo "pi-fold, ai@$ai_version, zod, typescript and @types/node installed into a fresh project"
}

plain_node() {
  cd "$project" || return 1
  # CommonJS callers get the same ES modules through the `default` condition (require(esm), Node ≥ 20.19).
  node --input-type=commonjs -e "const { FoldError } = require('pi-fold'); if (typeof FoldError !== 'function') process.exit(1)" || { echo "require('pi-fold') failed"; return 1; }
  node plain-node.mjs "$store"
}

typescript_consumer() {
  local tsc="$project/node_modules/typescript/bin/tsc" out
  cd "$project/ts" || return 1
  node "$tsc" --noEmit -p tsconfig.json || { echo "tsc rejected consumer.ts"; return 1; }
  # The AI SDK consumer: ai's own .d.ts files do not type-check under exactOptionalPropertyTypes
  # with skipLibCheck off; only errors in this project's file or in pi-fold's count.
  out="$(node "$tsc" --noEmit -p tsconfig.ai.json 2>&1)"
  local ours third_party
  ours="$(grep -E 'error TS' <<<"$out" | grep -vE '^\.\./node_modules/(ai|@ai-sdk)/' || true)"
  third_party="$(grep -cE '^\.\./node_modules/(ai|@ai-sdk)/.*error TS' <<<"$out" || true)"
  [[ -z "$ours" ]] || { echo "$ours"; echo "errors in ai-consumer.ts or pi-fold's declarations"; return 1; }
  # The deliberate error: tsc must fail, on broken.ts line 4 alone.
  out="$(node "$tsc" --noEmit -p tsconfig.broken.json 2>&1)" && { echo "tsc accepted broken.ts"; return 1; }
  grep -qE '^broken\.ts\(4,[0-9]+\): error TS2322' <<<"$out" || { echo "$out"; echo "broken.ts failed, but not with TS2322 at line 4"; return 1; }
  [[ "$(grep -c 'error TS' <<<"$out")" -eq 1 ]] || { echo "$out"; echo "more errors than the deliberate one"; return 1; }
  echo "consumer.ts passes (skipLibCheck off, exactOptionalPropertyTypes on); ai-consumer.ts: 0 errors from pi-fold ($third_party inside ai's own .d.ts); broken.ts rejected with TS2322"
}

cli_without_pi() {
  cd "$project" || return 1
  if node -e "import('@mariozechner/pi-coding-agent').then(() => process.exit(0), () => process.exit(1))"; then echo "Pi is installed in the consumer project"; return 1; fi
  npx --no-install pi-fold --help >"$work/help.txt" || { cat "$work/help.txt"; return 1; }
  grep -q '^usage: pi-fold <command>' "$work/help.txt" || { echo "--help printed no usage"; return 1; }
  local version; version="$(npx --no-install pi-fold --version)" || return 1
  npx --no-install pi-fold verify "$store" || return 1
  npx --no-install pi-fold gc "$store" --dry-run || return 1
  npx --no-install pi-fold view "$store" --out "$work/view.html" || return 1
  grep -q '<circle class="point' "$work/view.html" || { echo "pi-fold view wrote no request point"; return 1; }
  npx --no-install pi-fold replay "$store/none.jsonl" 2>"$work/replay.txt"; local status=$?
  [[ $status -eq 3 ]] && grep -q 'npm install' "$work/replay.txt" || { cat "$work/replay.txt"; echo "replay without Pi exited $status, not 3 with the install line"; return 1; }
  echo "pi-fold $version: --help, verify, gc --dry-run and view ran on the store with no Pi installed; replay exits 3 naming what to install"
}

# pi_run <pi home> <cwd>: an offline `pi -p` with the scripted provider; it calls pi_fold_context status.
pi_run() {
  local out
  out="$(cd "$2" && PI_CODING_AGENT_DIR="$1" PI_FOLD_CONFIG_DIR="$1/pi-fold-config" node "$pi_cli" -p --provider scripted --model s1 -e "$checkout/tests/pi/support/scripted-provider-extension.ts" hello </dev/null 2>&1)"
  grep -q 'pi-fold says: budget [0-9]* tokens' <<<"$out" || { echo "$out" | tail -n 20; echo "pi -p did not get an answer from pi_fold_context"; return 1; }
  grep -m1 'pi-fold says' <<<"$out" | cut -c1-120
}

pi_install_tarball() {
  local home="$work/pi-home-npm" cwd="$work/pi-cwd-npm"
  mkdir -p "$home" "$cwd"
  # Pi's global npm installs go to `npm install -g`: keep them in a scratch prefix.
  (cd "$cwd" && PI_CODING_AGENT_DIR="$home" npm_config_prefix="$work/npm-global" node "$pi_cli" install "npm:pi-fold@file:$tarball" </dev/null) || return 1
  # Pi 0.x runs `npm install -g` (here: the scratch prefix); Pi 1.x installs into <Pi home>/npm.
  local landed
  for landed in "$work/npm-global/lib/node_modules/pi-fold" "$home/npm/node_modules/pi-fold" ""; do
    [[ -n "$landed" && -f "$landed/dist/pi-extension/pi-fold.js" ]] && break
  done
  [[ -n "$landed" ]] || { echo "the package landed neither in the scratch npm prefix nor in the Pi home's npm folder"; return 1; }
  echo "installed into ${landed#"$work"/}"
  npm_config_prefix="$work/npm-global" pi_run "$home" "$cwd"
}

pi_install_unpacked() {
  local home="$work/pi-home-dir" cwd="$work/pi-cwd-dir" unpacked="$work/unpacked"
  mkdir -p "$home" "$cwd" "$unpacked"
  tar xzf "$tarball" -C "$unpacked" || return 1
  [[ ! -e "$unpacked/package/node_modules" ]] || return 1
  (cd "$cwd" && PI_CODING_AGENT_DIR="$home" node "$pi_cli" install "$unpacked/package" </dev/null) || return 1
  pi_run "$home" "$cwd"
}

check "install the tarball into a fresh project" install_tarball
check "(a) plain node ESM: generateText tool loop folds, peek returns exact bytes" plain_node
check "(b) TypeScript consumer, strict default tsconfig, skipLibCheck off" typescript_consumer
check "(c) npx pi-fold --help, verify, gc --dry-run without Pi" cli_without_pi
check "(d) pi install npm:pi-fold@file:<tarball>, then offline pi -p" pi_install_tarball
check "(d) pi install <unpacked package dir>, then offline pi -p" pi_install_unpacked

echo "== consumer[$label] summary ($(( $(date +%s) - started_all ))s):"
for line in "${summary[@]}"; do echo "   $line"; done
[[ $failures -eq 0 ]] || { echo "== consumer[$label]: $failures check(s) failed"; exit 1; }
echo "== consumer[$label]: all checks passed"

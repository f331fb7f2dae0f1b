#!/usr/bin/env bash
# Consumer checks: what a user of the published package meets. Packs pi-fold (or takes
# $PI_FOLD_TARBALL), installs the tarball into a fresh temporary project, then
#   (a) a plain `node` ESM script: a generateText tool loop with MockLanguageModelV3 that folds
#       and peeks exact bytes back (.ci/consumer/plain-node.mjs); and require('pi-fold') from CommonJS;
#   (b) a TypeScript consumer, strict default tsconfig, skipLibCheck off: `tsc --noEmit` passes,
#       and a deliberate type error is caught (.ci/consumer/ts/);
#   (b2) after (c) and (d), with this Pi line linked into the project: a strict consumer of pi-fold/pi (.ci/consumer/ts/pi-consumer.ts);
#   (c) `npx pi-fold --help`, `verify`, `gc --dry-run` and `view` on the store (a) made, with no Pi installed;
#   (d) the stable install forms of docs/install.md, each into a scratch Pi home: `npm install
#       --prefix <folder> <tarball>` then `pi install <folder>/node_modules/pi-fold`, and `pi install`
#       of the unpacked tarball; then `pi -p` (scripted provider, no network) online, with
#       `--offline` and with PI_OFFLINE=1: the extension must load each time (pi_fold_context
#       answers, the session's pi-fold/ folder exists) and no start may run `npm install`.
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
  node --input-type=module -e "import('pi-fold/pi').then(() => process.exit(1), (e) => { console.log(e.message); process.exit(e.code === 'HOST.PACKAGE_MISSING' && e.message.includes('typebox') ? 0 : 1); })" >"$work/pi-import.txt" \
    || { cat "$work/pi-import.txt"; echo "import('pi-fold/pi') without Pi did not fail with HOST.PACKAGE_MISSING naming typebox"; return 1; }
  npx --no-install pi-fold replay "$store/none.jsonl" 2>"$work/replay.txt"; local status=$?
  [[ $status -eq 3 ]] && grep -q 'npm install' "$work/replay.txt" || { cat "$work/replay.txt"; echo "replay without Pi exited $status, not 3 with the install line"; return 1; }
  echo "pi-fold $version: --help, verify, gc --dry-run and view ran on the store with no Pi installed; replay exits 3 naming what to install; import('pi-fold/pi') is refused naming typebox"
}

# Every Pi start below runs with an `npm` first on PATH that logs its arguments, then runs the
# real npm: a start that calls `npm install` is not a stable install (Pi 0.x does so at every
# start for an `npm:<name>@file:<tgz>` source, and with offline mode on loads nothing instead).
real_npm="$(command -v npm)"
npm_shim="$work/npm-shim"
mkdir -p "$npm_shim"
printf '#!/usr/bin/env bash\nprintf "%%s\\n" "$*" >>"$PI_FOLD_NPM_LOG"\nexec %q "$@"\n' "$real_npm" >"$npm_shim/npm"
chmod +x "$npm_shim/npm"

# pi_run <pi home> <cwd> [pi option…]: `pi -p` with the scripted provider (no network); it calls
# pi_fold_context status. The extension loaded when the tool answers and the session's pi-fold/
# store folder exists; the start must not have run `npm install`.
pi_run() {
  local home="$1" cwd="$2" out log="$work/npm-calls-$RANDOM.log"; shift 2
  : >"$log"
  out="$(cd "$cwd" && PATH="$npm_shim:$PATH" PI_FOLD_NPM_LOG="$log" PI_CODING_AGENT_DIR="$home" PI_FOLD_CONFIG_DIR="$home/pi-fold-config" node "$pi_cli" "$@" -p --provider scripted --model s1 -e "$checkout/tests/pi/support/scripted-provider-extension.ts" hello </dev/null 2>&1)"
  grep -q 'pi-fold says: budget [0-9]* tokens' <<<"$out" || { echo "$out" | tail -n 20; echo "pi $* -p: the extension did not load (no answer from pi_fold_context)"; return 1; }
  [[ -n "$(find "$home/sessions" -type d -name pi-fold 2>/dev/null)" ]] || { echo "pi $* -p: no pi-fold/ store folder under $home/sessions"; return 1; }
  ! grep -q '^install' "$log" || { cat "$log"; echo "pi $* -p ran npm install at start"; return 1; }
  echo "pi ${*:-(online)} -p: $(grep -m1 'pi-fold says' <<<"$out" | cut -c1-80)"
}

# pi_runs <pi home> <cwd>: a first start, then two starts in offline mode (the flag, then the
# variable), each in a fresh session.
pi_runs() {
  local home="$1" cwd="$2"
  pi_run "$home" "$cwd" || return 1
  rm -rf "$home/sessions"
  pi_run "$home" "$cwd" --offline || return 1
  rm -rf "$home/sessions"
  PI_OFFLINE=1 pi_run "$home" "$cwd" || return 1
  echo "loaded online, with --offline and with PI_OFFLINE=1; no start ran npm install"
}

# The form docs/install.md gives first: npm installs the tarball into a folder of its own, and
# Pi loads the package from there in place (a local source: no npm at any start).
pi_install_npm_folder() {
  local home="$work/pi-home-npm" cwd="$work/pi-cwd-npm" folder="$work/pi-fold-install"
  mkdir -p "$home" "$cwd"
  npm install --prefix "$folder" --no-audit --no-fund --loglevel=error "$tarball" || return 1
  [[ -x "$folder/node_modules/.bin/pi-fold" ]] || { echo "npm installed no pi-fold command into the folder"; return 1; }
  (cd "$cwd" && PI_CODING_AGENT_DIR="$home" node "$pi_cli" install "$folder/node_modules/pi-fold" </dev/null) || return 1
  grep -q 'pi-fold-install/node_modules/pi-fold' "$home/settings.json" || { cat "$home/settings.json"; echo "settings.json does not name the folder"; return 1; }
  pi_runs "$home" "$cwd"
}

# Without npm at all: the unpacked tarball (the extension is one self-contained file).
pi_install_unpacked() {
  local home="$work/pi-home-dir" cwd="$work/pi-cwd-dir" unpacked="$work/unpacked"
  mkdir -p "$home" "$cwd" "$unpacked"
  tar xzf "$tarball" -C "$unpacked" || return 1
  [[ ! -e "$unpacked/package/node_modules" ]] || return 1
  (cd "$cwd" && PI_CODING_AGENT_DIR="$home" node "$pi_cli" install "$unpacked/package" </dev/null) || return 1
  pi_runs "$home" "$cwd"
}

# The Pi line pi_cli belongs to, linked into the project as an npm install would place it (its
# four packages and typebox): then a strict consumer of pi-fold/pi must type-check against it.
typescript_pi_consumer() {
  local package_dir out ours scope host_modules name
  package_dir="$(dirname "$pi_cli")"
  until [[ -f "$package_dir/package.json" && "$(basename "$package_dir")" == pi-coding-agent ]]; do package_dir="$(dirname "$package_dir")"; [[ "$package_dir" != / ]] || return 1; done
  scope="$(basename "$(dirname "$package_dir")")"; host_modules="$(dirname "$(dirname "$package_dir")")"
  mkdir -p "$project/node_modules/$scope"
  for name in pi-agent-core pi-ai pi-coding-agent pi-tui; do ln -sfn "$host_modules/$scope/$name" "$project/node_modules/$scope/$name" || return 1; done
  [[ -e "$project/node_modules/typebox" ]] || ln -sfn "$host_modules/typebox" "$project/node_modules/typebox" || return 1
  cd "$project/ts" || return 1
  # Pi's own .d.ts files are not all clean under this tsconfig; only errors in this project's
  # file or in pi-fold's declarations count.
  out="$(node "$project/node_modules/typescript/bin/tsc" --noEmit -p tsconfig.pi.json 2>&1)"
  ours="$(grep -E 'error TS' <<<"$out" | grep -E '^(pi-consumer\.ts|\.\./node_modules/pi-fold/)' || true)"
  [[ -z "$ours" ]] || { echo "$ours"; echo "errors in pi-consumer.ts or pi-fold's declarations against $scope"; return 1; }
  echo "pi-consumer.ts type-checks against $scope/pi-coding-agent $(node -p "require('$package_dir/package.json').version") (skipLibCheck off); $(grep -c 'error TS' <<<"$out") error(s) inside Pi's own .d.ts"
}

# docs/install.md states the tarball's packed size, unpacked size and file count; each must be
# within 10% of this tarball's.
documented_figures() {
  node --input-type=module - "$checkout/docs/install.md" "$tarball" <<'NODE' || return 1
import { readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
const [docs, tarball] = process.argv.slice(2);
const match = /Measured for [^:]*:\s+([\d.]+) kB packed,\s+([\d.]+) MB unpacked, (\d+) files/.exec(readFileSync(docs, 'utf8'));
if (!match) { console.log('docs/install.md states no "… kB packed, … MB unpacked, … files" figures'); process.exit(1); }
const listing = execFileSync('tar', ['tvzf', tarball], { encoding: 'utf8', maxBuffer: 1 << 26 }).split('\n').filter((line) => line.startsWith('-'));
const actual = { packed: statSync(tarball).size / 1000, unpacked: listing.reduce((sum, line) => sum + Number(line.split(/\s+/)[2]), 0) / 1e6, files: listing.length };
const documented = { packed: Number(match[1]), unpacked: Number(match[2]), files: Number(match[3]) };
const drift = Object.keys(actual).filter((key) => Math.abs(actual[key] - documented[key]) > 0.1 * documented[key]);
const text = (figures) => `${figures.packed.toFixed(0)} kB packed, ${figures.unpacked.toFixed(2)} MB unpacked, ${figures.files} files`;
if (drift.length > 0) { console.log(`docs/install.md says ${text(documented)}; the tarball has ${text(actual)} (${drift.join(', ')} off by more than 10%)`); process.exit(1); }
console.log(`the tarball (${text(actual)}) is within 10% of docs/install.md (${text(documented)})`);
NODE
}

check "(e) tarball size and file count match docs/install.md within 10%" documented_figures
check "install the tarball into a fresh project" install_tarball
check "(a) plain node ESM: generateText tool loop folds, peek returns exact bytes" plain_node
check "(b) TypeScript consumer, strict default tsconfig, skipLibCheck off" typescript_consumer
check "(c) npx pi-fold --help, verify, gc --dry-run without Pi" cli_without_pi
check "(d) npm install --prefix <folder> <tarball>; pi install <folder>/node_modules/pi-fold; pi -p, --offline, PI_OFFLINE=1" pi_install_npm_folder
check "(d) pi install <unpacked package dir>; pi -p, --offline, PI_OFFLINE=1" pi_install_unpacked
check "(b2) TypeScript consumer of pi-fold/pi against this Pi line, skipLibCheck off" typescript_pi_consumer

echo "== consumer[$label] summary ($(( $(date +%s) - started_all ))s):"
for line in "${summary[@]}"; do echo "   $line"; done
[[ $failures -eq 0 ]] || { echo "== consumer[$label]: $failures check(s) failed"; exit 1; }
echo "== consumer[$label]: all checks passed"

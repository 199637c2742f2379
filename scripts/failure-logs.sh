#!/usr/bin/env bash
# Regenerates the real tool output behind test/unit/context/failure-golden.test.ts: runs each tool on
# its small fixture in test/golden/failures/fixtures/ (copied to a temp dir, so caches and build
# output stay out of the repository), replaces the temp dir with /ROOT, and writes
# test/golden/failures/logs/<case>.log. A tool that is not installed is skipped with a note (its old
# log stays). Then `UPDATE_GOLDEN=1 npx vitest run test/unit/context/failure-golden.test.ts`
# rewrites the .golden.json files; review the diff.
#
# Tools: python3 with pytest; mypy (Debian `apt-get install mypy`, run as /usr/bin/mypy); pyright, jest, mocha from npm (JS_TOOLS: a node_modules/.bin holding
# them, e.g. `npm install --prefix /tmp/failgen jest@29 mocha@10 pyright` → /tmp/failgen/node_modules/.bin);
# vitest, tsc, eslint from this repository's node_modules; cargo/rustc, go, javac/java when present.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC="$HERE/test/golden/failures/fixtures"
OUT="$HERE/test/golden/failures/logs"
BIN="$HERE/node_modules/.bin"
JS_TOOLS=${JS_TOOLS:-/tmp/failgen/node_modules/.bin}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SRC"/. "$WORK"
mkdir -p "$OUT"

# capture NAME DIR CMD...: runs CMD in WORK/DIR, stdout+stderr, temp path → /ROOT, colours off
capture() {
  local name=$1 dir=$2
  shift 2
  if ! command -v "$1" >/dev/null 2>&1; then echo "skip $name: $1 not installed" >&2; return; fi
  (cd "$WORK/$dir" && NO_COLOR=1 FORCE_COLOR=0 CI=1 "$@" 2>&1) | sed -e "s#$WORK#/ROOT#g" -e "s#$HOME#/HOME#g" >"$OUT/$name.log"
  echo "wrote $name.log" >&2
}

capture pytest python python3 -m pytest -p no:cacheprovider test_calc.py
capture pytest-short python python3 -m pytest -p no:cacheprovider --tb=short -q test_calc.py
capture unittest python python3 -m unittest unit_calc
capture python-traceback python python3 crash.py
capture pyright python "$JS_TOOLS/pyright" typed.py
capture mypy python mypy --no-incremental --no-error-summary --show-column-numbers typed.py
capture jest js "$JS_TOOLS/jest" --ci --rootDir . math.test.js
capture node-stack js node crash.js
capture mocha mocha "$JS_TOOLS/mocha" math.spec.js
capture vitest vitest "$BIN/vitest" run --root . math.spec.ts
capture tsc ts "$BIN/tsc" -p tsconfig.json --pretty false
capture tsc-pretty ts "$BIN/tsc" -p tsconfig.json --pretty true
capture eslint eslint "$BIN/eslint" --no-color bad.js
capture cargo-test rust cargo test --offline --quiet
capture rustc rustc rustc --edition 2021 --color never -o /dev/null bad.rs
capture go-test go go test ./...
capture java java sh -c 'javac -d out com/example/Crash.java && java -cp out com.example.Crash'
capture go-panic gopanic go run main.go

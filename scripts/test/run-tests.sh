#!/usr/bin/env bash
# The README's test command: prepares the machine (Debian packages, PostgreSQL) when something is
# missing, then runs every test. Extra arguments go to `node --test` (e.g. a file list).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(bash scripts/test/prepare-machine.sh | tail -n 1)
  [ -n "$TEST_DATABASE_URL" ] && export TEST_DATABASE_URL || unset TEST_DATABASE_URL
else
  bash scripts/test/prepare-machine.sh >/dev/null
fi

# The real-engine tests (test/engines) run llama.cpp's llama-server: built once per machine and
# cached (the first build takes 15-30 min on 2 cores). Without it they are skipped, except in CI
# (CI or REQUIRE_REAL_ENGINE=1), where they fail.
if [ -z "${LLAMA_SERVER_BIN:-}" ]; then
  LLAMA_SERVER_BIN=$(bash scripts/test/build-llama-server.sh | tail -n 1) || {
    echo "Building llama-server failed (see above): the real-engine tests cannot run." >&2
    LLAMA_SERVER_BIN=""
  }
fi
if [ -n "$LLAMA_SERVER_BIN" ]; then export LLAMA_SERVER_BIN; else unset LLAMA_SERVER_BIN; fi

if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find test -name '*.test.ts' | sort); fi
exec node --import tsx --test --test-concurrency=2 "${files[@]}"

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

if [ "$#" -gt 0 ]; then files=("$@"); else mapfile -t files < <(find test -name '*.test.ts' | sort); fi
exec node --import tsx --test --test-concurrency=2 "${files[@]}"

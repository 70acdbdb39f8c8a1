#!/usr/bin/env bash
# Makes a bare Debian machine able to run every test: the Debian packages the tests use, and a
# PostgreSQL server with a role that may create the per-test databases. Safe to run again: it
# installs only what is missing and starts only what is stopped. Prints the TEST_DATABASE_URL to
# use on its last line (empty when PostgreSQL could not be prepared; those tests then skip).
set -euo pipefail

packages=(postgresql redis-server chromium ffmpeg espeak-ng fonts-dejavu-core fonts-wqy-microhei tesseract-ocr python3 make g++ cmake git)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for package in "${packages[@]}"; do installed "$package" || missing+=("$package"); done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing the Debian packages the tests use: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! { as_root apt-get update -q >&2 && as_root apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }; then
    echo "Could not install ${missing[*]} (needs root or sudo): tests that use them will fail or skip." >&2
  fi
fi

# PostgreSQL from Debian, on 127.0.0.1 only. The role may signal other backends: DROP DATABASE
# ... WITH (FORCE) must end an autovacuum worker that is busy in a test's database. psql runs as
# postgres from /, since the checkout may lie where that user cannot enter (a copy under ~/.cache
# for another Node.js version).
url=postgres://platform_ci:platform_ci@127.0.0.1:5432/postgres
if command -v pg_lsclusters >/dev/null 2>&1 && [ -d /usr/lib/postgresql ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  if { pg_lsclusters -h | grep -q "^${version} main" || as_root pg_createcluster "$version" main >&2; } &&
     { pg_lsclusters -h | grep -q "^${version} main .* online" || as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2; } &&
     (cd / && as_root runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -c "
       DO \$\$ BEGIN
         IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'platform_ci') THEN
           CREATE ROLE platform_ci LOGIN CREATEDB PASSWORD 'platform_ci';
         END IF;
       END \$\$;
       GRANT pg_signal_backend TO platform_ci;" >&2); then
    echo "$url"
    exit 0
  fi
  echo "Could not prepare PostgreSQL: its storage tests are skipped." >&2
fi
echo ""

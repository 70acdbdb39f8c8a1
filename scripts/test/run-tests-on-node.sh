#!/usr/bin/env bash
# Runs the test suite (scripts/test/run-tests.sh, same arguments after the first) under another
# Node.js release line, e.g. `run-tests-on-node.sh 24` (or RUN_INSTEAD's command, see the end): CI runs it after the suite on the
# machine's own Node.js. The binary comes from the npm registry (fetch-node.sh). Native modules
# compiled at install time against V8's ABI (better-sqlite3) do not load on another major version,
# so the suite runs in a copy of this checkout whose files are hard links to these (no data is
# copied) except for those modules, which are copied and rebuilt for that Node.js against its
# headers. The checkout itself is never changed: the machine's Node.js keeps working with it while
# this runs. Rebuilt modules are cached per ABI and module version (~60 s to compile each).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

major=${1:?usage: run-tests-on-node.sh <major version, e.g. 24> [test files…]}
shift
node_home=$(bash scripts/test/fetch-node.sh "$major" | tail -n 1)
if [ -z "$node_home" ]; then echo "No Node.js $major: the suite cannot run on it." >&2; exit 1; fi
node_bin="$node_home/bin"
abi=$("$node_bin/node" -p 'process.versions.modules')
# The headers native modules are compiled against: every release of a major version has the same
# ABI, so any of them will do. Node 24.19.0 changed node::ObjectWrap, which is compiled into the
# module from the headers, to register an environment cleanup hook that aborts the process when a
# wrapped object is garbage-collected outside a JavaScript context (nodejs/node#65446):
# better-sqlite3 12 compiled against those headers aborts in its Statement destructor. Compiled
# against 24.18.1's it runs on every 24.x. The Dockerfile compiles against the same headers.
# NODE_ADDON_HEADERS names another version; empty: the runtime's own.
case "$major" in
  24) headers_version=${NODE_ADDON_HEADERS-24.18.1} ;;
  *) headers_version=${NODE_ADDON_HEADERS-} ;;
esac
headers_home=$node_home
if [ -n "$headers_version" ]; then
  headers_home=$(bash scripts/test/fetch-node.sh "$headers_version" | tail -n 1)
  if [ -z "$headers_home" ]; then echo "No Node.js $headers_version headers to compile native modules with." >&2; exit 1; fi
fi
headers=$(basename "$headers_home")
echo "Running ${RUN_INSTEAD:-the tests} on Node.js $("$node_bin/node" -v) (ABI $abi); native modules compiled against the headers of ${headers#node-}." >&2

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/model-platform"
mkdir -p "$cache_root"
# Hard links need the same file system; elsewhere (a clone on another disk) the copy is a real one.
work=$(mktemp -d "$cache_root/checkout-node$major.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Interrupted, it still removes the copy (bash runs the EXIT trap on exit, not on a fatal signal).
trap 'exit 130' INT
trap 'exit 143' TERM
for entry in "$root"/* "$root"/.[!.]*; do
  [ -e "$entry" ] || continue
  case "$(basename "$entry")" in .git | .tmp | data) continue ;; esac
  cp -al "$entry" "$work/" 2>/dev/null || cp -a "$entry" "$work/"
done

# The packages node-gyp compiled at install time (a build/Release/*.node of their own). Packages
# that ship prebuilt Node-API binaries (@napi-rs/canvas, onnxruntime-node, node-llama-cpp) load on
# every version and keep their links.
mapfile -t compiled < <(cd "$work" && find node_modules -path '*/build/Release/*.node' -not -path '*/obj.target/*' -printf '%h\n' | sed 's#/build/Release$##' | sort -u)
for package_dir in "${compiled[@]}"; do
  name=$(cd "$work/$package_dir" && "$node_bin/node" -p 'const p = require("./package.json"); `${p.name}@${p.version}`')
  built="$cache_root/native-abi$abi-$(uname -m)-${headers#node-}/${name//\//+}"
  # A real copy: the build writes into the package folder, and through a hard link it would
  # overwrite the machine's own Node.js build of it.
  rm -rf "${work:?}/$package_dir"
  cp -a "$root/$package_dir" "$work/$package_dir"
  if [ -d "$built/Release" ]; then
    rm -rf "$work/$package_dir/build/Release"
    mkdir -p "$work/$package_dir/build"
    cp -a "$built/Release" "$work/$package_dir/build/Release"
    continue
  fi
  echo "Building $name for Node.js $major (once per machine)…" >&2
  (
    cd "$work/$package_dir"
    rm -rf build
    # npm's own node-gyp (the one npm runs install scripts with), run by the target Node.js,
    # against the headers chosen above.
    node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
    # Run by npm, node-gyp also reads npm's nodedir setting from the environment, and that one
    # wins over --nodedir: a machine whose npmrc names its own Node.js headers (nodedir=/usr)
    # would otherwise build the module for the machine's Node.js again.
    unset npm_config_nodedir NPM_CONFIG_NODEDIR
    PATH="$node_bin:$PATH" "$node_bin/node" "$node_gyp" rebuild --release --nodedir="$headers_home" >&2
  )
  rm -rf "$built.partial"
  mkdir -p "$built.partial"
  cp -a "$work/$package_dir/build/Release" "$built.partial/Release"
  rm -rf "$built"
  mv "$built.partial" "$built"
done

# The target Node.js first on PATH: the runner, and every process a test spawns with
# process.execPath or `node`, run on it. RUN_INSTEAD="npm run bench:chat" runs that command in
# the copy instead of the suite: a benchmark on that Node.js.
cd "$work"
if [ -n "${RUN_INSTEAD:-}" ]; then
  PATH="$node_bin:$PATH" bash -c "$RUN_INSTEAD"
else
  PATH="$node_bin:$PATH" bash scripts/test/run-tests.sh "$@"
fi

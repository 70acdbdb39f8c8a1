#!/usr/bin/env bash
# Brings a Node.js release line (the first argument, e.g. 24) from the npm registry, whose
# `node-linux-<arch>` package carries the official binary with its headers (include/node, what
# node-gyp builds native modules against). Cached outside the clone, one folder per version, so
# later runs on the same machine reuse it; with the registry unreachable, the newest cached
# version of that line is used. Prints the folder (bin/node, include/node) on its last line;
# prints nothing there when no binary can be had.
set -euo pipefail

# A major version (24) gives its newest release; a full version (24.18.1), that release.
major=${1:?usage: fetch-node.sh <version, e.g. 24 or 24.18.1>}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "No npm package carries Node.js for $(uname -m)." >&2; echo ""; exit 0 ;;
esac
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/model-platform"
mkdir -p "$cache_root"

newest_cached() {
  find "$cache_root" -maxdepth 1 -type d \( -name "node-v$major" -o -name "node-v$major.*" \) ! -name '*.partial' -printf '%f\n' | sed 's/^node-v//' | sort -V | tail -n 1
}

# `npm view pkg@24 version --json` lists every matching version (a plain string when only one does).
version=$(npm view "node-linux-$arch@$major" version --json 2>/dev/null |
  node -e 'let text = ""; process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
    const versions = [].concat(JSON.parse(text || "[]"));
    const key = (v) => v.split(".").map(Number);
    versions.sort((a, b) => { const [x, y] = [key(a), key(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
    console.log(versions.at(-1) ?? "");
  });' 2>/dev/null) || version=""
if [ -z "$version" ]; then
  version=$(newest_cached)
  if [ -z "$version" ]; then echo "Cannot reach the npm registry for node-linux-$arch@$major, and none is cached." >&2; echo ""; exit 0; fi
  echo "The npm registry did not answer: using the cached Node.js $version." >&2
fi

home="$cache_root/node-v$version"
if [ -x "$home/bin/node" ]; then echo "$home"; exit 0; fi

# One download at a time per machine: a second run waits for the first, then finds its folder.
exec 9>"$home.lock"
flock 9
if [ -x "$home/bin/node" ]; then echo "$home"; exit 0; fi

echo "Fetching Node.js $version (node-linux-$arch from the npm registry) into $home…" >&2
rm -rf "$home.partial"
mkdir -p "$home.partial"
tarball=$(cd "$home.partial" && npm pack "node-linux-$arch@$version" --silent | tail -n 1)
tar -xzf "$home.partial/$tarball" -C "$home.partial" --strip-components=1
rm -f "$home.partial/$tarball"
if ! "$home.partial/bin/node" -e 'process.exit(process.versions.node === process.argv[1] ? 0 : 1)' "$version"; then
  echo "The downloaded Node.js $version does not run here." >&2; echo ""; exit 0
fi
rm -rf "$home"
mv "$home.partial" "$home"
echo "$home"

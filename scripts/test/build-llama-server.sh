#!/usr/bin/env bash
# Builds llama.cpp's `llama-server` (CPU) from the source node-llama-cpp ships, for the tests that
# run the platform against a real engine. The build (~12 min on 2 cores) is cached outside the
# clone, keyed by the llama.cpp commit, so later runs on the same machine reuse it. Prints the
# binary's path on its last line; prints nothing there when it cannot be built.
set -euo pipefail
cd "$(dirname "$0")/../.."

bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
if [ ! -f "$bundle" ]; then echo "No llama.cpp source bundle ($bundle): run npm ci first." >&2; echo ""; exit 0; fi
commit=$(git bundle list-heads "$bundle" | head -n 1 | cut -c1-12)
cache="${LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/model-platform/llama-server-$commit}"
binary="$cache/build/bin/llama-server"
if [ -x "$binary" ]; then echo "$binary"; exit 0; fi
if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
  echo "cmake and g++ are needed to build llama-server." >&2; echo ""; exit 0
fi

mkdir -p "$(dirname "$cache")"
# One build at a time per machine: a second run (two test runs at once) waits for the first, then
# finds its binary.
exec 9>"$cache.lock"
flock 9
if [ -x "$binary" ]; then echo "$binary"; exit 0; fi

echo "Building llama-server $commit into $cache (once per machine, ~12 min on 2 cores)…" >&2
rm -rf "$cache.partial"
git clone -q "$bundle" "$cache.partial" >&2
(
  cd "$cache.partial"
  cmake -B build -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DGGML_NATIVE=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build build --target llama-server -j "$(nproc)" >&2
)
rm -rf "$cache"
mv "$cache.partial" "$cache"
echo "$binary"

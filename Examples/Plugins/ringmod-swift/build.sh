#!/bin/sh
# Builds libRingMod.so (release) and copies it next to graph.json (or into $1).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
swift build -c release --package-path "$here" --scratch-path "${SCRATCH:-$here/.build}"
cp "${SCRATCH:-$here/.build}/release/libRingMod.so" "$out/libRingMod.so"
echo "built $out/libRingMod.so"

#!/usr/bin/env bash
# Builds the benchmark runner in release and prints every benchmark as one table.
#
#   Benchmarks/run.sh            full run (~1 minute of measuring)
#   Benchmarks/run.sh --quick    shorter budgets, noisier
#
# The allocation columns come from the project's real-time counter (tools/rt-counter.c), preloaded
# and armed by OfflineBackend around every cycle (IAA_RT_PROBE=1): heap allocations and Swift
# retains made on the rendering thread inside a cycle. The control side runs without it. The ordo-one suite is separate:
#   cd Benchmarks && swift package benchmark
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"

swift build -c release --product iaa-bench >&2
bin="$(swift build -c release --show-bin-path)"
counter="$bin/librtcounter.so"
if [[ ! -f "$counter" || "$here/../tools/rt-counter.c" -nt "$counter" ]]; then
    cc -O2 -shared -fPIC -o "$counter" "$here/../tools/rt-counter.c" -ldl
fi

echo "# iaa benchmarks — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# $(swift --version 2>/dev/null | head -1); root at $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$here/.." diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)')"
# The render tables under the counter; the control side in a second process without it (the
# counter interposes swift_retain and malloc, which slowed control-side code by about a tenth).
LD_PRELOAD="$counter" IAA_RT_PROBE=1 "$bin/iaa-bench" render "$@"
"$bin/iaa-bench" control "$@"

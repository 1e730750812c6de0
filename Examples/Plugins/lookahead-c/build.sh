#!/bin/sh
# Builds liblookahead.so next to this script (or into $1). IAA_SDK is the plugin SDK
# (default: SDK/ in this checkout).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sdk=${IAA_SDK:-$(cd "$here/../../../SDK" && pwd)}
out=${1:-$here}
cc -std=c99 -O2 -Wall -Wextra -shared -fPIC -I "$sdk/Sources/IAAPluginABI/include" \
   -o "$out/liblookahead.so" "$here/lookahead.c"
echo "built $out/liblookahead.so"

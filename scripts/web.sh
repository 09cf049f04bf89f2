#!/usr/bin/env bash
# The web package (web/) in a real browser: headless Chromium (Debian's package), driven over
# the DevTools protocol on a pipe (web/test/cdp.mjs, no npm dependency), loads a page served
# from 127.0.0.1 that imports the package and
#   1. compiles every item of every WGSL core (core, df64, predicate) with what the subset
#      tool gives it (Tint, through createShaderModule/getCompilationInfo), and every name of
#      every GLSL ES core the same way (ANGLE, gl.compileShader);
#   2. the negative control: subset(aether_vec3f_dot) with struct aether_vec3f dropped must
#      fail to compile, in WGSL and in GLSL; and every item that the compared functions'
#      subsets carry (the opaque-zero setters aside), dropped alone, must break the compile;
#   3. runs 12 functions (fmin, vec3 dot/cross/normalize, quat mul, mat4 mul, the pair's
#      neumaier_add and reduce32, exp, and df64 add/sub/mul) on 64 cases each through WebGPU
#      (SwiftShader) and WebGL2 (ANGLE on SwiftShader, vertex shader and transform feedback),
#      from the whole cores and from the subset tool's output, and fails unless every result
#      is bit-identical to the reference's (reference/examples/web_cases.rs);
#   4. the WGSL self-test (subset and whole core, runSelfTest of the package) and the GLSL
#      one (WebGL2), which must pass; and web/README.md's quick start, run as written;
# then loads the demo page (web/test/demo.html: a figure near 10^8 m in f32 and in df64) and
# writes its screenshot to docs/web-demo.png (SHOT=path to write elsewhere, SHOT= for none).
#
#   bash scripts/web.sh
#
# Installs Chromium and Node.js when missing. Exit status 0 when everything passed. web/generated/
# is the generator's (`cargo run -p generator -- --check` fails when it is stale).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt.sh
source scripts/apt.sh

start=$(date +%s)
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
if [ ${#need[@]} -gt 0 ]; then
    apt_install "${need[@]}"
fi

# The README's computed parts (the subset sizes, the opaque-zero lists) must be current.
node web/test/readme.mjs --check web/README.md
# And the TypeScript declarations name every export.
node web/test/dts.mjs
# The subset tool in Node: slices of the core in its order, the items covering each core, the
# opaque zero declared where needed, wrong arguments refused (web/test/subset.test.mjs).
node --test --test-reporter=dot web/test/subset.test.mjs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo run -q -p aether-reference --example web_cases >"$work/cases.json"
built=$(date +%s)
echo "web: reference cases in $((built - start)) s ($(grep -c '"name"' "$work/cases.json") functions)"

shot=${SHOT-docs/web-demo.png}
args=(--cases "$work/cases.json" --result "$work/result.json")
[ -n "$shot" ] && args+=(--screenshot "$shot")
status=0
node web/test/run.mjs "${args[@]}" || status=$?
echo "web: $(( $(date +%s) - start )) s in all"
exit "$status"

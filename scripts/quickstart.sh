#!/usr/bin/env bash
# Every quick start of the README, run as written (issue 48): each fenced block after a
# `<!-- quickstart NAME: FILE -->` line becomes FILE of quick start NAME, in a fresh directory
# holding a copy of the repository's tracked files (a clean checkout's); `run.sh` is run there
# with bash -e, and the last lines it prints must be its block marked `expected` (the `c` quick
# start's for the C forms of that program; the `dot` block's, one line, for the others). Where a quick start is a shader or a kernel with no host
# program of its own, its file is built by the real compiler of its language with the core:
#   wgsl    dot.mjs runs on Dawn for Node (runner/dawn, SwiftShader) with `navigator.gpu` and a
#           `fetch` of the repository's files; it prints its expected line
#   glsl    dot.frag, with its "... glsl_core/aether_core.glsl here ..." line replaced by the
#           core, compiled by glslang as a GLSL ES 3.00 fragment shader
#   opencl  dot.cl compiled by clang's OpenCL C front end (-cl-std=CL3.0) with -I opencl_core
#   cuda    dot.cu compiled by nvcc (scripts/cuda-toolchain.sh) with -I cuda_core
#
#   bash scripts/quickstart.sh             the README's figures, then every quick start; exit 1
#                                          if any fails
#   bash scripts/quickstart.sh --control   the controls: a README broken four ways (a call to a
#                                          function that does not exist, a changed figure in an
#                                          expected output, another contract version, a count
#                                          written in) and a CHANGELOG.md without the cores'
#                                          contract id, each of which must fail; exit 0 when all do
#   --readme FILE, --changelog FILE, --only 'NAME ...'
#                                          another README or changelog; some quick starts only
# Needs gcc, g++, cmake, cargo, python3, node with runner/dawn's packages, glslang, clang and
# nvcc: scripts/test.sh installs them all before it runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
readme=$repo/README.md
only=""
control=0
while [ $# -gt 0 ]; do
    case $1 in
        --control) control=1; shift ;;
        --readme) readme=$2; shift 2 ;;
        --only) only=" $2 "; shift 2 ;;
        --changelog) changelog=$2; shift 2 ;;
        *) echo "usage: $0 [--control] [--readme FILE] [--only 'NAME ...']" >&2; exit 2 ;;
    esac
done

top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

if [ "$control" = 1 ]; then
    # Each broken README must fail the check that guards it.
    bad=0
    broken() { # what, sed expression, quick starts to run
        sed "$2" "$repo/README.md" >"$top/broken.md"
        if cmp -s "$repo/README.md" "$top/broken.md"; then
            echo "quickstart control ($1): the edit changed nothing"
            bad=1
        elif bash "$0" --readme "$top/broken.md" --only "$3" >"$top/control.log" 2>&1; then
            echo "quickstart control ($1): PASSED, and must not"
            bad=1
        else
            echo "quickstart control ($1): fails, as it must: $(grep -m1 -E 'FAILED|figures: README' "$top/control.log")"
        fi
    }
    broken "a call to a function that does not exist" 's/(double)aether_vec3f_dot(a, b)/(double)aether_vec3f_dott(a, b)/' c
    broken "a changed figure in an expected output" 's/^dot(a, b) = 0.319999993$/dot(a, b) = 0.319999994/' c
    broken "another contract version" 's/find_package(aether [0-9.]* EXACT/find_package(aether 0.0.9 EXACT/' none
    broken "a count written into the README" 's/^## Conventions$/## Conventions\n\nThe C core has 326 functions./' none
    # A change of operations not recorded: the changelog's first version is another id.
    sed 's/^## Unreleased: aether [0-9.]* [0-9a-f]*$/## Unreleased: aether 0.1.0 00000000000000000000000000000000/' "$repo/CHANGELOG.md" >"$top/CHANGELOG.md"
    if cmp -s "$repo/CHANGELOG.md" "$top/CHANGELOG.md"; then
        echo "quickstart control (an unrecorded contract id): the edit changed nothing"
        bad=1
    elif bash "$0" --changelog "$top/CHANGELOG.md" --only none >"$top/control.log" 2>&1; then
        echo "quickstart control (an unrecorded contract id): PASSED, and must not"
        bad=1
    else
        echo "quickstart control (an unrecorded contract id): fails, as it must: $(grep -m1 'figures: CHANGELOG' "$top/control.log")"
    fi
    exit "$bad"
fi

# Figures that cannot drift: the README writes no count of functions, witnesses, rules, cases or
# inputs (docs/api.md and the reports, generated, hold them), and every "aether X.Y.Z" it names is
# the contract version of the generated header.
version=$(sed -n 's/^#define AETHER_CONTRACT_VERSION "\([^"]*\)"$/\1/p' "$repo/c_core/aether_core.h")
id=$(sed -n 's/^#define AETHER_CONTRACT_ID "\([^"]*\)"$/\1/p' "$repo/c_core/aether_core.h")
python3 - "$readme" "$version" "$id" "${changelog:-$repo/CHANGELOG.md}" <<'EOF'
import re, sys
path, version, cid, changelog = sys.argv[1:]
bad = []
# CHANGELOG.md: the cores' id heads "Unreleased" or the newest version.
heads = [l for l in open(changelog) if l.startswith("## ")]
if not heads or cid not in heads[0]:
    bad.append(f"CHANGELOG.md: its first version ({heads[0].strip() if heads else 'none'}) is not the cores' contract id {cid}: record the change (docs/versioning.md)")
for n, line in enumerate(open(path), 1):
    for m in re.finditer(r"\b\d[\d,.]*\s+(functions|witness(es| vectors)?|rules|cases|inputs|callables|kernels|entries|families)\b", line):
        bad.append(f"README.md:{n}: a count that can drift: \"{m.group(0)}\" (say it without the number, or generate it)")
    for m in re.finditer(r"aether (\d+\.\d+\.\d+)", line):
        if m.group(1) != version:
            bad.append(f"README.md:{n}: \"{m.group(0)}\", but the contract version is {version}")
for b in bad:
    print("quickstart figures: " + b)
if bad:
    sys.exit(1)
print(f"quickstart figures: no count, every version {version}, CHANGELOG.md at {cid}")
EOF

# The blocks: $top/blocks/NAME/FILE for each marked block.
python3 - "$readme" "$top/blocks" <<'EOF'
import os, re, sys
readme, out = sys.argv[1:]
lines = open(readme).read().split("\n")
i, count = 0, 0
while i < len(lines):
    m = re.match(r"^<!-- quickstart ([a-z0-9-]+): (\S+) -->$", lines[i])
    i += 1
    if not m:
        continue
    while i < len(lines) and lines[i].strip() == "":
        i += 1
    if i >= len(lines) or not lines[i].startswith("```"):
        sys.exit(f"quickstart: README.md:{i}: the marker for {m.group(1)}: {m.group(2)} is not followed by a fenced block")
    j = i + 1
    while j < len(lines) and lines[j] != "```":
        j += 1
    path = os.path.join(out, m.group(1), m.group(2))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write("\n".join(lines[i + 1:j]) + "\n")
    count += 1
    i = j + 1
print(f"quickstart: {count} blocks in README.md")
EOF

# A fresh copy of the tracked files the quick starts read.
fresh() {
    local d
    d=$(mktemp -d -p "$top")
    git -C "$repo" ls-files -z c_core rust_core wgsl_core glsl_core opencl_core cuda_core | (cd "$repo" && xargs -0 cp --parents -t "$d")
    echo "$d"
}

# NAME [FROM]: runs quick start NAME's run.sh with its files (and before them FROM's), from a
# fresh copy; the last lines it prints (the program's, after any build's) must be its `expected`
# block (FROM's where it has none).
run_qs() {
    local name=$1 from=${2:-} d want
    d=$(fresh)
    [ -n "$from" ] && cp -r "$top/blocks/$from/." "$d/"
    cp -r "$top/blocks/$name/." "$d/"
    want=$d/expected
    [ -f "$want" ] || cp "$top/blocks/dot/expected" "$want"
    (cd "$d" && CARGO_TARGET_DIR="$d/target" bash -e run.sh) >"$d/stdout"
    tail -n "$(wc -l <"$want")" "$d/stdout" | diff -u "$want" -
}

qs_wgsl() {
    local d
    d=$(fresh)
    cp "$top/blocks/wgsl/dot.mjs" "$d/"
    cat >"$d/harness.mjs" <<EOF
import fs from 'node:fs';
import { create, globals } from '$repo/runner/dawn/node_modules/webgpu/index.js';
Object.assign(globalThis, globals);
globalThis.navigator = { gpu: create([]) };
globalThis.fetch = async (path) => ({ text: async () => fs.readFileSync(path, 'utf8') });
await import('./dot.mjs');
process.exit(0);
EOF
    # Dawn on SwiftShader, the ICD chromium-common ships (scripts/wgsl-stacks.sh installs it).
    (cd "$d" && VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json node harness.mjs) >"$d/stdout"
    diff -u "$top/blocks/dot/expected" "$d/stdout"
}

qs_glsl() {
    local d
    d=$(fresh)
    awk -v core="$d/glsl_core/aether_core.glsl" '
        /^\/\/ \.\.\. glsl_core\/aether_core\.glsl here \.\.\.$/ { while ((getline l < core) > 0) print l; found = 1; next }
        { print }
        END { if (!found) { print "quickstart glsl: no line for the core" > "/dev/stderr"; exit 1 } }' \
        "$top/blocks/glsl/dot.frag" >"$d/dot.frag"
    glslangValidator -S frag "$d/dot.frag"
}

qs_opencl() {
    clang -x cl -cl-std=CL3.0 -Xclang -finclude-default-header -I "$repo/opencl_core" -fsyntax-only "$top/blocks/opencl/dot.cl"
}

qs_cuda() {
    # shellcheck source=scripts/cuda-toolchain.sh
    source "$repo/scripts/cuda-toolchain.sh"
    cuda_toolchain >/dev/null
    "$NVCC" -c -I "$repo/cuda_core" "$top/blocks/cuda/dot.cu" -o "$top/dot.o"
}

failed=0
total=0
for qs in "c:run_qs c" "c-header-only:run_qs c-header-only c" "c-cmake:run_qs c-cmake c" "cxx:run_qs cxx c" \
    "rust:run_qs rust" "python:run_qs python" "wgsl:qs_wgsl" "glsl:qs_glsl" "opencl:qs_opencl" "cuda:qs_cuda"; do
    name=${qs%%:*}
    [ -z "$only" ] || [[ "$only" == *" $name "* ]] || continue
    total=$((total + 1))
    [ -d "$top/blocks/$name" ] || { echo "quickstart $name: no block in README.md"; failed=$((failed + 1)); continue; }
    set +e
    (set -e; ${qs#*:}) >"$top/$name.log" 2>&1
    rc=$?
    set -e
    if [ "$rc" = 0 ]; then
        echo "quickstart $name: ok"
    else
        echo "quickstart $name: FAILED (exit $rc); last output:"
        tail -n 12 "$top/$name.log" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
done
echo "quickstart: $((total - failed)) of $total quick starts ok"
[ "$failed" = 0 ]

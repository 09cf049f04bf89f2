#!/usr/bin/env bash
# The OpenCL C core (opencl_core/) on PoCL, the CPU OpenCL runtime:
#
#   bash scripts/opencl.sh [N] [--report FILE]
#
# installs PoCL and the ICD loader when no OpenCL platform is there, builds aether-opencl (dev profile: its dependencies are optimised),
# and runs it: the check program built with -cl-fp32-correctly-rounded-divide-sqrt (when the device
# reports correctly rounded divide and sqrt), its self-test kernel, every fixed-layout kernel on the
# corpus plus N random inputs (default 100000), every kernel over arrays on the corpus plus N/20,
# every batched structure-of-arrays kernel on N/10 (odd) items, against the Rust reference under
# the spec's policy (0 mismatches expected), then the negative controls: contraction ON (the program without
# #pragma OPENCL FP_CONTRACT OFF: mismatches named by function), the rule mutant uncompensated
# (every lanes, array, plane and resolve kernel changes), -cl-fast-relaxed-math (refused
# by the core's #error), -cl-denorms-are-zero (named by the self-test) and the fp64-free build
# (-DAETHER_NO_FP64 -cl-std=CL3.0: builds, the f64 kernels absent). --report FILE also writes the
# output as markdown. Prints the wall time of each step. Every other build option (and the -cl-std
# versions) is scripts/opencl-options.sh's matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
n=100000
args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --report) args+=(--report "$2"); shift 2 ;;
    [0-9]*) n=$1; shift ;;
    *) echo "usage: scripts/opencl.sh [N] [--report FILE]" >&2; exit 2 ;;
    esac
done
start=$(date +%s)
step() { echo "opencl.sh: $1 ($(( $(date +%s) - start )) s so far)"; }

# shellcheck source=scripts/pocl.sh
source scripts/pocl.sh
if pocl_platform; then
    step "PoCL installed"
fi

t=$(date +%s)
# AETHER_OPENCL_BIN: the host program scripts/test.sh's test build made (a `-p` build here
# would resolve the dependencies' features for this package alone and build them again); else
# the test profile's build.
if [ -n "${AETHER_OPENCL_BIN:-}" ]; then
    bin=$AETHER_OPENCL_BIN
else
    cargo build -q --profile test -p aether-opencl
    bin=./target/debug/aether-opencl
fi
[ -x "$bin" ] || { echo "opencl.sh: no aether-opencl at $bin" >&2; exit 2; }
step "aether-opencl built in $(( $(date +%s) - t )) s"

# The programs under clang's OpenCL C front end at 1.2, 2.0 and 3.0, syntax only. With the generic
# address space (2.0 and 3.0, as PoCL 5 compiles) an array parameter's elements are __private
# and a pointer parameter's __generic, a mismatch an OpenCL 1.2 compiler such as this PoCL cannot
# show (the core once failed on PoCL 5 so; the generator prints array parameters as pointers).
clang=$(command -v clang || ls /usr/bin/clang-[0-9]* 2>/dev/null | grep -E 'clang-[0-9]+$' | sort -V | tail -n 1 || true)
[ -n "$clang" ] || { echo "opencl.sh: no clang for the OpenCL C front-end check" >&2; exit 2; }
for std in CL1.2 CL2.0 CL3.0; do
    for program in opencl_core/aether_core.cl opencl_core/aether_predicate.cl opencl_core/check/aether_check.cl; do
        if ! "$clang" -x cl -cl-std="$std" -Xclang -finclude-default-header -fsyntax-only -Werror \
            -DAETHER_CHECK_WORDS=8192 -DAETHER_CHECK_OUT=256 -DAETHER_CHECK_SCRATCH=17152 "$program"; then
            echo "opencl.sh: FAIL: $program does not compile as OpenCL C ${std#CL} ($clang)"
            exit 1
        fi
    done
done
step "the programs compile as OpenCL C 1.2, 2.0 and 3.0 ($clang, syntax only)"

t=$(date +%s)
rc=0
"$bin" "$n" "${args[@]}" || rc=$?
step "aether-opencl $n ran in $(( $(date +%s) - t )) s, exit $rc"
echo "opencl.sh: total wall time $(( $(date +%s) - start )) s"
exit "$rc"

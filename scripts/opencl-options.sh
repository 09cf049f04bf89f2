#!/usr/bin/env bash
# The OpenCL C core's build options matrix on PoCL:
#
#   bash scripts/opencl-options.sh [N] [--report FILE] [--jobs J]   # the full matrix
#   bash scripts/opencl-options.sh --ci [N]                         # the bounded form (CI)
#
# Every option of the OpenCL C compiler's list that touches floating point
# (-cl-single-precision-constant, -cl-denorms-are-zero, -cl-fp32-correctly-rounded-divide-sqrt,
# -cl-opt-disable, -cl-mad-enable, -cl-no-signed-zeros, -cl-unsafe-math-optimizations,
# -cl-finite-math-only, -cl-fast-relaxed-math, -cl-uniform-work-group-size, -cl-no-subgroup-ifp,
# -cl-strict-aliasing), the -cl-std versions (CL1.0 to CL3.0, and none) and the combinations that
# matter, each a cell of generator/src/targets/opencl/options.rs's table, built into the check
# program with -cl-fp32-correctly-rounded-divide-sqrt (one cell without it) and classed: refused
# (the core's #error names the option), driver-refused (CL_INVALID_BUILD_OPTIONS), held (the
# self-test passes, every kernel run gives the reference's bits) or caught (bits change, the
# self-test fails). Exit 1 on a hole (bits changed while the self-test passed), on a class other
# than the table's, or when the table in opencl_core/aether_core.cl's header differs from the
# measured classes (regenerate with `cargo run -p generator`).
#
# The full form runs every kernel of the check program in every cell that builds, on its corpus
# plus N random inputs (default 10000; N/20 per kernel over arrays, N/10 items per batched
# kernel); --report FILE writes the markdown (docs/reports/opencl-options.md). The CI form (--ci,
# default N 1000) runs every cell with the check program cut down to the self-test and a third of
# the kernels dealt out among the cells: PoCL compiles every kernel of every program it builds, and
# that, not the inputs, is what a cell costs (about 70 s a cell for the whole program on a cold
# cache). --jobs J builds and runs J cells at once (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
n=""
ci=0
jobs=2
args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --report) args+=(--report "$2"); shift 2 ;;
    --ci) ci=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    [0-9]*) n=$1; shift ;;
    *) echo "usage: scripts/opencl-options.sh [N] [--report FILE] [--jobs J] | --ci [N]" >&2; exit 2 ;;
    esac
done
if [ "$ci" = 1 ]; then
    n=${n:-1000}
    args+=(--ci)
else
    n=${n:-10000}
fi
start=$(date +%s)

# shellcheck source=scripts/pocl.sh
source scripts/pocl.sh
pocl_platform || true

# AETHER_OPENCL_BIN: the host program scripts/test.sh's test build made; else the test profile's
# build (as scripts/opencl.sh).
if [ -n "${AETHER_OPENCL_BIN:-}" ]; then
    bin=$AETHER_OPENCL_BIN
else
    cargo build -q --profile test -p aether-opencl
    bin=./target/debug/aether-opencl
fi
[ -x "$bin" ] || { echo "opencl-options.sh: no aether-opencl at $bin" >&2; exit 2; }

rc=0
"$bin" --options-matrix --jobs "$jobs" "$n" "${args[@]}" || rc=$?
echo "opencl-options.sh: exit $rc, total wall time $(( $(date +%s) - start )) s"
exit "$rc"

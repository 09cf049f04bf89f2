#!/usr/bin/env bash
# The longer sweep of the integer predicates, for docs/reports/integer-predicate.md:
#
#   bash scripts/predicate-report.sh [N]
#
# runs predicate_corpus::sweep(N) (default 10^7: max(3e6, N) near-parallel int16, N int32 bands,
# N/100 within one ulp, N random int64, the 18.9e6 reduced-domain combinations, N + N band
# quadruples) on the C core's both forms (tests/tests/predicate.rs with AETHER_PREDICATE_SWEEP=N,
# the wrong spellings counted beside), and on both WebGPU stacks' integer forms
# (aether-runner predicates --stack all --random N, the reduced domain on both). CI runs the
# same with N = 10^6 (C) and 10^5 (WGSL). Prints every line; exit 1 on a disagreement.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
source scripts/wgsl-stacks.sh
wgsl_stacks
t0=$(date +%s)
AETHER_PREDICATE_SWEEP=$n cargo test -q --profile test -p aether-tests --test predicate sweep -- --nocapture 2>&1 | grep -E '^predicate sweep|test result'
t1=$(date +%s)
echo "predicate-report: the C core in $((t1 - t0)) s"
cargo build -q --profile test -p aether-runner
target/debug/aether-runner predicates --stack all --random "$n" 2>&1 | grep -v XDG_RUNTIME_DIR
echo "predicate-report: both WebGPU stacks in $(($(date +%s) - t1)) s"

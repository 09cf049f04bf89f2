#!/usr/bin/env bash
# Exhaustive f32 sweeps: every one-input f32 function of the spec and
# one-variable slices of multi-input ones, over all 2^32 bit patterns (or, by
# the plan the 2^24-subset timing picks, a 2^28 strided subset for some), C
# core against the reference. Writes docs/reports/exhaustive-f32.md and exits
# non-zero on any mismatch. Extra arguments go to the binary:
#   --plan auto|full|reduced|measure   --threads N
set -euo pipefail
cd "$(dirname "$0")/.."

report=docs/reports/exhaustive-f32.md
mkdir -p "$(dirname "$report")"
export AETHER_SWEEP_COMMAND="bash scripts/sweep.sh${*:+ $*}"
export AETHER_SWEEP_INNER="cargo run --release -p aether-tests --bin sweep --${*:+ $*} --report $report"
cargo build --release -p aether-tests --bin sweep
cargo run --release -p aether-tests --bin sweep -- "$@" --report "$report"

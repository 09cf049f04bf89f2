#!/usr/bin/env bash
# Differential fuzzing of the C core against the Rust reference with cargo
# fuzz (libFuzzer), for a bounded time: fuzz/fuzz_targets/differential.rs.
#
#   scripts/fuzz.sh [SECONDS] [libFuzzer options...]
#
# SECONDS defaults to 60 (-max_total_time). Works on the stable toolchain:
# `--sanitizer none` passes no -Z flag (the sancov instrumentation cargo fuzz
# adds is stable -C/-Cllvm-args). Installs cargo-fuzz if it is missing
# (about 40 s); the first build of the target takes about 2.5 min on 2 cores.
#
# Environment:
#   FUZZ_C_COVERAGE=1  build the C core with clang and libFuzzer's coverage
#                      (-fsanitize-coverage=inline-8bit-counters,pc-table,
#                      trace-cmp) so the fuzzer also sees the C core's
#                      branches; needs clang. Default: the compiler build.rs
#                      picks (gcc here), uninstrumented: the core as shipped.
#   FUZZ_JOBS=N        run N fuzzing processes on the shared corpus (-jobs,
#                      -workers); the exec count is summed over them.
#
# The corpus lives in fuzz/corpus/differential (seeded with one input per
# callable selector when empty), a disagreement in fuzz/artifacts/differential.
# Exit status: 0 when no input disagreed, non-zero otherwise (the MISMATCH
# line names the function, the input words and both outputs in hex).
set -euo pipefail

secs=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --version 0.13.2 --locked
fi

build=(--sanitizer none)
if [[ "${FUZZ_C_COVERAGE:-0}" == 1 ]]; then
    export CC=clang
    export CFLAGS="-fsanitize-coverage=inline-8bit-counters,pc-table,trace-cmp"
    build+=(--target-dir target/c-coverage)
fi

corpus=corpus/differential
mkdir -p "$corpus" artifacts/differential
if [[ -z "$(ls -A "$corpus")" ]]; then
    # Seeds: callable selector i (u16, little-endian), mixed word style,
    # every flag. 512 selectors cover every callable (326 now) and then some.
    for i in $(seq 0 511); do
        printf "\\x$(printf %02x $((i & 255)))\\x$(printf %02x $((i >> 8)))\\x13\\xff" >"$corpus/seed-$i"
    done
fi

echo "== building the fuzz target"
cargo fuzz build "${build[@]}" differential

jobs=${FUZZ_JOBS:-1}
extra=()
if ((jobs > 1)); then
    extra=(-jobs="$jobs" -workers="$jobs")
fi

log=$(mktemp)
echo "== fuzzing for ${secs} s (log: $log)"
start=$(date +%s)
set +e
cargo fuzz run "${build[@]}" differential "$corpus" -- \
    -max_total_time="$secs" -print_final_stats=1 "${extra[@]}" "$@" >"$log" 2>&1
rc=$?
set -e
elapsed=$(($(date +%s) - start))

# With -jobs the workers log to fuzz-N.log, which libFuzzer also copies
# into the main log as each job ends: count the main log only.
execs=$(grep -h '^stat::number_of_executed_units' "$log" | awk '{s += $2} END {print s + 0}')
grep -h '^aether differential' "$log" | head -1 || true
grep -h '^Done ' "$log" || true
echo "executions: $execs in ${elapsed} s ($((execs / (elapsed > 0 ? elapsed : 1))) per second)"
if ((jobs > 1)); then
    rm -f fuzz-[0-9]*.log
fi

if ((rc != 0)) || grep -q 'MISMATCH\|panicked\|deadly signal\|ERROR: libFuzzer' "$log"; then
    echo "== FAILED (exit $rc)"
    grep -h -A2 'MISMATCH\|panicked at' "$log" | head -20 || true
    grep -h 'Test unit written to' "$log" || true
    exit 1
fi
echo "== no input disagreed"

#!/usr/bin/env bash
# cargo fuzz (libFuzzer) for a bounded time, one of two targets:
#
#   scripts/fuzz.sh [--target differential|spec] [SECONDS] [libFuzzer options...]
#
# differential (the default): the C core against the Rust reference,
#   fuzz/fuzz_targets/differential.rs.
# spec: the generator over the spec text, fuzz/fuzz_targets/spec.rs: parse,
#   validation, the model, the mutants' models, the spec's probes on the
#   reference and the model, and the rendering of every target
#   (aether_generator::fuzzing). Seeded with spec/aether.toml (as it is, and
#   without its comments), with a dictionary derived from it; runs with
#   -max_len=262144 -timeout=10 -rss_limit_mb=2048 (FUZZ_TIMEOUT, FUZZ_RSS_MB
#   change the last two). To keep going past findings, pass
#   -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1: every finding
#   is still saved, listed, and makes the exit status non-zero.
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
# The corpus lives in fuzz/corpus/<target> (for differential seeded with one
# input per callable selector when empty), a finding in fuzz/artifacts/<target>.
# Exit status: 0 when no input disagreed (differential) or no input made the
# generator panic, abort, overflow its stack, time out or run out of memory
# (spec), non-zero otherwise (differential: the MISMATCH line names the
# function, the input words and both outputs in hex; spec: each new artifact
# is listed with the first line of its failure).
set -euo pipefail

target=differential
if [[ "${1:-}" == --target ]]; then
    target=${2:?"--target needs a name: differential or spec"}
    shift 2
fi
case "$target" in
    differential | spec) ;;
    *)
        echo "fuzz.sh: unknown target \`$target\` (differential or spec)" >&2
        exit 2
        ;;
esac
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

corpus=corpus/$target
artifacts=artifacts/$target
mkdir -p "$corpus" "$artifacts"
options=()
if [[ "$target" == spec ]]; then
    # Seeds: the real spec, and the same without comment lines (a smaller
    # input that mutates faster). Re-copied each run, so the seeds follow the
    # spec.
    cp ../spec/aether.toml "$corpus/seed-aether.toml"
    grep -v '^[[:space:]]*#' ../spec/aether.toml >"$corpus/seed-aether-no-comments.toml"
    # The dictionary: every identifier and table header of the spec, and the
    # tokens of the body language (dsl.rs).
    mkdir -p target
    dict=$root/fuzz/target/spec.dict
    {
        grep -o '[A-Za-z_][A-Za-z0-9_]*' ../spec/aether.toml | sort -u
        grep -o '^\[[^]]*\]' ../spec/aether.toml | sort -u
        grep -o '^[a-z_]* = ' ../spec/aether.toml | sort -u
        printf '%s\n' '(' ')' '[' ']' '!' '+' '-' '*' '/' '<' '>' '<=' '>=' '==' '!=' '&&' '||' '?' ':' ',' ';' \
            'sqrt(' 'fabs(' 'fmin(' 'fmax(' 'fold(' 'i < N' '[i]' 'out[i] = ' 'out = ' ' * -1' '"""' '*/' '/*'
    } | sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&"/' >"$dict"
    options=(-max_len=262144 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -dict="$dict")
elif [[ -z "$(ls -A "$corpus")" ]]; then
    # Seeds: callable selector i (u16, little-endian), mixed word style,
    # every flag. 512 selectors cover every callable (326 now) and then some.
    for i in $(seq 0 511); do
        printf "\\x$(printf %02x $((i & 255)))\\x$(printf %02x $((i >> 8)))\\x13\\xff" >"$corpus/seed-$i"
    done
fi

echo "== building the fuzz target $target"
cargo fuzz build "${build[@]}" "$target"

jobs=${FUZZ_JOBS:-1}
extra=()
if ((jobs > 1)); then
    extra=(-jobs="$jobs" -workers="$jobs")
fi

log=$(mktemp)
echo "== fuzzing for ${secs} s (log: $log)"
start=$(date +%s)
marker=$(mktemp)
set +e
cargo fuzz run "${build[@]}" "$target" "$corpus" -- \
    -max_total_time="$secs" -print_final_stats=1 "${options[@]}" "${extra[@]}" "$@" >"$log" 2>&1
rc=$?
set -e
elapsed=$(($(date +%s) - start))

# With -jobs the workers log to fuzz-N.log, which libFuzzer also copies
# into the main log as each job ends: count the main log only.
execs=$({ grep -h '^stat::number_of_executed_units' "$log" || true; } | awk '{s += $2} END {print s + 0}')
if ((execs == 0)); then
    # -fork prints no final stats; its status lines start with #<executions>:.
    execs=$({ grep -h '^#[0-9]*: cov:' "$log" || true; } | tail -1 | sed 's/^#\([0-9]*\):.*/\1/')
    execs=${execs:-0}
    { grep -h '^#[0-9]*: cov:' "$log" || true; } | tail -1
fi
grep -h '^aether differential' "$log" | head -1 || true
grep -h '^aether spec:' "$log" | tail -1 || true
grep -h '^Done ' "$log" || true
echo "executions: $execs in ${elapsed} s ($((execs / (elapsed > 0 ? elapsed : 1))) per second)"
if ((jobs > 1)); then
    rm -f fuzz-[0-9]*.log
fi

# Every artifact this run wrote (with -fork and -ignore_crashes the run goes
# on past them, and the log may not show them all).
mapfile -t new < <(find "$artifacts" -type f -newer "$marker" | sort)
rm -f "$marker"
if ((rc != 0)) || ((${#new[@]} > 0)) ||
    grep -q 'MISMATCH\|panicked\|deadly signal\|ERROR: libFuzzer\|overflowed its stack\|aether spec: fatal' "$log"; then
    echo "== FAILED (exit $rc, ${#new[@]} new artifact(s) in fuzz/$artifacts)"
    grep -h -A2 'MISMATCH\|panicked at' "$log" | head -20 || true
    grep -h 'Test unit written to' "$log" | head -20 || true
    bin=$(find target -path "*/release/$target" -type f | head -1)
    for a in "${new[@]}"; do
        # The first line that says what went wrong, from the target itself.
        why=$(timeout 120 "$bin" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" "$a" 2>&1 |
            grep -m1 'panicked at\|overflowed its stack\|aether spec: fatal\|memory allocation of\|ERROR: libFuzzer\|deadly signal' || true)
        echo "finding: $a ($(wc -c <"$a") bytes): ${why:-no failure on a rerun (a timeout or a slow unit?)}"
    done
    exit 1
fi
if [[ "$target" == spec ]]; then
    echo "== no input made the generator fail"
else
    echo "== no input disagreed"
fi

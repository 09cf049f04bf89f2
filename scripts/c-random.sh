#!/usr/bin/env bash
# The pure-C runner's random mode: N random inputs per function (default 100000), each
# compared with the Rust reference exported as a C library (reference-capi, cbindgen), on top
# of the whole corpus. Built with gcc at the consumer's defaults (-O2, GNU C, so GCC's default
# -ffp-contract=fast), with clang -O3 -march=native -ffp-contract=fast, and header-only with gcc
# -O3 -march=x86-64-v3 -ffp-contract=fast. A negative control
# (the guards disabled) must report random mismatches. The batched forms (aether_batch.c) run
# the same way, SoA and AoS, AVX2 and the baseline, with the negative control of their guard.
#   usage: scripts/c-random.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-100000}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The reference as a C static library: AETHER_REFERENCE_LIB when set (scripts/test.sh passes
# the one its optimised test build made, so the reference is not built a second time), else a
# release build.
if [ -n "${AETHER_REFERENCE_LIB:-}" ]; then
    lib=$AETHER_REFERENCE_LIB
else
    cargo build -q --release -p aether-reference-capi
    lib="$(pwd)/target/release/libaether_reference_capi.a"
fi
[ -f "$lib" ] || { echo "c-random: no reference library at $lib" >&2; exit 2; }

run() { # name, cc, cflags, [batch form: soa | aos]
    local what="$1" cc="$2" flags="$3" form="${4:-}" count="$n"
    local batch=() checkflags="--quiet${ONLY:+ --only $ONLY}"
    # The batched forms (aether_batch.c, make BATCH=1): a fifth of the count (they run the core's
    # operations lane by lane; CI's time is bounded), odd, so that a scalar tail runs after the
    # vector steps in every random chunk too.
    if [ -n "$form" ]; then batch=(BATCH=1); checkflags="$checkflags --batch $form"; count=$((n / 5 + 3)); fi
    make -s -C c_core/check random "${batch[@]}" CC="$cc" CFLAGS="$flags" BUILD="$tmp/$what" REFERENCE_LIB="$lib" \
        RANDOM="$count" CHECKFLAGS="$checkflags" >"$tmp/$what.txt" 2>&1 || { cat "$tmp/$what.txt" >&2; echo "c-random: $what ($cc $flags) FAILED" >&2; exit 1; }
    echo "c-random: $cc $flags${HEADER_ONLY:+ (header-only)}${form:+ --batch $form}${ONLY:+ --only $ONLY}: $(grep '^aether_check: random:' "$tmp/$what.txt" | cut -d: -f3-)"
    if [ -n "$form" ]; then echo "c-random:   $(grep '^aether_check: batch form' "$tmp/$what.txt" | cut -d: -f2-)"; fi
}
run gcc-default gcc "-O2"
run clang-native clang "-O3 -march=native -ffp-contract=fast"
# The header-only form with AVX2 (gcc: its per-item vector forms of mat4f_mul, mat4f_mul_vec and
# quatf_mul; clang's object above takes them too).
HEADER_ONLY=1 run gcc-header-only-v3 gcc "-O3 -march=x86-64-v3 -ffp-contract=fast"
# The batched forms: AVX2 (the eight-wide steps in ymm registers), the x86-64 baseline (the same
# GNU C vectors split into SSE2 halves) and clang's most aggressive options. Each _aos form has two
# paths, chosen per function and compiler (vector steps over lanes shuffled from the structs, or a
# loop of item functions): gcc's default takes both, and each is forced once for every function.
run gcc-batch-v3 gcc "-O2 -march=x86-64-v3" soa
run gcc-batch-base gcc "-O2" aos
run gcc-aos-steps gcc "-O2 -march=x86-64-v3 -ffp-contract=fast -DAETHER_BATCH_AOS_STEPS" aos
run clang-batch-native clang "-O3 -march=native -ffp-contract=fast" soa
run clang-aos-items clang "-O2 -march=x86-64-v3 -ffp-contract=fast -DAETHER_BATCH_AOS_ITEMS" aos

# The array sums' vector path runs chunks of blocks with the two-sum residual in one order, and a
# chunk again with the whole step where a lane ends non-finite (c_simd.rs). With one block per
# chunk (AETHER_LANES_CHUNK=1) the random arrays (up to 100 elements, a tenth of them special
# values) move between the two within one array: a chunk run again, then one-order chunks.
for only in _array lanes_; do
    ONLY=$only run "chunk-1$only" gcc "-O2 -march=x86-64-v3 -DAETHER_LANES_CHUNK=1"
done
# Its negative control: a chunk's one-order result kept whatever its lanes end with. The
# corpus's spurious-overflow cases in a vector block see it (both compilers).
for cc in gcc clang; do
    set +e
    make -s -C c_core/check check CC=$cc CFLAGS="-O2 -march=x86-64-v3 -DAETHER_UNSAFE_LANES_NO_RECHECK" \
        BUILD="$tmp/no-recheck-$cc" CHECKFLAGS="--control-expected --no-selftest" >"$tmp/no-recheck-$cc.txt" 2>&1
    status=$?
    set -e
    line=$(grep '^aether_check: control: .* mismatches as expected' "$tmp/no-recheck-$cc.txt" || true)
    if [ "$status" -ne 0 ] || [ -z "$line" ] || ! grep -q 'MISMATCH aether_f64_sum_array' "$tmp/no-recheck-$cc.txt"; then
        tail -5 "$tmp/no-recheck-$cc.txt" >&2
        echo "c-random: FAILED: the corpus does not see the array sums' one-order chunks kept without their check ($cc)" >&2
        exit 1
    fi
    echo "c-random: negative control ($cc -O2 -march=x86-64-v3 -DAETHER_UNSAFE_LANES_NO_RECHECK): $(echo "$line" | cut -d: -f3-) ($(grep -c '^  MISMATCH' "$tmp/no-recheck-$cc.txt") cases: $(grep '^  MISMATCH' "$tmp/no-recheck-$cc.txt" | awk '{print $2}' | sort -u | tr '\n' ' '))"
done

# Negative control: the guards disabled under contraction; the random mode alone must see it.
set +e
make -s -C c_core/check random CC=gcc CFLAGS="-O2 -ffp-contract=fast -mfma -DAETHER_UNSAFE_ALLOW_CONTRACTION" \
    BUILD="$tmp/unguarded" REFERENCE_LIB="$lib" RANDOM=2000 CHECKFLAGS="--quiet --no-selftest" >"$tmp/unguarded.txt" 2>&1
set -e
line=$(grep '^aether_check: random:' "$tmp/unguarded.txt" || true)
bad=$(echo "$line" | sed -n 's/.*, \([0-9]*\) mismatches$/\1/p')
if [ -z "$bad" ] || [ "$bad" -eq 0 ]; then
    cat "$tmp/unguarded.txt" >&2
    echo "c-random: FAILED: the random mode does not see the unguarded contracted core" >&2
    exit 1
fi
echo "c-random: negative control (gcc -O2 -ffp-contract=fast -mfma -DAETHER_UNSAFE_ALLOW_CONTRACTION, 2000 inputs per function): $bad random mismatches"

# Negative control of the batched forms' product guard: without it (the one define, which also
# takes the item functions' guard off) and with contraction allowed, each compiler fuses the
# products, which the corpus sees (both forms, both compilers).
for cell in gcc:aos clang:soa; do
    cc=${cell%%:*} form=${cell#*:}
    set +e
    make -s -C c_core/check check BATCH=1 CC=$cc CFLAGS="-O2 -march=x86-64-v3 -ffp-contract=fast -DAETHER_UNSAFE_UNGUARDED_BATCH_PRODUCTS" \
        BUILD="$tmp/batch-unguarded-$cc-$form" CHECKFLAGS="--batch $form --control-expected --no-selftest" >"$tmp/batch-unguarded-$cc.txt" 2>&1
    status=$?
    set -e
    line=$(grep '^aether_check: control: .* mismatches as expected' "$tmp/batch-unguarded-$cc.txt" || true)
    if [ "$status" -ne 0 ] || [ -z "$line" ]; then
        tail -5 "$tmp/batch-unguarded-$cc.txt" >&2
        echo "c-random: FAILED: the corpus does not see the batched forms without their product guard ($cc, $form)" >&2
        exit 1
    fi
    echo "c-random: negative control ($cc -O2 -march=x86-64-v3 -ffp-contract=fast -DAETHER_UNSAFE_UNGUARDED_BATCH_PRODUCTS, --batch $form): $(echo "$line" | cut -d: -f3-)"
done

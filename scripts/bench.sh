#!/usr/bin/env bash
# The C core against cglm and glam (bench/, its own Cargo workspace): gcc and clang, the core as
# its own object and header-only (AETHER_HEADER_ONLY), cglm 0.8.8 (Debian) and glam 0.34
# (crates.io), every contender interleaved in one process; the elementary functions against
# glibc's libm, its libmvec (gcc's vectoriser under -ffast-math) and Rust's std. Every aether contender's output is
# first compared with the hand-written reference item by item (a differing bit stops the run).
#
#   scripts/bench.sh --check            CI: formatting, clippy, the bits at n = 1024 and n = 4099,
#                                       and scripts/bench-rust.sh --check (the Rust core's benchmark)
#   scripts/bench.sh [--rounds R] [--big N]
#                                       both reports: docs/reports/performance.md at -O2
#                                       -march=x86-64-v3 (AVX2, FMA) and
#                                       docs/reports/performance-baseline.md at -O2 with no -march
#                                       (x86-64's baseline, SSE2: what distributions build), the
#                                       second built in bench/target/baseline
#   scripts/bench.sh --report FILE [--rounds R] [--big N]
#                                       one report at BENCH_CFLAGS: ns per item
#                                       at n = 1024 (best of R = 11 rounds) and n = N = 4194304
#                                       (best of 3, one operation in memory at a time), and
#                                       callgrind's instructions per item at n = 1024
#
# Flags: BENCH_CFLAGS (default -O2 -march=x86-64-v3) for every C contender. Installs what it
# needs with apt-get (libcglm-dev, valgrind, clang). Timings are a benchmark, not a test: this
# machine is shared, so the instruction counts are the figure that does not move with its load.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=apt.sh
source scripts/apt.sh

check=0
report=docs/reports/performance.md
rounds=11
big=4194304
args=("$@")
report_given=0
while [ $# -gt 0 ]; do
    case "$1" in
        --check) check=1; shift ;;
        --report) report=$2; report_given=1; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --big) big=$2; shift 2 ;;
        *) echo "bench: unknown argument $1 (see the top of scripts/bench.sh)" >&2; exit 2 ;;
    esac
done

# Both reports: this script once per set of flags, each build in its own target directory (the C
# contenders' flags are the build script's input, so one directory would rebuild them each time).
if [ "$check" = 0 ] && [ "$report_given" = 0 ]; then
    BENCH_CFLAGS="-O2 -march=x86-64-v3" bash "$0" --report docs/reports/performance.md "${args[@]}"
    BENCH_CFLAGS="-O2" CARGO_TARGET_DIR=bench/target/baseline bash "$0" --report docs/reports/performance-baseline.md "${args[@]}"
    exit 0
fi

need=()
[ -f /usr/include/cglm/cglm.h ] || need+=(libcglm-dev)
command -v clang >/dev/null 2>&1 || need+=(clang)
# clang's link-time optimisation in the partial link of the LTO contenders (bench/build.rs).
command -v ld.lld >/dev/null 2>&1 || need+=(lld)
[ "$check" = 1 ] || command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

manifest=bench/Cargo.toml
bin=${CARGO_TARGET_DIR:-bench/target}/release/aether-bench
cargo build -q --release --manifest-path "$manifest"

if [ "$check" = 1 ]; then
    cargo fmt --manifest-path "$manifest" -- --check
    cargo clippy -q --release --manifest-path "$manifest" -- -D warnings
    "$bin" --check --n 1024
    # An odd count: the lanes forms' and the sums' tails.
    "$bin" --check --n 4099
    # The Rust core's benchmark (bench/rust-core): its formatting, clippy and bits.
    bash scripts/bench-rust.sh --check
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
"$bin" --markdown --n 1024 --rounds "$rounds" >"$tmp/small.md"
ops=$("$bin" --list)
: >"$tmp/big.md"
for op in $ops; do
    "$bin" --markdown --n "$big" --rounds 3 --only "$op" >>"$tmp/big.md"
done
# The tables of the big runs (per item, batched, array sums): each run prints every header; a
# row goes under the header above it, the first run's headers kept.
tables='
    /^\| operation / { t = ($0 ~ /LTO/) ? 4 : ($0 ~ /cglm/) ? 1 : ($0 ~ /batch aos/) ? 2 : 3; if (!h[t]) { h[t] = $0; getline; s[t] = $0 } else getline; next }
    /^\| [a-z0-9_]+ \|/ { r[t, ++nr[t]] = $0 }
    END {
        for (k = 1; k <= 4; k++) {
            if (!h[k] || want && k != want) continue
            if (!want) { print h[k]; print s[k] }
            for (i = 1; i <= nr[k]; i++) print r[k, i]
            if (!want && k < 4) print ""
        }
    }'
awk "$tables" "$tmp/big.md" >"$tmp/big-tables.md"
# The structure-of-arrays forms of the matrix operations once more at n = 1000: at n = 1024 each
# component plane starts 4 KiB after the last, so a step's 24 to 48 planes fall in one L1 set.
: >"$tmp/pad.md"
for op in mat4f_mul mat4f_mul_vec mat4f_inverse_adjugate mat4d_mul mat4d_mul_vec; do
    "$bin" --markdown --n 1000 --rounds "$rounds" --only "$op" | awk -v want=2 "$tables" >>"$tmp/pad.md"
done

valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" --callgrind --n 1024 >/dev/null 2>"$tmp/cg.log"
callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null |
    sed -n 's/^ *\([0-9,]*\) .*:bench_\([a-z0-9_]*\) .*/\2 \1/p' | tr -d ',' >"$tmp/counts"
# Each contender ran twice on 1024 items (the bit check, then alone).
awk '
    function cell(k) { return (k in c) ? sprintf("%.1f", c[k] / 2048) : "-" }
    {
        name = $1; n = $2
        if (name ~ /_elementary_table$/) next
        if (name ~ /^glam_/) { who = "glam"; op = substr(name, 6) }
        else if (name ~ /^std_/) { who = "std"; op = substr(name, 5) }
        else {
            split(name, p, "_"); cc = p[1]; kind = p[2]; op = substr(name, length(cc) + length(kind) + 3)
            if (op ~ /_plain$/) { kind = "plain"; sub(/_plain$/, "", op) }
            if (op ~ /_kahan$/) { kind = "kahan"; sub(/_kahan$/, "", op) }
            if (kind == "batch" && op ~ /_(aos|soa)$/) { kind = kind "_" substr(op, length(op) - 2); op = substr(op, 1, length(op) - 4) }
            who = cc "_" kind
        }
        c[op "|" who] = n; if (!(op in seen)) { seen[op] = 1; order[++nop] = op }
    }
    END {
        print "| operation | gcc object | gcc header-only | clang object | clang header-only | gcc batch aos | gcc batch soa | clang batch aos | clang batch soa | cglm gcc | cglm clang | glam | cglm object | plain loop gcc | plain loop clang | Kahan loop gcc | Kahan loop clang |"
        print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= nop; i++) {
            o = order[i]
            if (o ~ /^f(32|64)_[a-z0-9]+$/ && o !~ /_array$/) { elem[++ne] = o; continue }
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o, cell(o "|gcc_obj"), cell(o "|gcc_inline"),
                cell(o "|clang_obj"), cell(o "|clang_inline"), cell(o "|gcc_batch_aos"), cell(o "|gcc_batch_soa"),
                cell(o "|clang_batch_aos"), cell(o "|clang_batch_soa"), cell(o "|gcc_cglm"), cell(o "|clang_cglm"), cell(o "|glam"),
                cell(o "|gcc_cglmobj"), cell(o "|gcc_plain"), cell(o "|clang_plain"), cell(o "|gcc_kahan"), cell(o "|clang_kahan")
        }
        # The elementary functions: the loops count the instructions of the libm calls they make.
        print ""
        print "| function | gcc object | gcc header-only | clang object | clang header-only | glibc gcc | glibc clang | libmvec gcc | Rust std |"
        print "|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= ne; i++) {
            o = elem[i]
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o, cell(o "|gcc_obj"), cell(o "|gcc_inline"), cell(o "|clang_obj"),
                cell(o "|clang_inline"), cell(o "|gcc_libm"), cell(o "|clang_libm"), cell(o "|gcc_fast"), cell(o "|std")
        }
    }' "$tmp/counts" >"$tmp/counts.md"

cflags=${BENCH_CFLAGS:--O2 -march=x86-64-v3}
{
    echo "_Generated by \`scripts/bench.sh\` in $((SECONDS - t0)) s; do not edit by hand. What the figures mean, and what"
    echo "bounds the ones that miss their targets: [performance-notes.md](performance-notes.md)._"
    echo
    echo "# The C core against cglm and glam"
    echo
    echo "bench/ (\`cargo run --release --manifest-path bench/Cargo.toml\`): every contender is a loop over"
    echo "arrays in one process, timed in turn each round (a shared machine's load slows all alike); the"
    echo "best time per item is kept. Before timing, every aether contender's output is compared with the"
    echo "hand-written reference item by item: all of them gave the reference's bits on every item (the run"
    echo "stops otherwise). The peers follow no contract; the last column counts their items whose bits"
    echo "differ from the contract's (other fold orders, fused products, other inverses)."
    echo
    echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S'); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- c_core bench || echo ' (with changes)')"
    echo "- machine: $(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n1), $(nproc) CPUs"
    echo "- $(gcc --version | head -n1); $(clang --version | head -n1); $(rustc --version)"
    echo "- C flags (aether, cglm and the loops alike): \`$cflags\`; cglm $(dpkg-query -W -f='${Version}' libcglm-dev 2>/dev/null || echo '?') (Debian: its inline functions, and as \"cglm object\" its shipped \`libcglm.so.0\`, \`glmc_*\` called per item); glam $(sed -n '/^name = "glam"/{n;s/version = "\(.*\)"/\1/p}' bench/Cargo.lock) (Rust release profile, no target-cpu flags: SSE2)"
    echo "- aether \"object\": \`aether_core.c\` compiled on its own and called per item through \`aether_core.h\`;"
    echo "  \"object LTO\": \`aether_core.c\` compiled with \`-flto -DAETHER_LTO\` and linked with the loop (also \`-flto\`), as a consumer's"
    echo "  link-time optimisation links them (the core's symbols hidden: in a partial link gcc keeps a global function"
    echo "  interposable, and does not inline it);"
    echo "  \"header-only\": \`#define AETHER_HEADER_ONLY\` before the header, the core inlined into the loop;"
    echo "  \"batch aos\" / \"batch soa\": \`aether_batch.c\` compiled on its own, one call of \`aether_<fn>_aos\` (the"
    echo "  core's structs) or \`aether_<fn>_soa\` (component planes, component c of item i at [c * n + i]) for all n items"
    echo "- ratios: header-only ÷ the faster of cglm (same compiler) and glam; object ÷ cglm (same compiler;"
    echo "  glam for the f64 operations, which cglm has not) and ÷ cglm's object (a call per item on both sides; Debian"
    echo "  builds libcglm for baseline x86-64, SSE2); the array sums ÷ a plain loop, and a Kahan loop ÷ them;"
    echo "  the elementary functions ÷ glibc's libm (same compiler) and ÷ libmvec (glibc's SIMD forms, which gcc"
    echo "  calls when it vectorises the same loop under \`-O3 -ffast-math -fopenmp-simd\`: the platform's fast path)."
    echo "  Their inputs: sin, cos, tan, atan and atan2 over [-100, 100], exp 80 x and exp2 120 x (x in [-1, 1]),"
    echo "  log and log2 over [0, 100], asin and acos over [-1, 1], pow of [0, 10] to [-10, 10]; timed in cache only"
    echo
    echo "## n = 1024 (in cache)"
    echo
    cat "$tmp/small.md"
    echo
    echo "The structure-of-arrays forms of the matrix operations at n = 1000: at n = 1024 every component"
    echo "plane starts 4 KiB after the one before, so the 24 to 48 planes a vector step touches map to one"
    echo "L1 set and evict each other (a property of planes whose length is a multiple of 1024, not of the code)."
    echo
    grep '^| operation' "$tmp/small.md" | sed -n 2p
    echo "|---|---|---|---|---|---|---|---|---|---|"
    cat "$tmp/pad.md"
    echo
    echo "## n = $big (memory)"
    echo
    echo "Best of 3 rounds, one operation's arrays in memory at a time."
    echo
    cat "$tmp/big-tables.md"
    echo
    echo "## Instructions per item (callgrind, n = 1024)"
    echo
    echo "\`valgrind --tool=callgrind\`, the inclusive count of each contender's loop over its two runs,"
    echo "divided by 2 × 1024 (items, or elements for the sums)."
    echo
    cat "$tmp/counts.md"
} >"$report"
echo "bench: wrote $report in $((SECONDS - t0)) s"

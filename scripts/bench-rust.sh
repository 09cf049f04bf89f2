#!/usr/bin/env bash
# The generated Rust core (rust_core/, aether-core) against glam 0.34, the libm crate and Rust's
# std (issue 46, "Speed"): bench/rust-core, a member of the bench workspace without its C build.
# Every contender is a loop over arrays of n items, all interleaved in one process (best of R
# rounds); before timing, the Rust core's output (its functions and its operators) is compared
# with the hand-written reference item by item (a differing bit stops the run).
#
#   scripts/bench-rust.sh --check       CI (scripts/bench.sh --check runs it): formatting, clippy,
#                                       the bits at n = 1024 and n = 4099
#   scripts/bench-rust.sh [--report FILE] [--rounds R]
#                                       writes docs/reports/rust-core-performance.md (default): ns
#                                       per item at n = 1024, best of R = 21 rounds, built twice:
#                                       for the default target (x86-64, SSE2; RUSTFLAGS unset) and
#                                       with RUSTFLAGS="-C target-cpu=x86-64-v3" (its own target
#                                       directory, bench/target/x86-64-v3); and callgrind's
#                                       instructions per item of both builds
#
# Installs valgrind with apt-get for the report. Timings are a benchmark, not a test: this machine
# is shared, so the instruction counts are the figure that does not move with its load.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=apt.sh
source scripts/apt.sh

check=0
report=docs/reports/rust-core-performance.md
rounds=21
while [ $# -gt 0 ]; do
    case "$1" in
        --check) check=1; shift ;;
        --report) report=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "bench-rust: unknown argument $1 (see the top of scripts/bench-rust.sh)" >&2; exit 2 ;;
    esac
done

manifest=bench/Cargo.toml
pkg=aether-bench-rust-core

if [ "$check" = 1 ]; then
    cargo build -q --release --manifest-path "$manifest" -p "$pkg"
    # A member's formatting: `cargo fmt` on the workspace root checks the root package only.
    cargo fmt --manifest-path bench/rust-core/Cargo.toml -- --check
    cargo clippy -q --release --manifest-path "$manifest" -p "$pkg" -- -D warnings
    bin=bench/target/release/$pkg
    "$bin" --check --n 1024
    # An odd count: the array kernels' tails.
    "$bin" --check --n 4099
    exit 0
fi

command -v valgrind >/dev/null 2>&1 || apt_install valgrind

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# The operations that have batched forms in the report.
batched_ops="vec3f_dot vec3f_normalize vec4f_dot quatf_mul mat4f_mul mat4f_mul_vec mat4f_transpose"
: >"$tmp/n1000"
# name, target directory, RUSTFLAGS
builds=("default|bench/target|" "x86-64-v3|bench/target/x86-64-v3|-C target-cpu=x86-64-v3")
for b in "${builds[@]}"; do
    IFS='|' read -r name dir flags <<<"$b"
    if [ -n "$flags" ]; then
        env -u CARGO_ENCODED_RUSTFLAGS RUSTFLAGS="$flags" CARGO_TARGET_DIR="$dir" cargo build -q --release --manifest-path "$manifest" -p "$pkg"
    else
        env -u CARGO_ENCODED_RUSTFLAGS -u RUSTFLAGS CARGO_TARGET_DIR="$dir" cargo build -q --release --manifest-path "$manifest" -p "$pkg"
    fi
    bin=$dir/release/$pkg
    # The bits of this build first (the timed run checks them again before it times anything).
    "$bin" --check --n 4099 >"$tmp/$name.bits"
    "$bin" --markdown --n 1024 --rounds "$rounds" >"$tmp/$name.md"
    # The batched forms again at n = 1000: a _soa form's component arrays lie n floats apart, so at
    # n = 1024 all its streams share one offset in a 4 KiB page (see the report's note).
    for op in $batched_ops; do
        "$bin" --only "$op" --n 1000 --rounds "$rounds" | awk -v op="$op" -v build="$name" '
            /^  (aether|aether _aos|aether _soa|glam) +[0-9.]+ ns/ {
                who = $0; sub(/^  /, "", who); sub(/ +[0-9.]+ ns.*/, "", who)
                t = $0; sub(/ ns.*/, "", t); sub(/.* /, "", t); print build, op, who, t }' >>"$tmp/n1000"
    done
    # Callgrind on a copy without debug information: each loop is then one function (with line
    # tables, callgrind splits a function's cost by the source file of its inlined code).
    objcopy --strip-debug "$bin" "$tmp/$name.bin"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.cg" "$tmp/$name.bin" --callgrind --n 1024 >/dev/null 2>"$tmp/$name.cglog"
    callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$name.cg" 2>/dev/null |
        sed -n 's/^ *\([0-9,]*\) .*???:bench_\([a-z0-9_]*\) .*/\2 \1/p' | tr -d ',' >"$tmp/$name.raw"
    # rustc merges loops of identical machine code into one function (aliases at one address), and
    # callgrind names one of them: every alias gets its count, and the merged loops are listed.
    nm "$tmp/$name.bin" | awk '$3 ~ /^bench_/ { print $1, substr($3, 7) }' >"$tmp/$name.syms"
    awk -v merged="$tmp/$name.merged" '
        FNR == NR { at[$2] = $1; names[$1] = names[$1] " " $2; next }
        {
            k = split(names[at[$1]], all, " ")
            if (k == 0) { print; next }
            for (i = 1; i <= k; i++) print all[i], $2
            if (k > 1) { line = all[1]; for (i = 2; i <= k; i++) line = line " = " all[i]; print line >merged }
        }' "$tmp/$name.syms" "$tmp/$name.raw" >"$tmp/$name.counts"
    touch "$tmp/$name.merged"
done

# Instructions per item: each loop ran twice on 1024 items (elements, for the array kernels).
bench/target/release/$pkg --list >"$tmp/ops"
awk '
    FNR == 1 { b++ }
    b == 1 { order[++nop] = $1; seen[$1] = 1; next }
    {
        name = $1; n = $2
        if (name ~ /^aether_op_/) { who = "aether operator"; op = substr(name, 11) }
        else { who = substr(name, 1, index(name, "_") - 1); op = substr(name, index(name, "_") + 1) }
        c[b - 1, op, who] = n / 2048
        if (!(op in seen)) { seen[op] = 1; order[++nop] = op }
    }
    function cell(k, op, who) { return ((k, op, who) in c) ? sprintf("%.1f", c[k, op, who]) : "-" }
    function ratio(k, op, a, g) { return ((k, op, a) in c && (k, op, g) in c && c[k, op, g] > 0) ? sprintf("%.2f", c[k, op, a] / c[k, op, g]) : "-" }
    END {
        print "| operation | aether | aether operator | glam | aether ÷ glam | aether (v3) | aether operator (v3) | glam (v3) | aether ÷ glam (v3) |"
        print "|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= nop; i++) {
            o = order[i]
            if (o ~ /_array$/ || o ~ /^f(32|64)_/) continue
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o, cell(1, o, "aether"), cell(1, o, "aether operator"), cell(1, o, "glam"),
                ratio(1, o, "aether", "glam"), cell(2, o, "aether"), cell(2, o, "aether operator"), cell(2, o, "glam"), ratio(2, o, "aether", "glam")
        }
        print ""
        print "Per element, the array kernels:"
        print ""
        print "| operation | aether | plain loop | glam Vec4 loop | Kahan loop | aether (v3) | plain loop (v3) | glam Vec4 loop (v3) | Kahan loop (v3) |"
        print "|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= nop; i++) {
            o = order[i]
            if (o !~ /_array$/) continue
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o, cell(1, o, "aether"), cell(1, o, "plain"), cell(1, o, "glam"), cell(1, o, "kahan"),
                cell(2, o, "aether"), cell(2, o, "plain"), cell(2, o, "glam"), cell(2, o, "kahan")
        }
        print ""
        print "Per call, the elementary functions:"
        print ""
        print "| function | aether | libm crate | std | aether (v3) | libm crate (v3) | std (v3) |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= nop; i++) {
            o = order[i]
            if (o !~ /^f(32|64)_/ || o ~ /_array$/) continue
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", o, cell(1, o, "aether"), cell(1, o, "libm"), cell(1, o, "std"),
                cell(2, o, "aether"), cell(2, o, "libm"), cell(2, o, "std")
        }
    }' "$tmp/ops" "$tmp/default.counts" "$tmp/x86-64-v3.counts" >"$tmp/counts.md"

# The headline: aether ÷ glam per operation, time on both builds, beside the instruction counts.
awk -F'|' '
    FNR == 1 { b++ }
    /^\| [a-z0-9_]+( \(against [^|]*\))? \|/ && NF == 9 && $2 !~ /^ (f(32|64)_|operation |function )/ { op = $2; gsub(/^ +| +$/, "", op); q = $6; gsub(/ /, "", q); r[b, op] = q; if (b == 1) order[++n] = op }
    END {
        print "| operation | time aether ÷ glam (default) | time aether ÷ glam (x86-64-v3) | within 1.2x on both |"
        print "|---|---|---|---|"
        for (i = 1; i <= n; i++) {
            o = order[i]; a = r[1, o]; v = r[2, o]
            ok = (a + 0 <= 1.2 && v + 0 <= 1.2) ? "yes" : "**no**"
            printf "| %s | %s | %s | %s |\n", o, a, v, ok
        }
    }' "$tmp/default.md" "$tmp/x86-64-v3.md" >"$tmp/headline.md"

{
    echo "_Generated by \`scripts/bench-rust.sh\` in $((SECONDS - t0)) s; do not edit by hand._"
    echo
    echo "# The Rust core against glam"
    echo
    echo "bench/rust-core (\`scripts/bench-rust.sh\`; CI runs \`scripts/bench-rust.sh --check\` from \`scripts/bench.sh --check\`):"
    echo "every contender is a loop over arrays of n = 1024 items (\`bench_<who>_<op>\`, never inlined), all of them"
    echo "timed in turn each round in one process (a shared machine's load slows all alike); the best time"
    echo "per item of $rounds rounds is kept. aether's loops call the generated core (\`aether_vec3f_dot\`,"
    echo "\`aether_mat4f_mul\`, ...; \"aether operator\" the same through \`a + b\`, \`q * q\`, \`m * m\`, \`m * v\`);"
    echo "glam's call the same operation on glam's types, its inputs converted once before timing (glam's"
    echo "quaternions are (x, y, z, w), its matrices column-major). Before timing, every aether loop's output is"
    echo "compared with the hand-written reference (\`aether_reference::flat::lookup\`) item by item, on both builds:"
    echo "all equal the reference's bits (the run stops otherwise; $(sed 's/^aether-bench-rust-core: bits: //' "$tmp/default.bits") on the default build,"
    echo "the same on x86-64-v3). glam follows no contract: the tables count its items whose bits differ."
    echo
    echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S'); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- rust_core bench || echo ' (with changes in rust_core/ or bench/)')"
    echo "- machine: $(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n1), $(nproc) CPUs, shared (load average $load0 at the start)"
    echo "- $(rustc --version); glam $(sed -n '/^name = "glam"/{n;s/version = "\(.*\)"/\1/p}' bench/Cargo.lock), libm $(sed -n '/^name = "libm"/{n;s/version = "\(.*\)"/\1/p}' bench/Cargo.lock) (crates.io); release profile"
    echo "- builds: **default**: \`cargo build --release --manifest-path bench/Cargo.toml -p $pkg\` (x86-64: SSE2, RUSTFLAGS unset);"
    echo "  **x86-64-v3**: the same with \`RUSTFLAGS=\"-C target-cpu=x86-64-v3\" CARGO_TARGET_DIR=bench/target/x86-64-v3\` (AVX2, FMA:"
    echo "  rustc never contracts, so the bits are the same)"
    echo "- each run: \`$pkg --markdown --n 1024 --rounds $rounds\`"
    echo "- the targets (issue 46): every per-item operation within 1.2x of glam; the batched forms (here the faster"
    echo "  of \`_aos\` and \`_soa\`) no slower than glam's loop; the array kernels no slower than a"
    echo "  glam loop (here: four lanes in a \`Vec4\`/\`DVec4\`, the fastest loop a glam user writes without SIMD intrinsics;"
    echo "  the plain one-accumulator loop and Kahan's loop are beside it)"
    echo
    echo "Reading the per-item table. mat4f_mul: on x86_64 each row of the result is the rows of b, loaded"
    echo "whole, times a's elements, each broadcast by a shuffle of a's row (the contract's order, the same"
    echo "roundings as glam's column form). Broadcasting from memory instead (a scalar load and a shuffle per"
    echo "element) made the register allocator spill a row of a through the stack in pieces and reload it"
    echo "whole, a store-forwarding stall per item: 2.5x glam's time at SSE2 until the row shuffles. mat4f_mul_vec:"
    echo "the contract folds row r as m[r][0] v[0] + m[r][1] v[1] + ..., so with the C core's row-major"
    echo "matrices four lanes need the matrix's columns: the core multiplies the rows by v and transposes the"
    echo "products (eight shuffles), where glam's column-major matrix needs four broadcasts; the loop is bound"
    echo "by the shuffle units (about 1.4x glam at SSE2). Its structure-of-arrays batch has no shuffle at all."
    echo "vec4f_dot: one multiply, then the chain fold in lane 0 (three shuffles, three adds); glam adds pairwise"
    echo "(two of each), which is why 396 of its 1024 results are not the contract's. Three shuffles are the fewest"
    echo "for the chain: each of p1, p2, p3 must reach the running sum's lane, and only p0 starts there (taking p1"
    echo "and p3 as scalar products from memory instead trades two shuffles for four loads and two multiplies, and"
    echo "measured the same). quatf_mul: the four lanes of the result are one chain each, w's subtracting where x's"
    echo "adds: every lane adds, the subtracting lanes' products with their sign bit flipped (x - y is x + (-y) in"
    echo "IEEE 754), each product a broadcast of a's component times a shuffle of b (seven shuffles, as glam's)."
    echo "vec3f_normalize: the contract's normalize returns an input it cannot normalize (n > 0 false) unchanged,"
    echo "by one select on the divisor (n, or 1 where n > 0 is false; x * (1 / 1) is x), which glam's \`normalize\` has"
    echo "not (it returns NaN or infinities there); rustc vectorises both loops across four items. With a select per"
    echo "component, as the contract first stated it, the loop took 1.29 times glam's at SSE2; one select, 1.13."
    echo "glam's guarded call, which returns a fallback instead (\`normalize_or(x)\`), is the row beside it."
    echo "The two per-item gaps left at SSE2 are the contract's order against glam's: vec4f_dot needs seven"
    echo "floating-point instructions per item (one multiply, three moves into lane 0, three adds) where glam's"
    echo "pairwise sum needs five, and mat4f_mul_vec fifteen (four multiplies, eight shuffles, three adds) where"
    echo "glam's column-major form needs eleven (four broadcasts); both loops are bound by those instructions"
    echo "(a scalar body, 1.10 ns for vec4f_dot, and a store and reloads of the products, 1.13, were slower)."
    echo "The structure-of-arrays forms have neither cost (see the batched tables). Two loops of the same"
    echo "machine code also took different times when their arrays lay differently (4 KiB aliasing): every"
    echo "contender's arrays lie at the same offsets in a page, except the \`_soa\` forms' (plain vectors). A \`_soa\`"
    echo "form's component arrays are n floats apart by its layout, 4 KiB at n = 1024, so all its streams lie at one"
    echo "offset in a page: on an AMD EPYC its quatf_mul loop took about three times as long at n = 1024 as at n = 1000"
    echo "(\`aether-bench-rust-core --only quatf_mul --n 1000\`), the same machine code."
    echo
    echo "## Summary"
    echo
    cat "$tmp/headline.md"
    echo
    echo "On the default build:"
    echo
    grep '^- ' "$tmp/default.md"
    echo
    echo "On x86-64-v3:"
    echo
    grep '^- ' "$tmp/x86-64-v3.md"
    echo
    echo "## Default target (x86-64, SSE2)"
    echo
    grep -v '^- ' "$tmp/default.md"
    echo
    echo "## x86-64-v3 (\`-C target-cpu=x86-64-v3\`)"
    echo
    grep -v '^- ' "$tmp/x86-64-v3.md"
    echo
    echo "## The batched forms at n = 1000"
    echo
    echo "The same loops at n = 1000 (\`$pkg --only OP --n 1000 --rounds $rounds\`, one process per operation),"
    echo "where the \`_soa\` forms' component arrays do not all lie at one offset in a 4 KiB page. ns per item."
    echo
    awk '
        { t[$1, $2, $3 ($4 == "_aos" || $4 == "_soa" ? " " $4 : "")] = (NF == 5 ? $5 : $4); if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
        function best(b, o,   a, x) { a = t[b, o, "aether _aos"]; x = t[b, o, "aether _soa"]; return (x != "" && x + 0 < a + 0) ? x : a }
        END {
            print "| operation | build | aether per item | aether _aos | aether _soa | glam loop | best batched ÷ glam | no slower |"
            print "|---|---|---|---|---|---|---|---|"
            for (i = 1; i <= n; i++) for (k = 1; k <= 2; k++) {
                b = (k == 1 ? "default" : "x86-64-v3"); o = order[i]; g = t[b, o, "glam"]
                if (g == "") continue
                r = sprintf("%.2f", best(b, o) / g)
                printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", o, b, t[b, o, "aether"], t[b, o, "aether _aos"], t[b, o, "aether _soa"], g, r, (r + 0 <= 1.0 ? "yes" : "**no**")
            }
        }' "$tmp/n1000"
    echo
    echo "## Instructions per item (callgrind, n = 1024)"
    echo
    echo "\`valgrind --tool=callgrind\` on each build (its debug information stripped, so that each loop is one"
    echo "function), \`--callgrind\`: every loop twice on 1024 items, nothing else timed; the inclusive count of"
    echo "each loop divided by 2 × 1024."
    echo
    cat "$tmp/counts.md"
    echo
    echo "Loops that rustc merged into one function (the same machine code; callgrind counts them once, each"
    echo "is shown with that count):"
    echo
    echo "- default: $(sed 's/bench_//g' "$tmp/default.merged" | sort -u | paste -sd ';' | sed 's/;/; /g')"
    echo "- x86-64-v3: $(sed 's/bench_//g' "$tmp/x86-64-v3.merged" | sort -u | paste -sd ';' | sed 's/;/; /g')"
} >"$report"
echo "bench-rust: wrote $report in $((SECONDS - t0)) s"

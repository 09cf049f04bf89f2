#!/usr/bin/env bash
# The C core against cglm on aarch64 (issue 50, "the aarch64 table"): instructions per item, not
# time. bench/c/contenders.c's loops (the core's object, the header-only core, cglm 0.8.8's inline
# functions, which take NEON where __ARM_NEON is defined) are cross-compiled for aarch64 at -O2 with
# no -march (gcc and clang), linked with bench/c/count_main.c, and run under qemu-user with one
# guest instruction per translation block and every executed block logged (-singlestep -d
# exec,nochain). A loop's count is (instructions of a run of 3 passes - those of a run of 1 pass)
# / (2 N): the set-up, the loader and the exit cancel out, and calls into the core's object count.
# qemu's wall time means nothing here; an instruction count is exact and the same on every run,
# though it weighs a shuffle, a load and a multiply alike (it is not a cycle count).
#
#   scripts/bench-aarch64.sh [--report FILE] [--n N]   (default docs/reports/performance-aarch64.md, N 256)
#   scripts/bench-aarch64.sh --check                   the counts, printed, and the harness's checks
#
# Installs gcc-aarch64-linux-gnu, qemu-user and libcglm-dev with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=apt.sh
source scripts/apt.sh
report=docs/reports/performance-aarch64.md
n=256
check=0
while [ $# -gt 0 ]; do
    case "$1" in
        --report) report=$2; shift 2 ;;
        --n) n=$2; shift 2 ;;
        --check) check=1; shift ;;
        *) echo "bench-aarch64: unknown option $1" >&2; exit 2 ;;
    esac
done
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
[ -f /usr/include/cglm/cglm.h ] || need+=(libcglm-dev)
command -v clang >/dev/null || need+=(clang)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

t0=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cglm's headers alone on the include path (not the host's /usr/include).
mkdir -p "$tmp/inc"
ln -s /usr/include/cglm "$tmp/inc/cglm"
sysroot=/usr/aarch64-linux-gnu
compilers=("gcc|aarch64-linux-gnu-gcc" "clang|clang --target=aarch64-linux-gnu")
flags="-O2"
for c in "${compilers[@]}"; do
    IFS='|' read -r name cc <<<"$c"
    d=$tmp/$name
    mkdir -p "$d"
    common=($flags -std=c99 -Wall -Wextra -I c_core -isystem "$tmp/inc" -DBENCH_CC=cc)
    $cc "${common[@]}" -c c_core/aether_core.c -o "$d/core.o"
    $cc "${common[@]}" -DBENCH_KIND=obj -DBENCH_KIND_AETHER -c bench/c/contenders.c -o "$d/obj.o"
    $cc "${common[@]}" -DBENCH_KIND=inline -DBENCH_KIND_AETHER -DAETHER_HEADER_ONLY -c bench/c/contenders.c -o "$d/inline.o"
    $cc "${common[@]}" -DBENCH_KIND=cglm -DBENCH_KIND_CGLM -c bench/c/contenders.c -o "$d/cglm.o"
    $cc "${common[@]}" -c bench/c/count_main.c -o "$d/main.o"
    $cc $flags -static "$d/main.o" "$d/obj.o" "$d/inline.o" "$d/cglm.o" "$d/core.o" -lm -o "$d/count"
    # cglm takes its NEON paths only where the compiler defines __ARM_NEON (it does at aarch64's baseline).
    grep -q . <(echo | $cc -dM -E - | grep __ARM_NEON) || { echo "bench-aarch64: $name defines no __ARM_NEON" >&2; exit 1; }
done

count() { # binary loop passes: the guest instructions of one run
    qemu-aarch64 -singlestep -d exec,nochain -D "$tmp/trace" "$1" "$2" "$3" "$n" >/dev/null
    grep -c '^Trace' "$tmp/trace"
}
# The loops are the driver's table (count_main --list: cc_KIND/OP), in its order.
loops=$(qemu-aarch64 "$tmp/gcc/count" --list)
ops=$(echo "$loops" | sed 's|^cc_[a-z]*/||' | awk '!seen[$0]++' | tr '\n' ' ')
: >"$tmp/counts"
for c in "${compilers[@]}"; do
    IFS='|' read -r name _ <<<"$c"
    for loop in $loops; do
        kind=${loop%%/*}; kind=${kind#cc_}; op=${loop#*/}
        one=$(count "$tmp/$name/count" "$loop" 1)
        three=$(count "$tmp/$name/count" "$loop" 3)
        echo "$name $op $kind $(awk -v a="$one" -v b="$three" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / (2 * n) }')" >>"$tmp/counts"
    done
done

table() {
    awk -v ops="$ops" '
        { c[$1, $2, $3] = $4 }
        function r(x, y) { return (x != "" && y != "" && y > 0) ? sprintf("%.2f", x / y) : "-" }
        END {
            print "| operation | gcc object | gcc header-only | gcc cglm | gcc header-only ÷ cglm | gcc object ÷ cglm | clang object | clang header-only | clang cglm | clang header-only ÷ cglm | clang object ÷ cglm |"
            print "|---|---|---|---|---|---|---|---|---|---|---|"
            k = split(ops, o, " ")
            for (i = 1; i <= k; i++) {
                p = o[i]; line = "| " p
                for (j = 1; j <= 2; j++) {
                    cc = (j == 1 ? "gcc" : "clang")
                    ob = c[cc, p, "obj"]; hd = c[cc, p, "inline"]; cg = c[cc, p, "cglm"]
                    # An adjugate inverse against cglm'"'"'s inverse (an adjugate too).
                    if (p ~ /_inverse_adjugate$/) { q = p; sub(/_adjugate$/, "", q); cg = c[cc, q, "cglm"] }
                    line = line sprintf(" | %s | %s | %s | %s | %s", ob, hd, (cg == "" ? "-" : cg), r(hd, cg), r(ob, cg))
                }
                print line " |"
            }
        }' "$tmp/counts"
}
if [ "$check" = 1 ]; then
    table
    echo "bench-aarch64: counted $(wc -l <"$tmp/counts") loops in $((SECONDS - t0)) s"
    exit 0
fi
{
    echo "_Generated by \`scripts/bench-aarch64.sh\` in $((SECONDS - t0)) s; do not edit by hand._"
    echo
    echo "# The C core against cglm on aarch64: instructions per item"
    echo
    echo "bench/c/contenders.c's loops cross-compiled for aarch64 at \`$flags\` with no \`-march\` (NEON is part of"
    echo "the baseline), each linked with bench/c/count_main.c and run under qemu-user with one guest"
    echo "instruction per translation block and every executed block logged (\`qemu-aarch64 -singlestep -d"
    echo "exec,nochain\`). A loop's figure is the instructions of a run of 3 passes over n = $n items less those"
    echo "of a run of 1 pass, divided by 2n: exact, the same on every run, and free of the set-up and the loader;"
    echo "the object's figure includes the call. An instruction count weighs every instruction alike (a"
    echo "shuffle, a load, a multiply, a divide), so it is not a time; qemu's own wall time means nothing."
    echo
    echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S'); commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- c_core bench || echo ' (with changes in c_core/ or bench/)')"
    echo "- $(aarch64-linux-gnu-gcc --version | head -n1); $(clang --version | head -n1) (\`--target=aarch64-linux-gnu\`); $(qemu-aarch64 --version | head -n1)"
    echo "- cglm: Debian's libcglm-dev headers ($(dpkg-query -W -f '${Version}' libcglm-dev 2>/dev/null || echo 'version unknown')), inline functions (its NEON paths)"
    echo "- the core: \`aether_core.c\` compiled on its own (object, one call per item) and \`AETHER_HEADER_ONLY\`"
    echo "  (inlined into the loop); the adjugate inverses are set against cglm's inverse (an adjugate as well);"
    echo "  the binary64 rows have no cglm peer"
    echo "- the target (issue 50): header-only within 1.2 times cglm, the object within 1.5 times cglm's"
    echo "  (here cglm's inline functions: Debian ships no aarch64 cglm object on this machine); the LU inverse"
    echo "  (mat3f_inverse, mat4f_inverse) is exempt, its adjugate sibling is not"
    echo
    table
} >"$report"
echo "bench-aarch64: wrote $report in $((SECONDS - t0)) s"

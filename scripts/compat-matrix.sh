#!/usr/bin/env bash
# Compatibility matrix of the generated C core: builds and runs the pure-C corpus runner
# (c_core/check, `make check`) with many compilers, optimisation levels, target CPUs and
# -ffp-contract settings, each cell with -Wall -Wextra -Wpedantic -Werror in the compiler's
# default dialect (GNU C, so gcc's default is -ffp-contract=fast), and writes a
# Markdown report. Exits 0 when every cell passes, 1 when a cell fails (printing that cell's
# full output), 2 on a set-up error (bad option, a tool that cannot be installed).
#
# Usage: scripts/compat-matrix.sh [--quick | --ci] [--options-only] [--report FILE] [--jobs N]
#        scripts/compat-matrix.sh --install-only
#   --report FILE  where the Markdown report goes (default: docs/reports/compat-matrix.md)
#   --quick        only the -O2 cells of the main matrix, the -m32 cells and one aarch64 cell
#   --ci           what .ci/run runs (CI's time is bounded): every kind of cell, the four ISAs,
#                  every control and the options section, with fewer optimisation levels:
#                  the main matrix at -O2 (each contraction setting once per compiler:
#                  off and the default on x86-64, fast on native) plus {gcc, clang} -O3
#                  -march=native -ffp-contract=fast, the extra cells at -O2, three aarch64 (one clang), two
#                  wasm32 and two C++ cells. The full run (this report) has them all.
#   --options-only only the options section (gcc and clang, one cell per option; see below),
#                  written into the report's options section, the rest of the report kept
#   --jobs N       cells run in parallel (default: nproc)
#   --install-only install the compilers, emulators and runtimes the cells need (section 1) and
#                  stop (.ci/run does this while the test suite builds)
#   -h, --help     this text
#
# Cells (the full run):
#   main:    {gcc, clang} x {-O0, -O2, -O3} x {-march=x86-64, -march=native}
#            x {-ffp-contract=off, (no flag), -ffp-contract=fast}                     36 cells
#   extra:   {gcc, clang} x {-O2, -O3} -march=x86-64 -mfma -ffp-contract=fast
#            (baseline x86-64 has no FMA, so its contract=fast cells cannot fuse)       4 cells
#   i386:    gcc -m32 -msse2 -mfpmath=sse -O2, and the same with clang when clang -m32
#            links here                                                              1-2 cells
#   aarch64: aarch64-linux-gnu-gcc {-O2, -O3} x {(no flag), -ffp-contract=fast}, and clang
#            --target=aarch64-linux-gnu -O3 -ffp-contract=fast -Werror, run
#            under qemu-aarch64 -L /usr/aarch64-linux-gnu                               5 cells
#   tcc:     tcc -O2 on x86_64 (no FLT_EVAL_METHOD; SSE code)                            1 cell
#   wasm32:  clang --target=wasm32-wasi {-O2, -O3 -ffp-contract=fast} x {(no flag),
#            -msimd128}, run under Node's WASI (scripts/wasi-run.mjs)                   4 cells
#   c++:     the core and runner compiled as C++ (-x c++): g++ and clang++ x {-std=c++11,
#            -std=c++17}, one optimisation level each                                   4 cells
#   header-only: the core included by the runner's files as static inline functions
#            (make HEADER_ONLY=1, AETHER_HEADER_ONLY), so it is inlined with their flags:
#            {gcc, clang} x {-O2, -O3 -march=native -ffp-contract=fast}, g++ -std=c++11 x {-O2,
#            -O3 -march=native} (the per-item vector forms as C++), clang++ -std=c++11 -O3
#            -march=native -ffp-contract=fast (clang's form for the loop vectoriser as C++),
#            and clang -O3 with -DAETHER_NO_VECTOR_INLINE (System V)                      8 cells
#   batch:   the batched forms (make BATCH=1, runner --batch soa|aos; scripts/c-random.sh runs
#            more on x86_64): clang -O3 -march=native -ffp-contract=fast on x86_64, aarch64,
#            i386, wasm32 -msimd128, tcc                                                5 cells
#   lto:     the shipped object with link-time optimisation, which can now inline it:
#            {gcc =auto, clang -fuse-ld=lld} -O3 -march=native -ffp-contract=fast -flto, built
#            for calls and built to be inlined (-DAETHER_LTO)                           4 cells
#   isa:     s390x (big-endian), ppc64le, riscv64, armhf (-mfpu=neon-vfpv4: FMA), each
#            <cross>-gcc -O2 -ffp-contract=fast under qemu-user                          4 cells
#   (--quick keeps tcc, wasm32 -O2 -msimd128 and g++ -std=c++11; not the four ISAs.)
# The header-only form has its own guard-disabled control, and so has gcc -flto (and its
# AETHER_LTO object, its vectorising guard alone off): the guards are
# what holds the inlined core's bits. The vectorising guard and the per-item vector forms' guard
# each have a control that removes that guard alone. Each ISA has its guard-disabled control (-DAETHER_UNSAFE_ALLOW_CONTRACTION with
# -ffp-contract=fast), which must report mismatches; tcc and wasm32 without SIMD have one that
# must report none (they do not fuse: nothing for the guard to do there).
#   options: {gcc, clang} x each option that can change a bit, -O2 -march=x86-64; a cell whose
#            corpus fails while the self-test says ok fails the run                    43 cells
#
# What is missing is installed with apt-get (through sudo when not root): clang, the gcc
# multilib (gcc-N-multilib for the installed gcc N, else gcc-multilib: the gcc-multilib
# metapackage conflicts with gcc-aarch64-linux-gnu on Debian and Ubuntu), gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross, qemu-user, tcc, lld (wasm-ld), wasi-libc, libclang-rt-N-dev-wasm32 (for
# clang N), nodejs, and gcc-<isa> with libc6-dev-<isa>-cross for the four ISAs. Runnable from any
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '/^# Usage:/,/^#   -h, --help/s/^# \{0,1\}//p' "$0"; }

report=docs/reports/compat-matrix.md
quick=0
ci=0
options_only=0
install_only=0
jobs_max=$(nproc 2>/dev/null || echo 2)
command_line="scripts/compat-matrix.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case "$1" in
        --report) [ $# -ge 2 ] || { echo "compat-matrix: --report needs a file" >&2; exit 2; }; report=$2; shift 2 ;;
        --report=*) report=${1#--report=}; shift ;;
        --quick) quick=1; shift ;;
        --ci) ci=1; shift ;;
        --options-only) options_only=1; shift ;;
        --install-only) install_only=1; shift ;;
        --jobs) [ $# -ge 2 ] || { echo "compat-matrix: --jobs needs a number" >&2; exit 2; }; jobs_max=$2; shift 2 ;;
        --jobs=*) jobs_max=${1#--jobs=}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "compat-matrix: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
done
case "$jobs_max" in ''|*[!0-9]*|0) echo "compat-matrix: --jobs needs a positive number" >&2; exit 2 ;; esac

started=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compat-matrix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------------------------------------
# 0. The options section: one cell per (compiler, option that can change a bit), -O2
#    -march=x86-64, each classified as
#      refused       the build stops with the core's #error (its text is recorded)
#      held          it builds, 0 corpus mismatches, the self-test says ok
#      caught        corpus mismatches and the self-test fails (it names the rule or the cause)
#      flagged       0 mismatches but the self-test fails (not a silent break)
#      SILENT BREAK  corpus mismatches and the self-test says ok: the script fails
#    The "unguarded" cells build the core with -DAETHER_UNSAFE_ALLOW_FP_OPTIONS (the in-file
#    controls off): they show that where the pragmas are all that holds the bits, the
#    self-test alone would still catch the option. Writes the table between the
#    <!-- options:begin --> and <!-- options:end --> markers of the report.
# ---------------------------------------------------------------------------------------------
options_section() { # out-file; returns 1 on a silent break or a cell that cannot be classified
    local out=$1 cells=$tmp/option-cells i=0 bad=0 n=0
    local base='-O2 -march=x86-64'
    : >"$cells"
    local o
    for o in -ffast-math -Ofast -ffinite-math-only -fassociative-math \
            "-fassociative-math -fno-signed-zeros -fno-trapping-math" -freciprocal-math -fno-signed-zeros \
            -funsafe-math-optimizations "-ffp-contract=fast -mfma" "-ffp-contract=on -mfma" -ffp-contract=off \
            -fno-math-errno -fno-trapping-math -fno-rounding-math -frounding-math; do
        printf 'guarded|gcc|%s\n' "$o" >>"$cells"
    done
    for o in -ffast-math -Ofast -ffinite-math-only -fno-honor-nans -fno-honor-infinities -fassociative-math \
            "-fassociative-math -fno-signed-zeros -fno-trapping-math" -freciprocal-math -fno-signed-zeros \
            -funsafe-math-optimizations -fapprox-func -fdenormal-fp-math=preserve-sign -fdenormal-fp-math=positive-zero \
            "-ffp-contract=fast -mfma" "-ffp-contract=on -mfma" -ffp-contract=off -fno-math-errno -fno-trapping-math \
            -fno-rounding-math -frounding-math; do
        printf 'guarded|clang|%s\n' "$o" >>"$cells"
    done
    # gcc has no in-file control left: -fassociative-math alone is inert unless an optimize
    # pragma or attribute applies it again, and then gcc defines __ASSOCIATIVE_MATH__ and the
    # core's #error refuses the build. This cell shows it: a `#pragma GCC optimize` before the
    # core (-include), as a consumer's file could have before the header-only include.
    printf 'pragma|gcc|%s\n' -fassociative-math >>"$cells"
    echo '#pragma GCC optimize("O2")' >"$tmp/gcc-optimize-pragma.h"
    # The options the in-file controls hold, with the controls off.
    for o in -fno-honor-nans -fno-honor-infinities -fassociative-math "-fassociative-math -fno-signed-zeros -fno-trapping-math" \
            -freciprocal-math -fno-signed-zeros -fapprox-func; do
        printf 'unguarded|clang|%s\n' "$o" >>"$cells"
    done
    option_cell() { # index, kind, cc, option
        local dir=$tmp/option-$1 extra=""
        [ "$2" = unguarded ] && extra=" -DAETHER_UNSAFE_ALLOW_FP_OPTIONS"
        [ "$2" = pragma ] && extra=" -include $tmp/gcc-optimize-pragma.h"
        mkdir -p "$dir/build"
        # No -Werror: gcc warns that -fassociative-math alone is disabled, and the cell is about bits.
        if make -s -C c_core/check CC="$3" CFLAGS="$base $4$extra" WARNINGS='-Wall -Wextra' LDFLAGS= \
                BUILD="$dir/build" all >"$dir/build.out" 2>&1; then
            "$dir/build/aether_check" --quiet >"$dir/out" 2>&1 || true
            echo built >"$dir/state"
        else
            echo failed >"$dir/state"
        fi
    }
    while IFS='|' read -r kind cc o; do
        i=$((i + 1))
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
        option_cell "$i" "$kind" "$cc" "$o" </dev/null &
    done <"$cells"
    wait || true
    local rows=$tmp/option-rows
    : >"$rows"
    i=0
    while IFS='|' read -r kind cc o; do
        i=$((i + 1)); n=$((n + 1))
        local dir=$tmp/option-$i state corpus_line cases mismatches selftest_line selftest result err
        state=$(cat "$dir/state" 2>/dev/null || echo failed)
        cases="-"; mismatches="-"; selftest="-"
        if [ "$state" = failed ]; then
            err=$(grep -m1 -o '#error "aether_core.c: [^"]*' "$dir/build.out" | cut -c9- || true)
            if [ -n "$err" ]; then
                result="refused: \"$(printf '%s' "$err" | cut -c1-150)...\""
            else
                result="FAIL: the build fails without the core's #error"
                bad=1
            fi
        else
            corpus_line=$(grep -m1 '^aether_check: corpus: ' "$dir/out" || true)
            cases=$(printf '%s' "$corpus_line" | sed -n 's/.* \([0-9]*\) cases.*/\1/p')
            mismatches=$(printf '%s' "$corpus_line" | sed -n 's/.* \([0-9]*\) mismatches.*/\1/p')
            selftest_line=$(grep -m1 '^aether_selftest' "$dir/out" || true)
            case "$selftest_line" in
                "aether_selftest: ok:"*) selftest=ok ;;
                "") selftest="(none)" ;;
                *) selftest="fails: $(printf '%s' "${selftest_line#aether_selftest: }" | cut -c1-160)..." ;;
            esac
            if [ -z "$mismatches" ] || [ "$selftest" = "(none)" ]; then
                result="FAIL: no corpus or self-test line"; bad=1
            elif [ "$mismatches" = 0 ] && [ "$selftest" = ok ]; then
                result="bits held"
            elif [ "$mismatches" != 0 ] && [ "$selftest" != ok ]; then
                result="caught (bits move, the self-test fails)"
            elif [ "$mismatches" = 0 ]; then
                result="flagged (bits held, the self-test fails)"
            else
                result="SILENT BREAK (bits move, the self-test says ok)"; bad=1
            fi
        fi
        local flags="\`$base $o\`"
        [ "$kind" = unguarded ] && flags="\`$base $o -DAETHER_UNSAFE_ALLOW_FP_OPTIONS\`"
        [ "$kind" = pragma ] && flags="\`$base $o\` with \`#pragma GCC optimize(\"O2\")\` first (\`-include\`)"
        printf '| %s | %s | %s | %s | %s | %s |\n' "$cc" "$flags" "$(printf '%s' "$result" | md_escape)" \
            "${cases:--}" "${mismatches:--}" "$(printf '%s' "$selftest" | md_escape)" >>"$rows"
        printf 'compat-matrix: options %-6s %-70s %s\n' "$cc" "$o$( [ "$kind" = unguarded ] && echo " (unguarded)")$( [ "$kind" = pragma ] && echo " (after an optimize pragma)")" "${result%%:*}"
        if [ "$bad" = 1 ] && [ ! -f "$dir/shown" ]; then touch "$dir/shown"; cat "$dir/build.out" "$dir/out" 2>/dev/null | tail -40 >&2; fi
    done <"$cells"
    {
        echo "<!-- options:begin -->"
        echo "## Options"
        echo
        echo "One cell per compiler and option that can change a bit (the fast-math family and its parts, the"
        echo "denormal and contraction options, and the harmless ones), \`$base\`, the corpus runner built"
        echo "with \`WARNINGS='-Wall -Wextra'\` (gcc warns that \`-fassociative-math\` alone is disabled)."
        echo "**refused**: the build stops with the core's \`#error\` (its text); **bits held**: 0 corpus"
        echo "mismatches and the self-test says ok; **caught**: corpus mismatches and the self-test fails,"
        echo "naming the rule or the cause. A cell whose corpus fails while the self-test says ok is a"
        echo "silent break and fails the script (\`scripts/compat-matrix.sh --options-only\` runs only this"
        echo "section). The rows with \`-DAETHER_UNSAFE_ALLOW_FP_OPTIONS\` build the core without its in-file"
        echo "control (clang \`#pragma float_control(precise, on)\`): where that pragma holds the bits, the"
        echo "self-test alone still catches the option. gcc has no in-file control (an optimize pragma would"
        echo "stop it inlining the core): \`-fassociative-math\` alone is inert there, and the row after an"
        echo "optimize pragma shows the one way it comes back being refused."
        echo
        echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S'); gcc: $(gcc --version | head -n1); clang: $(clang --version | head -n1)"
        echo
        echo "| compiler | flags | result | corpus cases | mismatches | self-test |"
        echo "|---|---|---|---|---|---|"
        cat "$rows"
        echo
        echo "$n cells; a silent break in none of them$( [ "$bad" = 1 ] && echo ': NO, see above' )."
        echo "<!-- options:end -->"
    } >"$out"
    return "$bad"
}
md_escape() { sed 's/|/\\|/g; s/`/'"'"'/g'; }

# Puts an options section into the report: between its markers, or at the end.
splice_options() { # section-file report
    if [ -f "$2" ] && grep -q '^<!-- options:begin -->' "$2"; then
        awk -v f="$1" '/^<!-- options:begin -->/ { while ((getline l < f) > 0) print l; skip = 1; next }
                       /^<!-- options:end -->/ { skip = 0; next } !skip' "$2" >"$2.new" && mv "$2.new" "$2"
    else
        mkdir -p "$(dirname "$2")"
        { [ -f "$2" ] && cat "$2" && echo; cat "$1"; } >"$2.new" && mv "$2.new" "$2"
    fi
}

if [ "$options_only" = 1 ]; then
    for tool in make gcc clang; do
        command -v "$tool" >/dev/null 2>&1 || { echo "compat-matrix: $tool is missing" >&2; exit 2; }
    done
    options_rc=0
    options_section "$tmp/options.md" || options_rc=1
    splice_options "$tmp/options.md" "$report"
    echo "compat-matrix: options section written to $report"
    [ "$options_rc" = 0 ] || { echo "compat-matrix: options: a silent break or an unclassified cell" >&2; exit 1; }
    exit 0
fi

# ---------------------------------------------------------------------------------------------
# 1. Tools: check each by the command or file it provides, install what is missing.
# ---------------------------------------------------------------------------------------------
# shellcheck source=scripts/apt.sh
source scripts/apt.sh

missing=()
command -v make >/dev/null 2>&1 || missing+=(make)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v clang >/dev/null 2>&1 || missing+=(clang)
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=(gcc-aarch64-linux-gnu)
[ -f /usr/aarch64-linux-gnu/include/stdio.h ] && [ -e /usr/aarch64-linux-gnu/lib/libm.so.6 ] || missing+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=(qemu-user)
have_multilib || missing+=(MULTILIB)
command -v tcc >/dev/null 2>&1 || missing+=(tcc)
command -v wasm-ld >/dev/null 2>&1 || missing+=(lld)
[ -f /usr/lib/wasm32-wasi/libc.a ] || [ -f /usr/share/wasi-sysroot/lib/wasm32-wasi/libc.a ] || missing+=(wasi-libc)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
clang_major=$(clang -dumpversion 2>/dev/null | cut -d. -f1 || true)
if [ -n "$clang_major" ] && [ ! -f "$(clang --target=wasm32-wasi -print-libgcc-file-name 2>/dev/null)" ]; then
    missing+=("libclang-rt-$clang_major-dev-wasm32")
fi
# The four ISAs under qemu-user: triplet|qemu|libc6-dev package suffix|extra CFLAGS.
isas='s390x-linux-gnu|qemu-s390x|s390x|
powerpc64le-linux-gnu|qemu-ppc64le|ppc64el|
riscv64-linux-gnu|qemu-riscv64|riscv64|
arm-linux-gnueabihf|qemu-arm|armhf|-mfpu=neon-vfpv4'
while IFS='|' read -r triplet _ libc _; do
    command -v "$triplet-gcc" >/dev/null 2>&1 || missing+=("gcc-$triplet")
    [ -f "/usr/$triplet/include/stdio.h" ] || missing+=("libc6-dev-$libc-cross")
done <<<"$isas"

installed_note="none (everything was there)"
if [ ${#missing[@]} -gt 0 ]; then
    packages=()
    for p in "${missing[@]}"; do
        if [ "$p" = MULTILIB ]; then packages+=("$(multilib_package)"); else packages+=("$p"); fi
    done
    apt_install "${packages[@]}"
    installed_note="${packages[*]}"
fi
for tool in make gcc clang aarch64-linux-gnu-gcc qemu-aarch64 tcc wasm-ld node g++ clang++; do
    command -v "$tool" >/dev/null 2>&1 || { echo "compat-matrix: $tool is still missing" >&2; exit 2; }
done
have_multilib || { echo "compat-matrix: gcc -m32 support (multilib) is still missing" >&2; exit 2; }
if [ "$install_only" = 1 ]; then
    echo "compat-matrix: installed: $installed_note"
    exit 0
fi

gcc_version=$(gcc --version | head -n1)
clang_version=$(clang --version | head -n1)
a64_version=$(aarch64-linux-gnu-gcc --version | head -n1)
qemu_version=$(qemu-aarch64 --version | head -n1)
tcc_version=$(tcc -v 2>&1 | head -n1)
node_version=$(node --version)
wasi_version=$(dpkg-query -W -f='${Version}' wasi-libc 2>/dev/null || echo unknown)
isa_versions=$(while IFS='|' read -r triplet _ _ _; do "$triplet-gcc" --version | head -n1; done <<<"$isas" | paste -sd';' - | sed 's/;/; /g')
cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n1)
native_march=$(gcc -march=native -Q --help=target 2>/dev/null | grep -- '-march=' | head -n1 | awk '{print $2}')
echo "compat-matrix: installed: $installed_note"
echo "compat-matrix: gcc:     $gcc_version"
echo "compat-matrix: clang:   $clang_version"
echo "compat-matrix: aarch64: $a64_version"
echo "compat-matrix: qemu:    $qemu_version"
echo "compat-matrix: tcc:     $tcc_version"
echo "compat-matrix: node:    $node_version (WASI); wasi-libc $wasi_version"
echo "compat-matrix: ISAs:    $isa_versions"
echo "compat-matrix: CPU:     ${cpu_model:-unknown}; gcc -march=native is -march=${native_march:-?}"

# clang -m32: included when it compiles and links a C99 program that uses libm here.
printf '#include <math.h>\n#include <stdio.h>\nint main(void) { volatile double x = 2.0; printf("%%g\\n", sqrt(x)); return 0; }\n' >"$tmp/m32.c"
clang_m32=0
if clang -std=c99 -m32 -msse2 -mfpmath=sse "$tmp/m32.c" -lm -o "$tmp/m32-clang" >"$tmp/m32-clang.log" 2>&1 \
        && "$tmp/m32-clang" >/dev/null 2>&1; then
    clang_m32=1
else
    echo "compat-matrix: clang -m32 does not link here; its cell is left out:" >&2
    cat "$tmp/m32-clang.log" >&2
fi

# ---------------------------------------------------------------------------------------------
# 2. The cells: kind|compiler|target|CFLAGS|RUN (one a line).
# ---------------------------------------------------------------------------------------------
cells=$tmp/cells
: >"$cells"
add() { printf '%s|%s|%s|%s|%s\n' "$@" >>"$cells"; }
# Slowest first (the ISAs under qemu, then -O3), so parallel slots drain evenly.
qemu_run='qemu-aarch64 -L /usr/aarch64-linux-gnu'
# RUN runs in c_core/check (make -C), hence the path.
wasi_run='node --no-warnings ../../scripts/wasi-run.mjs'
wasm_cc='clang --target=wasm32-wasi'
if [ "$quick" = 0 ]; then
    while IFS='|' read -r triplet qemu _ extra; do
        add isa "$triplet-gcc" "${triplet%%-*} (qemu-user)" "-O2${extra:+ $extra} -ffp-contract=fast" "$qemu -L /usr/$triplet"
    done <<<"$isas"
fi
if [ "$quick" = 1 ]; then
    add aarch64 aarch64-linux-gnu-gcc "aarch64 (qemu-user)" "-O2 -ffp-contract=fast" "$qemu_run"
elif [ "$ci" = 1 ]; then
    add aarch64 aarch64-linux-gnu-gcc "aarch64 (qemu-user)" "-O3 -ffp-contract=fast" "$qemu_run"
    add aarch64 aarch64-linux-gnu-gcc "aarch64 (qemu-user)" "-O2" "$qemu_run"
else
    for opt in -O3 -O2; do
        for fc in -ffp-contract=fast ""; do
            add aarch64 aarch64-linux-gnu-gcc "aarch64 (qemu-user)" "$opt${fc:+ $fc}" "$qemu_run"
        done
    done
fi
# clang for aarch64 (Apple silicon's compiler family), with -Werror: clang 14 ignores the core's
# float_control pragma there, with a warning the core silences, and its guards alone stop
# contraction.
[ "$quick" = 1 ] || add aarch64 "clang --target=aarch64-linux-gnu" "aarch64 (qemu-user)" "-O3 -ffp-contract=fast -Werror" "$qemu_run"
add i386 gcc "i386 (-m32)" "-m32 -msse2 -mfpmath=sse -O2" ""
if [ "$quick" = 1 ]; then
    add wasm32 "$wasm_cc" "wasm32 (WASI, Node)" "-O2 -msimd128" "$wasi_run"
    add c++ "g++ -std=c++11 -x c++" "x86_64 (C++11)" "-O2" ""
elif [ "$ci" = 1 ]; then
    add wasm32 "$wasm_cc" "wasm32 (WASI, Node)" "-O3 -msimd128 -ffp-contract=fast" "$wasi_run"
    add wasm32 "$wasm_cc" "wasm32 (WASI, Node)" "-O2" "$wasi_run"
    add c++ "g++ -std=c++11 -x c++" "x86_64 (C++11)" "-O2" ""
    add c++ "clang++ -std=c++17 -x c++" "x86_64 (C++17)" "-O3 -march=native -ffp-contract=fast" ""
else
    for simd in -msimd128 ""; do
        add wasm32 "$wasm_cc" "wasm32 (WASI, Node)" "-O3${simd:+ $simd} -ffp-contract=fast" "$wasi_run"
        add wasm32 "$wasm_cc" "wasm32 (WASI, Node)" "-O2${simd:+ $simd}" "$wasi_run"
    done
    add c++ "g++ -std=c++11 -x c++" "x86_64 (C++11)" "-O2" ""
    add c++ "clang++ -std=c++11 -x c++" "x86_64 (C++11)" "-O3 -march=native -ffp-contract=fast" ""
    add c++ "g++ -std=c++17 -x c++" "x86_64 (C++17)" "-O3 -march=native" ""
    add c++ "clang++ -std=c++17 -x c++" "x86_64 (C++17)" "-O2" ""
fi
add tcc tcc "x86_64" "-O2" ""
# The header-only form and link-time optimisation: the core inlined into the runner's thunks.
for cc in gcc clang; do
    add header-only "$cc" "x86_64 (header-only)" "-O2" ""
    add header-only "$cc" "x86_64 (header-only)" "-O3 -march=native -ffp-contract=fast" ""
done
add header-only "g++ -std=c++11 -x c++" "x86_64 (header-only, C++11)" "-O2" ""
add header-only "g++ -std=c++11 -x c++" "x86_64 (header-only, C++11)" "-O3 -march=native -ffp-contract=fast" ""
# clang's header-only form takes the layout for LLVM's loop vectoriser (AETHER_VECTOR_INLINE:
# ms_abi for the by-value functions, the OR guard on every product); these cells run it as C++
# and run the System V layout it replaces (AETHER_NO_VECTOR_INLINE).
add header-only "clang++ -std=c++11 -x c++" "x86_64 (header-only, C++11)" "-O3 -march=native -ffp-contract=fast" ""
add header-only clang "x86_64 (header-only, System V)" "-O3 -march=native -ffp-contract=fast -DAETHER_NO_VECTOR_INLINE" ""
# The batched forms (make BATCH=1, --batch soa|aos): every corpus case through aether_batch.c,
# its vector steps on each target's vectors and packed sqrt (AVX, SSE2, NEON; the scalar sqrt
# lane by lane on wasm32), the scalar tails through the core; tcc has no GNU C vectors, so all of
# its items take the scalar path.
add batch-aos clang "x86_64 (batch aos)" "-O3 -march=native -ffp-contract=fast" ""
add batch-aos aarch64-linux-gnu-gcc "aarch64 (qemu-user, batch aos)" "-O2 -ffp-contract=fast" "$qemu_run"
add batch-aos gcc "i386 (-m32, batch aos)" "-m32 -msse2 -mfpmath=sse -O2" ""
add batch-soa "$wasm_cc" "wasm32 (WASI, Node, batch soa)" "-O3 -msimd128 -ffp-contract=fast" "$wasi_run"
add batch-aos tcc "x86_64 (batch aos)" "-O2" ""
add lto gcc "x86_64 (LTO)" "-O3 -march=native -ffp-contract=fast -flto=auto" ""
add lto clang "x86_64 (LTO)" "-O3 -march=native -ffp-contract=fast -flto -fuse-ld=lld" ""
# The object laid out to be inlined (-DAETHER_LTO: the header-only form's guards and loads).
add lto gcc "x86_64 (LTO, AETHER_LTO)" "-O3 -march=native -ffp-contract=fast -flto=auto -DAETHER_LTO" ""
add lto clang "x86_64 (LTO, AETHER_LTO)" "-O3 -march=native -ffp-contract=fast -flto -fuse-ld=lld -DAETHER_LTO" ""
[ "$clang_m32" = 1 ] && add i386 clang "i386 (-m32)" "-m32 -msse2 -mfpmath=sse -O2" ""
if [ "$quick" = 1 ] || [ "$ci" = 1 ]; then opts=(-O2); else opts=(-O3 -O2 -O0); fi
if [ "$ci" = 1 ]; then
    for cc in gcc clang; do
        add main "$cc" "x86_64" "-O3 -march=native -ffp-contract=fast" ""
    done
fi
for opt in "${opts[@]}"; do
    for cc in gcc clang; do
        for march in x86-64 native; do
            for fc in -ffp-contract=off "" -ffp-contract=fast; do
                # CI: each contraction setting once per compiler (off and the default on the
                # baseline, fast on native), not on both targets.
                if [ "$ci" = 1 ] && { [ "$march" = native ] && [ "$fc" != -ffp-contract=fast ]; } || { [ "$ci" = 1 ] && [ "$march" = x86-64 ] && [ "$fc" = -ffp-contract=fast ]; }; then
                    continue
                fi
                add main "$cc" "x86_64" "$opt -march=$march${fc:+ $fc}" ""
            done
        done
    done
done
if [ "$quick" = 0 ]; then
    if [ "$ci" = 1 ]; then extra_opts=(-O2); else extra_opts=(-O3 -O2); fi
    for opt in "${extra_opts[@]}"; do
        for cc in gcc clang; do
            add extra "$cc" "x86_64 (extra)" "$opt -march=x86-64 -mfma -ffp-contract=fast" ""
        done
    done
fi
n_cells=$(wc -l <"$cells")

# ---------------------------------------------------------------------------------------------
# 3. Run them: each cell builds into its own BUILD directory, then runs the corpus.
# ---------------------------------------------------------------------------------------------
# No -std: the compilers' default dialect (GNU C), as a consumer's build has it.
warnings='-Wall -Wextra -Wpedantic -Werror'
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

run_cell() { # index, kind, cc, target, cflags, run
    local i=$1 cc=$3 cflags=$5 run=$6
    local dir=$tmp/cell-$i
    local t0 t1 t2 build_rc=0 run_rc=0
    # The header-only cells build without aether_core.c of their own (c_core/check/Makefile).
    local HEADER_ONLY= BATCH= checkflags=--quiet
    [ "$2" = header-only ] && HEADER_ONLY=1
    # The batch cells build aether_batch.c too and run every case through its _soa or _aos form.
    case "$2" in batch-*) BATCH=1; checkflags="--quiet --batch ${2#batch-}" ;; esac
    export HEADER_ONLY BATCH
    mkdir -p "$dir/build"
    {
        echo "\$ make -C c_core/check CC='$cc' CFLAGS='$cflags' WARNINGS='$warnings' RUN='$run' BUILD=$dir/build CHECKFLAGS='$checkflags'${HEADER_ONLY:+ HEADER_ONLY=1}${BATCH:+ BATCH=1} check"
    } >"$dir/out"
    t0=$(now)
    make -s -C c_core/check CC="$cc" CFLAGS="$cflags" WARNINGS="$warnings" LDFLAGS= \
        BUILD="$dir/build" all >>"$dir/out" 2>&1 || build_rc=$?
    t1=$(now)
    if [ "$build_rc" = 0 ]; then
        make -s -C c_core/check CC="$cc" CFLAGS="$cflags" WARNINGS="$warnings" LDFLAGS= \
            BUILD="$dir/build" RUN="$run" CHECKFLAGS="$checkflags" check >>"$dir/out" 2>&1 || run_rc=$?
    fi
    t2=$(now)
    printf '%s %s %s %s\n' "$build_rc" "$run_rc" "$(elapsed "$t0" "$t1")" "$(elapsed "$t1" "$t2")" >"$dir/status"
    # A build that fails: try it once more without -Werror, to tell warnings from errors (the
    # cell fails either way; this only goes into the result column).
    if [ "$build_rc" != 0 ]; then
        local retry=fails
        mkdir -p "$dir/retry-build"
        if make -s -C c_core/check CC="$cc" CFLAGS="$cflags" WARNINGS="${warnings% -Werror}" LDFLAGS= \
                BUILD="$dir/retry-build" RUN="$run" CHECKFLAGS="$checkflags" check >"$dir/retry.out" 2>&1; then
            retry=passes
        elif grep -q '^aether_check: ' "$dir/retry.out"; then
            retry=builds-fails
        fi
        echo "$retry" >"$dir/retry"
    fi
}

echo "compat-matrix: $n_cells cells, $jobs_max at a time"
i=0
while IFS='|' read -r kind cc target cflags run; do
    i=$((i + 1))
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    run_cell "$i" "$kind" "$cc" "$target" "$cflags" "$run" </dev/null &
done <"$cells"
wait || true

# ---------------------------------------------------------------------------------------------
# 4. Collect, report.
# ---------------------------------------------------------------------------------------------
md_escape() { sed 's/|/\\|/g; s/`/'"'"'/g'; }
rows=$tmp/rows
: >"$rows"
contracts=$tmp/contracts
: >"$contracts"
failed_cells=()
n_pass=0
i=0
while IFS='|' read -r kind cc target cflags run; do
    i=$((i + 1))
    dir=$tmp/cell-$i
    read -r build_rc run_rc build_s run_s <"$dir/status" || { build_rc=x; run_rc=x; build_s=0; run_s=0; }
    corpus_line=$(grep -m1 '^aether_check: corpus: ' "$dir/out" || true)
    functions=$(printf '%s' "$corpus_line" | sed -n 's/.*corpus: \([0-9]*\) functions.*/\1/p')
    cases=$(printf '%s' "$corpus_line" | sed -n 's/.* \([0-9]*\) cases.*/\1/p')
    mismatches=$(printf '%s' "$corpus_line" | sed -n 's/.* \([0-9]*\) mismatches.*/\1/p')
    selftest_line=$(grep -m1 '^aether_selftest' "$dir/out" || true)
    case "$selftest_line" in
        "aether_selftest: ok:"*) selftest=ok ;;
        "") selftest="-" ;;
        *) selftest=$(printf '%s' "${selftest_line#aether_selftest}" | sed 's/^: //' | cut -c1-200) ;;
    esac
    sed -n 's/^aether_check: contract \(.*\) (header).*/\1/p' "$dir/out" >>"$contracts"
    if [ "$build_rc" != 0 ]; then
        case "$(cat "$dir/retry" 2>/dev/null)" in
            passes) result="FAIL (build: -Werror; without -Werror it builds and passes)" ;;
            builds-fails) result="FAIL (build: -Werror; without -Werror it builds but fails)" ;;
            *) result="FAIL (build)" ;;
        esac
    elif [ "$run_rc" != 0 ]; then
        result="FAIL (exit $run_rc)"
    elif [ -z "$corpus_line" ]; then
        result="FAIL (no corpus line)"
    elif [ "$mismatches" != 0 ]; then
        result="FAIL ($mismatches mismatches)"
    else
        result=pass
    fi
    if [ "$result" = pass ]; then
        n_pass=$((n_pass + 1))
    else
        failed_cells+=("$i")
    fi
    seconds=$(awk -v a="$build_s" -v b="$run_s" 'BEGIN { printf "%.1f (%.1f + %.1f)", a + b, a, b }')
    if [ -n "$run" ]; then flags_cell="\`$cflags\` (run: \`$run\`)"; else flags_cell="\`$cflags\`"; fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$cc" "$target" "$flags_cell" "${cases:--}${functions:+ ($functions functions)}" "${mismatches:--}" \
        "$(printf '%s' "$selftest" | md_escape)" "$result" "$seconds" >>"$rows"
    printf 'compat-matrix: %-22s %-45s %s\n' "$cc" "$cflags" "$result"
done <"$cells"

# Controls: the same runner with the guards disabled (-DAETHER_UNSAFE_ALLOW_CONTRACTION) must
# report mismatches where the compilers contract, so the passing cells above are not luck; where
# a compiler cannot fuse (tcc, wasm32 without relaxed-simd) it must report none. They run in
# parallel like the cells; their rows keep this order.
controls=$tmp/controls
: >"$controls"
control_failed=0
n_controls=0
control_run() { # dir, label, cc, cflags, run, expect (mismatches | none), [HEADER_ONLY value], [define]
    local dir=$1 line bad
    local HEADER_ONLY=${7:-}
    export HEADER_ONLY
    make -s -C c_core/check CC="$3" CFLAGS="$4 -D${8:-AETHER_UNSAFE_ALLOW_CONTRACTION}" WARNINGS="$warnings" LDFLAGS= \
        BUILD="$dir" RUN="$5" CHECKFLAGS="--quiet --no-selftest" check >"$dir/out" 2>&1 || true
    line=$(grep -m1 '^aether_check: corpus: ' "$dir/out" || true)
    bad=$(printf '%s' "$line" | sed -n 's/.* \([0-9]*\) mismatches.*/\1/p')
    if [ "$6" = mismatches ] && [ -n "$bad" ] && [ "$bad" -gt 0 ]; then
        echo "ok|$bad|mismatches, as expected" >"$dir/verdict"
    elif [ "$6" = none ] && [ "$bad" = 0 ]; then
        echo "ok|$bad|none, as expected (nothing fuses)" >"$dir/verdict"
    elif [ "$6" = none ]; then
        echo "FAIL|${bad:--}|FAIL: expected no mismatch" >"$dir/verdict"
    else
        echo "FAIL|${bad:--}|FAIL: no mismatch" >"$dir/verdict"
    fi
}
control() { # label, cc, cflags, run, [expect], [HEADER_ONLY value], [define]
    local dir
    n_controls=$((n_controls + 1))
    dir=$tmp/control-$n_controls
    mkdir -p "$dir"
    printf '%s|%s|%s|%s\n' "$1" "$3" "${5:-mismatches}" "${7:-AETHER_UNSAFE_ALLOW_CONTRACTION}" >"$dir/what"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    control_run "$dir" "$1" "$2" "$3" "$4" "${5:-mismatches}" "${6:-}" "${7:-}" </dev/null &
}
control "gcc x86_64" gcc "-O2 -march=x86-64 -mfma -ffp-contract=fast" ""
control "clang x86_64" clang "-O2 -march=x86-64 -mfma -ffp-contract=fast" ""
control "gcc x86_64, header-only (HEADER_ONLY=1)" gcc "-O3 -march=native -mfma -ffp-contract=fast" "" mismatches 1
control "clang x86_64, header-only (HEADER_ONLY=1)" clang "-O3 -march=native -mfma -ffp-contract=fast" "" mismatches 1
# The vectorising guard alone removed (AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS): the functions
# that use it (matrix and quaternion products, mat4 * vec4) must then report mismatches.
control "gcc x86_64, header-only, vectorising guard alone off" gcc "-O3 -march=native -mfma -ffp-contract=fast" "" mismatches 1 \
    AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS
control "clang x86_64, header-only, vectorising guard alone off" clang "-O3 -march=native -mfma -ffp-contract=fast" "" mismatches 1 \
    AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS
# The per-item vector forms' guard alone removed (AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS): their
# mat4f_mul must then report mismatches (AETHER_ITEM_SHUFFLES: header-only with gcc and clang,
# the objects of both; gcc's object leaves out the forms with an argument in registers).
control "gcc x86_64, header-only, item forms' guard alone off" gcc "-O3 -march=native -mfma -ffp-contract=fast" "" mismatches 1 \
    AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS
control "clang x86_64, item forms' guard alone off" clang "-O2 -march=native -mfma -ffp-contract=fast" "" mismatches "" \
    AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS
control "gcc x86_64, item forms' guard alone off" gcc "-O2 -march=native -mfma -ffp-contract=fast" "" mismatches "" \
    AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS
control "gcc x86_64, LTO" gcc "-O3 -march=native -mfma -ffp-contract=fast -flto=auto" ""
control "gcc x86_64, LTO (AETHER_LTO), vectorising guard alone off" gcc \
    "-O3 -march=native -mfma -ffp-contract=fast -flto=auto -DAETHER_LTO" "" mismatches "" AETHER_UNSAFE_UNGUARDED_VECTOR_PRODUCTS
control "aarch64-linux-gnu-gcc (default flags)" aarch64-linux-gnu-gcc "-O2" "$qemu_run"
# The 16-byte item forms' guard alone removed on aarch64 (AETHER_ITEM_SHUFFLES_128; x86's baseline
# has no fused instruction to show it): the matrix and quaternion products fuse into fmla.
control "aarch64-linux-gnu-gcc, 16-byte item forms' guard alone off" aarch64-linux-gnu-gcc "-O2 -ffp-contract=fast" "$qemu_run" \
    mismatches "" AETHER_UNSAFE_UNGUARDED_ITEM_PRODUCTS
if [ "$quick" = 0 ]; then
    while IFS='|' read -r triplet qemu _ extra; do
        control "$triplet-gcc (qemu-user)" "$triplet-gcc" "-O2${extra:+ $extra} -ffp-contract=fast" "$qemu -L /usr/$triplet"
    done <<<"$isas"
    control "clang wasm32 (Node WASI), no SIMD" "$wasm_cc" "-O3 -ffp-contract=fast" "$wasi_run" none
fi
control "tcc x86_64" tcc "-O2" "" none
wait || true
for k in $(seq 1 "$n_controls"); do
    dir=$tmp/control-$k
    IFS='|' read -r label cflags _ define <"$dir/what"
    IFS='|' read -r verdict bad text <"$dir/verdict" || { verdict=FAIL; bad=-; text="FAIL: did not run"; }
    printf '| %s | `%s -D%s` | %s | %s |\n' "$label" "$cflags" "$define" "$bad" "$text" >>"$controls"
    printf 'compat-matrix: control %-40s %s: %s\n' "$label" "$bad" "$text"
    if [ "$verdict" != ok ]; then
        echo "compat-matrix: control $label failed:" >&2
        cat "$dir/out" >&2
        control_failed=1
    fi
done

# The self-test on the second instruction set: FPCR.FZ and a non-default rounding mode set
# under qemu must make it fail and name the cause.
a64=$tmp/selftest-a64
mkdir -p "$a64"
aarch64-linux-gnu-gcc -O2 $warnings -Ic_core tests/c/selftest_env.c c_core/aether_core.c -lm -o "$a64/env" >"$a64/build.out" 2>&1 \
    || { cat "$a64/build.out" >&2; echo "compat-matrix: the aarch64 self-test control does not build" >&2; control_failed=1; }
a64_control() { # mode, status bit, text
    local rc=0
    $qemu_run "$a64/env" "$1" >"$a64/$1.out" 2>&1 || rc=$?
    if { [ "$2" = 0 ] && [ "$rc" = 0 ]; } || { [ "$2" != 0 ] && [ $((rc & $2)) != 0 ]; } && grep -q -- "$3" "$a64/$1.out"; then
        printf '| aarch64-linux-gnu-gcc (qemu) | `selftest_env %s` | status %s | says "%s" |\n' "$1" "$rc" "$3" >>"$controls"
        echo "compat-matrix: aarch64 self-test $1: status $rc, says \"$3\""
    else
        printf '| aarch64-linux-gnu-gcc (qemu) | `selftest_env %s` | status %s | FAIL |\n' "$1" "$rc" >>"$controls"
        cat "$a64/$1.out" >&2
        control_failed=1
    fi
}
if [ -x "$a64/env" ]; then
    a64_control plain 0 "aether_selftest: ok"
    a64_control setfz "$(sed -n 's/^#define AETHER_SELFTEST_FLUSH_TO_ZERO \([0-9]*\)$/\1/p' c_core/aether_core.h)" "flush-to-zero is on (FPCR.FZ"
    a64_control upward "$(sed -n 's/^#define AETHER_SELFTEST_ROUNDING \([0-9]*\)$/\1/p' c_core/aether_core.h)" "the rounding mode is not round-to-nearest-even (FPCR.RMode"
fi

contract_ids=$(sort -u "$contracts" | paste -sd';' - | sed 's/;/; /g')
total_s=$(( $(date +%s) - started ))
summary="$n_cells cells, $n_pass pass"
mode=full; [ "$quick" = 1 ] && mode=quick; [ "$ci" = 1 ] && mode=ci

mkdir -p "$(dirname "$report")"
{
    echo "_Generated by \`scripts/compat-matrix.sh\`; do not edit by hand (rerun the script to update it)._"
    echo
    echo "# C core compatibility matrix"
    echo
    echo "The pure-C corpus runner (\`c_core/check\`, \`make check CHECKFLAGS=--quiet\`) built with"
    echo "\`WARNINGS='$warnings'\` and each cell's \`CFLAGS\`, each cell in its own build directory."
    echo "A cell passes when it builds, the runner exits 0 and its corpus line shows 0 mismatches."
    echo "\"(no flag)\" cells take the compiler's default in its default dialect (GNU C): gcc"
    echo "\`-ffp-contract=fast\`, clang \`-ffp-contract=on\` (fusing within an expression). Baseline"
    echo "\`-march=x86-64\` has no FMA, so the extra cells add \`-mfma\` to let \`-ffp-contract=fast\` fuse."
    echo
    echo "- date (UTC): $(date -u '+%Y-%m-%d %H:%M:%S')"
    echo "- command: \`$command_line\` ($mode run, $jobs_max cells at a time, ${total_s} s in all)"
    echo "- machine: ${cpu_model:-unknown}, $(nproc) CPUs; \`gcc -march=native\` resolves to \`-march=${native_march:-?}\`"
    echo "- gcc: $gcc_version"
    echo "- clang: $clang_version"
    echo "- aarch64 gcc: $a64_version"
    echo "- qemu: $qemu_version"
    echo "- tcc: $tcc_version"
    echo "- wasm32: $clang_version with wasi-libc $wasi_version, run by Node $node_version (\`node:wasi\`, scripts/wasi-run.mjs)"
    echo "- other ISAs: $isa_versions"
    echo "- contract: ${contract_ids:-unknown (no cell printed it)}"
    if [ "$clang_m32" = 0 ]; then echo "- clang -m32 does not link on this machine: its cell is left out"; fi
    echo
    echo "| compiler | target | flags | corpus cases | mismatches | self-test | result | seconds (build + run) |"
    echo "|---|---|---|---|---|---|---|---|"
    cat "$rows"
    echo
    echo "$summary"
    echo
    echo "## Platforms beyond gcc and clang on x86 and aarch64"
    echo
    echo "- **tcc** defines no \`FLT_EVAL_METHOD\`; on x86-64 it emits scalar SSE for float and double"
    echo "  (evaluation method 0), so the core lets it through there (and refuses it elsewhere, saying"
    echo "  that nothing tells how it evaluates). It has no \`<xmmintrin.h>\`: the core includes that for"
    echo "  GNU C and MSVC only, and under tcc the self-test checks the environment by its arithmetic"
    echo "  probes. tcc never fuses, so its guard-disabled control shows no mismatch."
    echo "- **wasm32** (WebAssembly 1.0, with and without simd128) has no fused multiply-add"
    echo "  instruction (only relaxed-simd's \`relaxed_madd\`, which clang 14 does not form from \`a*b + c\`):"
    echo "  contraction cannot change a bit there, as the guard-disabled control without SIMD shows. The"
    echo "  product guard is still an empty \`asm\`, now with \`\"+r\"\` (a local of the product's own type)."
    echo "  The former \`\"+m\"\` put each product in a stack slot; stack colouring gives the slots of a"
    echo "  function one address, and with \`-msimd128\` clang 14 folds a product's reload into the"
    echo "  \`v128.load32_splat\` that builds a vector, issued after later products overwrote the slot:"
    echo "  \`mat*_mul\`, \`mat4f_mul_vec\` and \`mat4f_eigh\` got other products' values. The same back-end"
    echo "  fault shows without any guard: the guard-disabled core with \`-msimd128\` gets wrong Cholesky"
    echo "  factors (at \`-O3 -msimd128 -ffp-contract=off\`, 136 mismatches in \`mat4f_cholesky\`, \`mat4d_cholesky\` and their lanes), so the pragma alone"
    echo "  would not do there either; with \`\"+r\"\` the products stay in locals and the whole corpus and"
    echo "  the self-test pass."
    echo "- **C++**: the core and the runner compile as C++11 and later; the generator writes"
    echo "  decimal literals (\`0.5\`) where a short one is exact, since hexadecimal floats need C++17."
    echo "- **s390x, ppc64le, riscv64, armhf** under qemu-user: the guard constraint is \`\"+m\"\` on s390x"
    echo "  and ppc64le, \`\"+f\"\` on riscv64, \`\"+w\"\` on armhf. armhf is built with"
    echo "  \`-mfpu=neon-vfpv4\` (Debian's default VFPv3-D16 has no FMA, so nothing could fuse)."
    echo
    echo "## Controls"
    echo
    echo "The same runner built with the contraction guards disabled must report mismatches in these"
    echo "configurations: the compilers do fuse there, so the cells above pass because of the guards."
    echo "Where nothing can fuse (tcc; wasm32 without SIMD) it must report none."
    echo "On aarch64, the self-test (tests/c/selftest_env.c) must fail and name flush-to-zero set in"
    echo "FPCR and a non-default rounding mode."
    echo
    echo "| compiler | flags or mode | corpus mismatches or self-test status | result |"
    echo "|---|---|---|---|"
    cat "$controls"
} >"$report"

# The options section, into the same report.
options_rc=0
options_section "$tmp/options.md" || options_rc=1
splice_options "$tmp/options.md" "$report"

echo "compat-matrix: report written to $report"
for i in "${failed_cells[@]+"${failed_cells[@]}"}"; do
    echo
    echo "===== failing cell $i: $(sed -n "${i}p" "$cells" | cut -d'|' -f2,4 | tr '|' ' ') ====="
    cat "$tmp/cell-$i/out"
    if [ -f "$tmp/cell-$i/retry.out" ]; then
        echo "----- the same cell without -Werror ($(cat "$tmp/cell-$i/retry")):"
        cat "$tmp/cell-$i/retry.out"
    fi
done
echo "compat-matrix: $summary (${total_s} s)"
[ "$options_rc" = 0 ] || echo "compat-matrix: options: a silent break or an unclassified cell (see above)" >&2
[ ${#failed_cells[@]} -eq 0 ] && [ "$control_failed" = 0 ] && [ "$options_rc" = 0 ] || exit 1

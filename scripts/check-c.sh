#!/usr/bin/env bash
# The generated C core compiles cleanly as C99 with gcc and clang, the header
# compiles from C++, the predicates' header builds and passes its self-test, and every corpus part's fence verifies with sed + md5sum.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cc in gcc clang; do
    command -v "$cc" >/dev/null || { echo "check-c: $cc is not installed" >&2; exit 1; }
    "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -c c_core/aether_core.c -o "$tmp/core-$cc.o"
    # The umbrella corpus header compiles too, as a consumer includes it.
    printf '#include "aether_c_corpus.h"\nunsigned n(void) { return AETHER_CORPUS_FUNCTION_COUNT + (unsigned)sizeof aether_corpus_functions; }\n' > "$tmp/corpus.c"
    "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror -Wno-unused-const-variable -Icorpus -c "$tmp/corpus.c" -o "$tmp/corpus-$cc.o"
    echo "check-c: $cc -std=c99 -Wall -Wextra -Wpedantic -Werror: ok"
done
printf '#include "aether_core.h"\nint main() { aether_vec3f a = {1, 2, 3}; return (int)aether_vec3f_dot(a, a) == 14 ? 0 : 1; }\n' > "$tmp/use.cpp"
g++ -x c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -Ic_core "$tmp/use.cpp"
echo "check-c: g++ -x c++ -fsyntax-only with aether_core.h: ok"
# The predicates' header: C99 with both compilers, both forms and the integer forms alone
# (AETHER_PREDICATE_NO_FLOAT), and as C++11; the self-test passes.
printf '#include "aether_predicate.h"\nint main(void) { return aether_predicate_selftest() != 0; }\n' > "$tmp/pred.c"
for cc in gcc clang; do
    for def in "" -DAETHER_PREDICATE_NO_FLOAT; do
        # shellcheck disable=SC2086
        "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror $def -Ic_core "$tmp/pred.c" -o "$tmp/pred-$cc"
        "$tmp/pred-$cc"
    done
done
g++ -x c++ -std=c++11 -Wall -Wextra -Werror -Ic_core "$tmp/pred.c" -o "$tmp/pred-cpp" && "$tmp/pred-cpp"
echo "check-c: aether_predicate.h as C99 (gcc, clang; with and without AETHER_PREDICATE_NO_FLOAT) and C++11: builds, self-test ok"
# The integer forms use no floating point: gcc's -mgeneral-regs-only refuses any float operation.
if [ "$(uname -m)" = x86_64 ]; then
    printf '#include "aether_predicate.h"\nint f(int64_t d, int64_t o, int64_t t) { return aether_angle_flag_integer(d, o, t) + aether_predicate_selftest(); }\n' > "$tmp/nofloat.c"
    gcc -std=c99 -O2 -Wall -Werror -mgeneral-regs-only -DAETHER_PREDICATE_NO_FLOAT -Ic_core -c "$tmp/nofloat.c" -o "$tmp/nofloat.o"
    if printf '#include "aether_predicate.h"\nint f(int64_t d) { return aether_angle_flag_golden(d, 1, 1); }\n' |
        gcc -std=c99 -O2 -mgeneral-regs-only -Ic_core -x c -c - -o "$tmp/float.o" 2>/dev/null; then
        echo "check-c: FAIL: -mgeneral-regs-only accepted the golden form: the no-float check sees nothing" >&2
        exit 1
    fi
    echo "check-c: the integer forms build with gcc -mgeneral-regs-only (no floating-point operation); the golden form does not, as it must not"
fi

n=0
for part in corpus/*.h; do
    [ "$part" = corpus/aether_c_corpus.h ] && continue
    want=$(head -n1 "$part" | sed -n 's/.* md5: \([0-9a-f]\{32\}\) \*\//\1/p')
    end=$(tail -n1 "$part" | sed -n 's/.* md5: \([0-9a-f]\{32\}\) \*\//\1/p')
    got=$(sed '1d;$d' "$part" | md5sum | cut -d' ' -f1)
    if [ "$want" != "$got" ] || [ "$end" != "$got" ]; then
        echo "check-c: fence mismatch in $part: fences say $want / $end, body is $got" >&2
        exit 1
    fi
    n=$((n + 1))
done
echo "check-c: $n corpus part fences verify with sed '1d;\$d' | md5sum"

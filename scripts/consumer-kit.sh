#!/usr/bin/env bash
# Shows that each documented way to consume the C core works, each in a fresh temp dir:
# the two files, the header-only form, a C++ consumer, add_subdirectory, the installed CMake package (find_package
# EXACT with aether::core, aether::header_only and, built on request, aether::batch; the header-only
# form and the predicates' header from the install; another version refused), pkg-config, fast math
# on the consumer's file and on its link line, and the CTest corpus runner. Every way builds
# examples/consumer/main.c (the C++ way examples/consumer/main.cpp) and diffs its stdout with
# examples/consumer/expected.txt.
#
#   bash scripts/consumer-kit.sh
#   AETHER_C_CORE=/path/to/c_core bash scripts/consumer-kit.sh  # another copy (with corpus/ beside it)
#   bash scripts/consumer-kit.sh --install-only                  # install cmake and pkg-config, stop
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
core=$(cd "${AETHER_C_CORE:-c_core}" && pwd)
consumer=$repo/examples/consumer
start=$SECONDS
jobs=$(nproc 2>/dev/null || echo 2)

# shellcheck source=scripts/apt.sh
source scripts/apt.sh
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"
[ "${1:-}" != --install-only ] || exit 0
for tool in gcc clang g++ clang++ cmake pkg-config; do
    command -v "$tool" >/dev/null || { echo "consumer-kit: $tool is not installed" >&2; exit 1; }
done

version=$(sed -n 's/^#define AETHER_CONTRACT_VERSION "\([^"]*\)"$/\1/p' "$core/aether_core.h")
[ -n "$version" ] || { echo "consumer-kit: no AETHER_CONTRACT_VERSION in $core/aether_core.h" >&2; exit 1; }

top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

# docs/c-core.md shows the two-file consumer in full: it must be examples/consumer/main.c.
awk '/^A two-file consumer/ { on = 1 } on && /^```c$/ { grab = 1; next } grab && /^```$/ { exit } grab { print }' \
    docs/c-core.md >"$top/doc-main.c"
if ! diff -u "$consumer/main.c" "$top/doc-main.c"; then
    echo "consumer-kit: docs/c-core.md's two-file consumer differs from examples/consumer/main.c" >&2
    exit 1
fi
echo "consumer-kit: docs/c-core.md's two-file consumer is examples/consumer/main.c"

# Runs the consumer binary $1 and diffs its stdout with the expected one.
check_run() {
    "$1" >"$1.out"
    diff -u "$consumer/expected.txt" "$1.out"
}

# A tiny consumer CMake project in $1; $2 is how it gets aether::core.
consumer_project() {
    cp "$consumer/main.c" "$1/"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(consumer LANGUAGES C)\n%s\nadd_executable(consumer main.c)\ntarget_link_libraries(consumer PRIVATE aether::core)\n' "$2" >"$1/CMakeLists.txt"
}

# a. The two files, with the consumer's own defaults (gcc's are GNU mode and -ffp-contract=fast).
way_two_files() {
    local d cc opt exe
    d=$(mktemp -d -p "$top")
    cp "$core/aether_core.h" "$core/aether_core.c" "$consumer/main.c" "$d/"
    cd "$d"
    for cc in gcc clang; do
        "$cc" -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only main.c
        for opt in "-O2" "-O3 -march=native"; do
            exe=$d/main-$cc-${opt// /}
            echo "+ $cc $opt main.c aether_core.c -lm"
            # shellcheck disable=SC2086 # $opt is a list of flags
            "$cc" $opt main.c aether_core.c -lm -o "$exe"
            check_run "$exe"
        done
    done
}

# a1. Header-only: the same main.c with AETHER_HEADER_ONLY defined and no aether_core.c to
# compile (the header includes it beside itself; every function static inline), gcc and clang,
# with the consumer's defaults and with -O3 -march=native -ffp-contract=fast; and g++ and clang++
# (clang's form for the loop vectoriser renames the by-value functions: main.c takes one's address).
way_header_only() {
    local d cc opt exe
    d=$(mktemp -d -p "$top")
    cp "$core/aether_core.h" "$core/aether_core.c" "$consumer/main.c" "$d/"
    cd "$d"
    for cc in gcc clang "g++ -x c++" "clang++ -x c++"; do
        for opt in "-O2" "-O3 -march=native -ffp-contract=fast"; do
            exe=$d/main-header-only-${cc// /}-${opt// /}
            echo "+ $cc $opt -DAETHER_HEADER_ONLY main.c -lm"
            # shellcheck disable=SC2086 # $cc and $opt are lists of words
            $cc $opt -Wall -Wextra -Werror -DAETHER_HEADER_ONLY main.c -lm -o "$exe"
            check_run "$exe"
        done
    done
}

# a2. A C++ consumer (examples/consumer/main.cpp) with g++ and clang++, C++11 and C++17: the
# core compiled as C and linked, and the core compiled as C++ (-x c++).
way_cxx() {
    local d cxx cc std exe
    d=$(mktemp -d -p "$top")
    cp "$core/aether_core.h" "$core/aether_core.c" "$consumer/main.cpp" "$d/"
    cd "$d"
    for cxx in g++ clang++; do
        cc=gcc; [ "$cxx" = clang++ ] && cc=clang
        for std in c++11 c++17; do
            exe=$d/main-$cxx-$std
            echo "+ $cc -O2 -c aether_core.c; $cxx -std=$std -O2 main.cpp aether_core.o"
            "$cc" -O2 -Wall -Wextra -Wpedantic -Werror -c aether_core.c -o "$exe-core.o"
            "$cxx" -std="$std" -O2 -Wall -Wextra -Wpedantic -Werror main.cpp "$exe-core.o" -o "$exe"
            check_run "$exe"
            echo "+ $cxx -std=$std -O2 main.cpp -x c++ aether_core.c"
            "$cxx" -std="$std" -O2 -Wall -Wextra -Wpedantic -Werror main.cpp -x c++ aether_core.c -o "$exe-cxxcore"
            check_run "$exe-cxxcore"
        done
    done
}

# b. add_subdirectory of c_core, linking aether::core.
way_add_subdirectory() {
    local d
    d=$(mktemp -d -p "$top")
    consumer_project "$d" "add_subdirectory(\"$core\" aether)"
    cmake -S "$d" -B "$d/build"
    cmake --build "$d/build" -j "$jobs"
    check_run "$d/build/consumer"
}

# c. The installed package: find_package(aether VERSION EXACT CONFIG REQUIRED) with aether::core
# and with aether::header_only, the header-only form from the installed include directory alone,
# the predicates' header; the batched library only where AETHER_BUILD_BATCH asked for it; and
# another version refused (another contract version gives other bits).
way_installed_package() {
    local d
    d=$(mktemp -d -p "$top")
    cmake -S "$core" -B "$d/build" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$d/build" -j "$jobs"
    cmake --install "$d/build" --prefix "$prefix"
    for f in aether_core.h aether_core.c aether_predicate.h; do
        [ -f "$prefix/include/$f" ] || { echo "the install has no include/$f"; return 1; }
    done
    if [ -e "$prefix/include/aether_batch.h" ] || ls "$d/build"/*aether_batch* >/dev/null 2>&1; then
        echo "the default build made or installed the batched library (AETHER_BUILD_BATCH is off by default)"
        return 1
    fi
    mkdir "$d/consumer" "$d/header-only" "$d/other" "$d/plain" "$d/batch"
    consumer_project "$d/consumer" "find_package(aether $version EXACT CONFIG REQUIRED)"
    cmake -S "$d/consumer" -B "$d/consumer/build" -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$d/consumer/build" -j "$jobs"
    check_run "$d/consumer/build/consumer"
    consumer_project "$d/header-only" "find_package(aether $version EXACT CONFIG REQUIRED)"
    sed -i 's/aether::core)/aether::header_only)/' "$d/header-only/CMakeLists.txt"
    cmake -S "$d/header-only" -B "$d/header-only/build" -DCMAKE_PREFIX_PATH="$prefix"
    cmake --build "$d/header-only/build" -j "$jobs"
    check_run "$d/header-only/build/consumer"
    # No CMake at all: the installed include directory, AETHER_HEADER_ONLY, libm.
    cp "$consumer/main.c" "$d/plain/"
    echo "+ gcc -O2 -DAETHER_HEADER_ONLY -I$prefix/include main.c -lm"
    gcc -O2 -Wall -Wextra -Werror -DAETHER_HEADER_ONLY -I"$prefix/include" "$d/plain/main.c" -lm -o "$d/plain/main"
    check_run "$d/plain/main"
    printf '#include "aether_predicate.h"\nint main(void) { return 0; }\n' >"$d/plain/predicate.c"
    gcc -std=c99 -Wall -Wextra -Werror -I"$prefix/include" "$d/plain/predicate.c" -o "$d/plain/predicate"
    # The batched library, asked for: built, installed with its header, and linked.
    cmake -S "$core" -B "$d/build-batch" -DCMAKE_BUILD_TYPE=Release -DAETHER_BUILD_BATCH=ON
    cmake --build "$d/build-batch" -j "$jobs"
    cmake --install "$d/build-batch" --prefix "$d/prefix-batch"
    [ -f "$d/prefix-batch/include/aether_batch.h" ] || { echo "AETHER_BUILD_BATCH=ON installed no aether_batch.h"; return 1; }
    consumer_project "$d/batch" "find_package(aether $version EXACT CONFIG REQUIRED)"
    sed -i 's/aether::core)/aether::batch)/' "$d/batch/CMakeLists.txt"
    cmake -S "$d/batch" -B "$d/batch/build" -DCMAKE_PREFIX_PATH="$d/prefix-batch"
    cmake --build "$d/batch/build" -j "$jobs"
    check_run "$d/batch/build/consumer"
    consumer_project "$d/other" "find_package(aether 0.0.1 EXACT CONFIG REQUIRED)"
    if cmake -S "$d/other" -B "$d/other/build" -DCMAKE_PREFIX_PATH="$prefix" >"$d/other.log" 2>&1; then
        echo "find_package(aether 0.0.1 EXACT) configured against aether $version"
        return 1
    fi
    # It must be refused for its version, not for a package that was not found.
    grep -q "version: $version" "$d/other.log" || { cat "$d/other.log"; return 1; }
}

# d. pkg-config on the tree that c installed.
way_pkg_config() {
    local d pc modversion
    pc=$(find "$prefix" -name aether_core.pc -path '*/pkgconfig/*' | head -n 1)
    [ -n "$pc" ] || { echo "no aether_core.pc under $prefix"; return 1; }
    export PKG_CONFIG_PATH
    PKG_CONFIG_PATH=$(dirname "$pc")
    modversion=$(pkg-config --modversion aether_core)
    [ "$modversion" = "$version" ] || { echo "pkg-config --modversion: $modversion, want $version"; return 1; }
    d=$(mktemp -d -p "$top")
    cp "$consumer/main.c" "$d/"
    cd "$d"
    # shellcheck disable=SC2046 # pkg-config prints a list of flags
    gcc main.c $(pkg-config --cflags --libs aether_core) -o main
    check_run "$d/main"
}

# f. Fast math, as docs/c-core.md says: -ffast-math on the consumer's own file is fine when the link
# line has none; on the link line (crtfastmath.o: flush-to-zero for the process) the self-test
# fails and names it; on the core's file, or a header-only file, the build stops.
way_fast_math() {
    local d cc
    d=$(mktemp -d -p "$top")
    cp "$core/aether_core.h" "$core/aether_core.c" "$consumer/main.c" "$d/"
    cd "$d"
    for cc in gcc clang; do
        echo "+ $cc -O2 -ffast-math -c main.c; $cc -O2 -c aether_core.c; $cc main.o aether_core.o -lm"
        "$cc" -O2 -ffast-math -c main.c -o "main-$cc.o"
        "$cc" -O2 -c aether_core.c -o "core-$cc.o"
        "$cc" "main-$cc.o" "core-$cc.o" -lm -o "main-$cc"
        # The core's lines are the expected ones; main.c's own loop ("plain sum") is the
        # consumer's code, which -ffast-math may reassociate (it does: 0.75 for 0.25).
        "./main-$cc" | grep -v '^plain sum' >"main-$cc.out"
        grep -v '^plain sum' "$consumer/expected.txt" | diff -u - "main-$cc.out"
        echo "+ $cc -ffast-math main.o aether_core.o -lm (the link line): the self-test must fail"
        "$cc" -ffast-math "main-$cc.o" "core-$cc.o" -lm -o "main-$cc-linked"
        if "./main-$cc-linked" >"linked-$cc.out"; then
            echo "a -ffast-math link passed the self-test"
            return 1
        fi
        grep -q "flush-to-zero is on" "linked-$cc.out" || { cat "linked-$cc.out"; return 1; }
        if "$cc" -O2 -ffast-math -c aether_core.c -o "core-$cc-fast.o" 2>"core-$cc.err"; then
            echo "aether_core.c compiled with -ffast-math"
            return 1
        fi
        grep -q "#error" "core-$cc.err" || { cat "core-$cc.err"; return 1; }
        if "$cc" -O2 -ffast-math -DAETHER_HEADER_ONLY main.c -lm -o "header-only-$cc-fast" 2>"header-only-$cc.err"; then
            echo "a header-only file compiled with -ffast-math"
            return 1
        fi
    done
}

# e. The corpus runner through CTest.
way_ctest() {
    local d
    d=$(mktemp -d -p "$top")
    cmake -S "$core" -B "$d/build" -DAETHER_BUILD_CHECK=ON
    cmake --build "$d/build" -j "$jobs"
    cd "$d/build"
    ctest --output-on-failure
}

prefix=$top/prefix
failed=0
for way in "two files:way_two_files" "header-only:way_header_only" "C++ consumer:way_cxx" "add_subdirectory:way_add_subdirectory" \
    "installed package:way_installed_package" "pkg-config:way_pkg_config" "fast math:way_fast_math" "ctest:way_ctest"; do
    name=${way%%:*}
    log=$top/${way#*:}.log
    # Each way runs in a subshell with errexit on, so its first failing command ends it.
    set +e
    (set -e; "${way#*:}") >"$log" 2>&1
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
        echo "consumer-kit: $name: ok"
    else
        echo "consumer-kit: $name: FAILED (exit $rc); last output:"
        tail -n 15 "$log" | sed 's/^/    /'
        failed=$((failed + 1))
    fi
done
echo "consumer-kit: $((8 - failed)) of 8 ways ok in $((SECONDS - start)) s"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Sourced by scripts/test.sh and .ci/run: makes sure /dev/null is the null device.
#
# Some container sandboxes (this project's CI machines among them) start with /dev/null as
# an ordinary file. There, every `>/dev/null` writes into it and every reader of "no input"
# reads that back: `cc -c -o /dev/null` left an object file in it, and a `cargo build` in a
# fresh target directory then failed its first probe of rustc (rustc reads its probe's source
# from stdin, which cargo opens on /dev/null: "error[E0762]: unterminated character
# literal"); a link with `-o /dev/null` unlinks and recreates it, and every program started
# in that instant with a null stdin failed to start (a test then found no gcc, clang, naga
# or glslang on PATH). With the two lanes of scripts/test.sh running side by side, the suite
# failed at random. So: where /dev/null is not a character device, it is replaced by one
# (mknod, as root); where that cannot be done, a warning says so and the suite goes on.
null_device() { # [path]: the device's path (/dev/null; another only to try this function)
    local null=${1:-/dev/null} tmp err sudo=()
    [ -c "$null" ] && return 0
    tmp=$(dirname "$null")/.aether-null.$$
    [ "$(id -u)" = 0 ] || ! command -v sudo >/dev/null 2>&1 || sudo=(sudo -n)
    if err=$("${sudo[@]}" mknod -m 666 "$tmp" c 1 3 2>&1 && "${sudo[@]}" mv -f "$tmp" "$null" 2>&1); then
        echo "null-device: $null was an ordinary file; it is now the null device (mknod c 1 3)"
        return 0
    fi
    "${sudo[@]}" rm -f "$tmp" 2>/dev/null || true
    echo "null-device: WARNING: $null is not the null device ($(stat -c %F "$null" 2>&1)), and it could" >&2
    echo "not be made one ($err). No test or script writes a file to it or reads one from it, but what" >&2
    echo "they print there is still read back by programs started with no input: a failure may follow." >&2
    return 0
}

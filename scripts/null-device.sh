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
# (mknod, as root); where that cannot be done, the suite stops here, saying why.
null_device() {
    [ -c /dev/null ] && return 0
    local tmp=/dev/.aether-null.$$ err
    if err=$(mknod -m 666 "$tmp" c 1 3 2>&1 && mv -f "$tmp" /dev/null 2>&1); then
        echo "null-device: /dev/null was an ordinary file; it is now the null device (mknod c 1 3)"
        return 0
    fi
    rm -f "$tmp" || true
    echo "null-device: /dev/null is not the null device ($(stat -c %F /dev/null 2>&1)), and it could not" >&2
    echo "be made one ($err). The tests write to it and read from it side by side; run them as root," >&2
    echo "or on a machine whose /dev/null is a device." >&2
    return 1
}

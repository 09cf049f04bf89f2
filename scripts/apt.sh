# Sourced by the scripts that install what they need on a fresh Debian machine.
#   apt_install PKG...   apt-get update (once per shell) and install the packages, through sudo
#                        when not root, waiting for another apt's lock; exits 2 on failure,
#                        printing apt's output.
#   multilib_package     the package that gives gcc -m32: gcc-N-multilib for the installed gcc N
#                        (the gcc-multilib metapackage conflicts with gcc-aarch64-linux-gnu on
#                        Debian and Ubuntu), else gcc-multilib.
#   have_multilib        true when gcc -m32 has its headers and libgcc.
apt_updated=${apt_updated:-0}

apt_install() {
    local sudo=() log
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "apt: need $*, not root and no sudo" >&2; exit 2; }
        sudo=(sudo)
    fi
    log=$(mktemp)
    if [ "$apt_updated" = 0 ]; then
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >"$log" 2>&1 \
            || { cat "$log" >&2; rm -f "$log"; echo "apt: apt-get update failed" >&2; exit 2; }
        apt_updated=1
    fi
    echo "apt: installing $*"
    if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
            install -y -qq --no-install-recommends "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "apt: apt-get install $* failed" >&2
        exit 2
    fi
    rm -f "$log"
}

multilib_package() {
    local major
    major=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
    if [ -n "$major" ] && apt-cache show "gcc-$major-multilib" >/dev/null 2>&1; then
        echo "gcc-$major-multilib"
    else
        echo gcc-multilib
    fi
}

have_multilib() {
    command -v gcc >/dev/null 2>&1 || return 1
    [ -f /usr/include/x86_64-linux-gnu/gnu/stubs-32.h ] || [ -f /usr/include/gnu/stubs-32.h ] || return 1
    [ -f "$(gcc -m32 -print-libgcc-file-name 2>/dev/null)" ]
}

#!/usr/bin/env bash
# Sourced by the OpenCL scripts (opencl.sh, opencl-options.sh, test.sh): `pocl_platform` installs
# PoCL (OpenCL 3.0 on this CPU) and the ICD loader through apt when no OpenCL platform is there;
# it returns 0 when it installed them, 1 when a platform was already there.
pocl_platform() {
    if { [ -e /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 ] || ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1'; } \
        && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
        return 1
    fi
    # shellcheck source=scripts/apt.sh
    source scripts/apt.sh
    apt_install pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev
}

//! Builds the C contenders (c/contenders.c) with gcc and with clang, each six ways: the
//! shipped core as its own object, the same core linked with the loops under link-time
//! optimisation (`-flto`; the compiler driver makes the partial link, and runs the
//! optimisation there), the header-only core, cglm, the batched forms (aether_batch.c as its
//! own object) and glibc's libm; and with gcc a seventh, libm's loops under -O3 -ffast-math
//! -fopenmp-simd (vectorised into libmvec's calls: the platform's fast path). Each build is
//! linked partially (`ld -r`) with what it calls and keeps only its `bench_<cc>_<kind>_*` loops
//! global (`objcopy -G`), so the two compilers' copies of the core live side by side in one
//! binary. BENCH_CFLAGS overrides the flags (default `-O2 -march=x86-64-v3`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cmd: &mut Command) {
    let shown = format!("{cmd:?}");
    let status = cmd.status().unwrap_or_else(|e| panic!("bench build: cannot start {shown}: {e}"));
    assert!(status.success(), "bench build: {shown} failed ({status})");
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let core = here.join("../c_core");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let cflags = std::env::var("BENCH_CFLAGS").unwrap_or_else(|_| "-O2 -march=x86-64-v3".into());
    for f in
        ["c/contenders.c", "../c_core/aether_core.c", "../c_core/aether_core.h", "../c_core/aether_batch.c", "../c_core/aether_batch.h"]
    {
        println!("cargo:rerun-if-changed={f}");
    }
    println!("cargo:rerun-if-env-changed=BENCH_CFLAGS");
    if !Path::new("/usr/include/cglm/cglm.h").exists() {
        panic!("bench build: cglm's headers are missing (/usr/include/cglm); scripts/bench.sh installs Debian's libcglm-dev");
    }
    let mut objects = Vec::new();
    for cc in ["gcc", "clang"] {
        let compile = |src: &Path, defs: &[String], obj: &Path| {
            let mut c = Command::new(cc);
            c.args(cflags.split_whitespace()).args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-c"]);
            c.args(defs).arg("-I").arg(&core).arg(src).arg("-o").arg(obj);
            run(&mut c);
        };
        // The platform's fast path (libmvec through gcc's vectoriser) is gcc's alone.
        let kinds: &[&str] = if cc == "gcc" {
            &["obj", "lto", "inline", "cglm", "cglmobj", "batch", "libm", "fast"]
        } else {
            &["obj", "lto", "inline", "cglm", "batch", "libm"]
        };
        for &kind in kinds {
            let mut defs = vec![format!("-DBENCH_CC={cc}"), format!("-DBENCH_KIND={kind}")];
            defs.push(match kind {
                "cglm" | "cglmobj" => "-DBENCH_KIND_CGLM".into(),
                "batch" => "-DBENCH_KIND_BATCH".into(),
                "libm" => "-DBENCH_KIND_LIBM".into(),
                "fast" => "-DBENCH_KIND_FAST".into(),
                _ => "-DBENCH_KIND_AETHER".into(),
            });
            if kind == "cglmobj" {
                defs.push("-DBENCH_CGLM_CALL".into());
            }
            if kind == "fast" {
                defs.extend(["-O3", "-ffast-math", "-fopenmp-simd"].map(String::from));
            }
            if kind == "inline" {
                defs.push("-DAETHER_HEADER_ONLY".into());
            }
            if kind == "lto" {
                defs.push("-flto".into());
            }
            let loops = out.join(format!("{cc}-{kind}-loops.o"));
            compile(&here.join("c/contenders.c"), &defs, &loops);
            let mut parts = vec![loops];
            if kind == "obj" {
                let obj = out.join(format!("{cc}-core.o"));
                compile(&core.join("aether_core.c"), &[], &obj);
                parts.push(obj);
            }
            if kind == "batch" {
                let obj = out.join(format!("{cc}-batch-core.o"));
                compile(&core.join("aether_batch.c"), &[], &obj);
                parts.push(obj);
            }
            let partial = out.join(format!("{cc}-{kind}-partial.o"));
            if kind == "lto" {
                // The core as a consumer links it with LTO (aether_core.h: -flto -DAETHER_LTO).
                // A partial link keeps every global symbol interposable, so gcc would not inline
                // them ("function body can be overwritten at link time"); hidden, they are what
                // a final link makes them.
                let obj = out.join(format!("{cc}-lto-core.o"));
                let defs = ["-flto", "-DAETHER_LTO", "-fvisibility=hidden"].map(String::from);
                compile(&core.join("aether_core.c"), &defs, &obj);
                parts.push(obj);
                let mut link = Command::new(cc);
                link.args(cflags.split_whitespace()).args(["-flto", "-r", "-nostdlib"]);
                link.arg(if cc == "gcc" { "-flinker-output=nolto-rel" } else { "-fuse-ld=lld" });
                run(link.args(&parts).arg("-o").arg(&partial));
            } else {
                run(Command::new("ld").arg("-r").args(&parts).arg("-o").arg(&partial));
            }
            let done = out.join(format!("{cc}-{kind}.o"));
            run(Command::new("objcopy").arg("--wildcard").arg("-G").arg(format!("bench_{cc}_{kind}_*")).arg(&partial).arg(&done));
            objects.push(done);
        }
    }
    let lib = out.join("libaether_bench_c.a");
    let _ = std::fs::remove_file(&lib);
    run(Command::new("ar").arg("crs").arg(&lib).args(&objects));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=aether_bench_c");
    // cglm's shipped object: Debian's libcglm.so.0 (glmc_*).
    println!("cargo:rustc-link-lib=cglm");
    println!("cargo:rustc-link-lib=mvec");
    println!("cargo:rustc-link-lib=m");
    println!("cargo:rustc-env=BENCH_CFLAGS={cflags}");
}

//! Compiling generated outputs with the real compilers, for the tests that
//! show an accepted spec never emits code a compiler refuses.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use aether_generator::targets::Output;

/// Writes `outputs` under `dir` (their repository-relative paths).
pub fn write_tree(dir: &Path, outputs: &[Output]) {
    let _ = std::fs::remove_dir_all(dir);
    for o in outputs {
        let path = dir.join(&o.path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &o.contents).unwrap();
    }
}

/// The nvcc to compile CUDA with: `$NVCC`, or the one `scripts/cuda-toolchain.sh`
/// installs into `build/cuda`. `None` when there is none; with
/// `AETHER_REQUIRE_NVCC=1` (set by `scripts/test.sh`, which installs it) that
/// is a failure.
pub fn nvcc() -> Option<PathBuf> {
    let root = aether_generator::default_root();
    let found =
        std::env::var_os("NVCC").map(PathBuf::from).into_iter().chain([root.join("build/cuda/root/bin/nvcc")]).find(|p| p.is_file());
    if found.is_none() && std::env::var("AETHER_REQUIRE_NVCC").as_deref() == Ok("1") {
        panic!("AETHER_REQUIRE_NVCC=1 but no nvcc: set NVCC or run scripts/cuda-toolchain.sh");
    }
    found
}

/// One compile: the command line and what it printed, when it failed.
fn run(mut cmd: Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("{shown}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let log = String::from_utf8_lossy(&out.stderr);
        Err(format!("{shown} failed:\n{}", log.lines().take(12).collect::<Vec<_>>().join("\n")))
    }
}

/// Compiles the C core, its batched forms, its flat thunks and the corpus runner
/// under `dir` with `cc` (C99, every warning an error), and includes the header
/// from C++ (`cxx`).
pub fn compile_c(dir: &Path, cc: &str, cxx: &str) -> Result<(), String> {
    let obj = dir.join("obj");
    std::fs::create_dir_all(&obj).unwrap();
    let core = dir.join("c_core");
    let check = core.join("check");
    // The batched forms too (at -O0: the same front end, a fraction of the time), so that a
    // break in them alone fails here and not only in the consumer kit.
    for (src, o, opt) in [
        (core.join("aether_core.c"), "core.o", "-O1"),
        (core.join("aether_batch.c"), "batch.o", "-O0"),
        (check.join("aether_flat.c"), "flat.o", "-O1"),
        (check.join("aether_check.c"), "check.o", "-O1"),
    ] {
        let mut cmd = Command::new(cc);
        cmd.args(["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", opt, "-c"])
            .arg("-I")
            .arg(&core)
            .arg("-I")
            .arg(&check)
            .arg("-I")
            .arg(dir.join("corpus"))
            .arg(&src)
            .arg("-o")
            .arg(obj.join(format!("{cc}-{o}")));
        run(cmd)?;
    }
    let cpp = obj.join("include.cpp");
    std::fs::write(&cpp, "#include \"aether_core.h\"\nint main() { return 0; }\n").unwrap();
    let mut cmd = Command::new(cxx);
    cmd.args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"]).arg(&core).arg(&cpp);
    run(cmd)
}

/// Compiles the CUDA core's header and its flat thunks to PTX with `nvcc`
/// (every warning an error).
pub fn compile_cuda(dir: &Path, nvcc: &Path) -> Result<(), String> {
    let obj = dir.join("obj");
    std::fs::create_dir_all(&obj).unwrap();
    // A kernel that dispatches to every thunk, as scripts/cuda-static.sh compiles it.
    let cu = obj.join("ptx.cu");
    std::fs::write(
        &cu,
        "#include \"aether_core.cuh\"\n#include \"aether_cuda_flat.cuh\"\n\
         extern \"C\" __global__ void aether_ptx_all(unsigned index, const uint64_t *in, size_t n_in, uint64_t *out, \
         size_t cap, size_t *got)\n{\n    *got = aether_cuda_flat_call(index, in, n_in, out, cap);\n}\n",
    )
    .unwrap();
    let mut cmd = Command::new(nvcc);
    cmd.args(["-Werror", "all-warnings", "-ptx", "-arch=sm_90", "-I"])
        .arg(dir.join("cuda_core"))
        .arg("-I")
        .arg(dir.join("cuda_core/check"))
        .arg("-I")
        .arg(dir.join("c_core/check"))
        .arg(&cu)
        .arg("-o")
        .arg(obj.join("core.ptx"));
    run(cmd)?;
    // The batched kernels and their C launchers.
    let mut cmd = Command::new(nvcc);
    cmd.args(["-Werror", "all-warnings", "-ptx", "-arch=sm_90", "-I"])
        .arg(dir.join("cuda_core"))
        .arg(dir.join("cuda_core/aether_batch.cu"))
        .arg("-o")
        .arg(obj.join("batch.ptx"));
    run(cmd)
}

/// The clang that has an OpenCL C front end: `clang`, else the newest `clang-N` in /usr/bin.
pub fn clang_for_opencl() -> Option<PathBuf> {
    if have("clang") {
        return Some(PathBuf::from("clang"));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/bin")
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("clang-").and_then(|v| v.parse().ok()).map(|v| (v, e.path()))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p)
}

/// The OpenCL C programs under `dir` (the core with its batched kernels, the predicates, the
/// check program) through clang's OpenCL C front end at 1.2 and 3.0, syntax only, every warning
/// an error: the check scripts/opencl.sh makes before it runs them on PoCL.
pub fn compile_opencl(dir: &Path, clang: &Path) -> Result<(), String> {
    for std in ["CL1.2", "CL3.0"] {
        for program in ["opencl_core/aether_core.cl", "opencl_core/aether_predicate.cl", "opencl_core/check/aether_check.cl"] {
            let mut cmd = Command::new(clang);
            cmd.args(["-x", "cl", &format!("-cl-std={std}"), "-Xclang", "-finclude-default-header", "-fsyntax-only", "-Werror"])
                .args(["-DAETHER_CHECK_WORDS=8192", "-DAETHER_CHECK_OUT=256", "-DAETHER_CHECK_SCRATCH=17152"])
                .arg(dir.join(program));
            run(cmd)?;
        }
    }
    Ok(())
}

/// Whether `tool --version` runs and succeeds.
pub fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The byte range of table `header` in a spec text (its header line up to
/// the next header).
pub fn table(text: &str, header: &str) -> Option<(usize, usize)> {
    let start = text.find(&format!("\n{header}\n"))? + 1;
    let after = start + header.len() + 1;
    let end = text[after..].find("\n[").map_or(text.len(), |i| after + i + 1);
    Some((start, end))
}

/// Every whole-word `from` inside table `header` becomes `to`; None when
/// the table has no such word.
pub fn rename_in_table(text: &str, header: &str, from: &str, to: &str) -> Option<String> {
    let (a, b) = table(text, header)?;
    let section = &text[a..b];
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(if word == from { to } else { word });
        word.clear();
    };
    for ch in section.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            word.push(ch);
        } else {
            flush(&mut word, &mut out);
            out.push(ch);
        }
    }
    flush(&mut word, &mut out);
    if out == section {
        return None;
    }
    Some(format!("{}{out}{}", &text[..a], &text[b..]))
}

/// One compile: what it checks, and the command (with its working folder).
pub struct Job {
    pub what: String,
    pub cmd: Command,
}

/// A compile of `args` by `tool`, run in `dir`.
pub fn job(what: impl Into<String>, tool: &Path, args: &[&str], dir: &Path) -> Job {
    let mut cmd = Command::new(tool);
    cmd.args(args).current_dir(dir);
    Job { what: what.into(), cmd }
}

/// Runs the jobs on every core; the failures, sorted, each with its first
/// lines of output. A job fails on a non-zero exit, and on the error lines
/// some tools print while they exit 0 (glslang's `ERROR:`, naga's `Could not
/// parse`).
pub fn run_jobs(jobs: Vec<Job>) -> Vec<String> {
    let queue = std::sync::Mutex::new(jobs);
    let failures = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let Some(mut j) = queue.lock().unwrap().pop() else { break };
                let out = j.cmd.output().unwrap_or_else(|e| panic!("{}: {e}", j.what));
                let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                if !out.status.success() || log.contains("ERROR:") || log.contains("Could not parse") {
                    let head: Vec<&str> = log.lines().take(12).collect();
                    failures.lock().unwrap().push(format!("{} failed:\n{}", j.what, head.join("\n")));
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    f
}

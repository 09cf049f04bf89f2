//! Compiles a small C program against the committed header
//! `include/aether_reference.h`, links it with the static library
//! `libaether_reference_capi.a` and runs it. Skipped (with a message) when no
//! C compiler is on PATH.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const LIB: &str = "libaether_reference_capi";

const PROGRAM: &str = r#"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "aether_reference.h"

static uint64_t f32_word(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

int main(void) {
    uint64_t in[6], out[4];
    const char *family = NULL, *shape = NULL, *elem = NULL;
    ptrdiff_t rc;
    int i;
    for (i = 0; i < 6; i++) in[i] = f32_word((float)(i + 1));
    rc = aether_ref_call("dot", "vec3", "f32", in, 6, out, 4);
    printf("dot %td %016" PRIx64 "\n", rc, out[0]);
    printf("unknown %td\n", aether_ref_call("dot", "vec9", "f32", in, 6, out, 4));
    printf("bad_input %td\n", aether_ref_call("dot", "vec3", "f32", in, 5, out, 4));
    printf("out_too_small %td\n", aether_ref_call("cross", "vec3", "f32", in, 6, out, 2));
    rc = aether_ref_call("sum_array", "scalar", "f64", NULL, 0, out, 4);
    printf("empty %td\n", rc);
    printf("count %zu\n", aether_ref_count());
    rc = aether_ref_entry(0, &family, &shape, &elem);
    printf("entry0 %d %s/%s/%s\n", (int)rc, family, shape, elem);
    printf("entry_out_of_range %d\n", aether_ref_entry(aether_ref_count(), &family, &shape, &elem));
    printf("version %s\n", aether_ref_version());
    printf("codes %d %d %d %d\n", AETHER_REF_UNKNOWN, AETHER_REF_BAD_INPUT, AETHER_REF_OUT_TOO_SMALL, AETHER_REF_NULL_POINTER);
    return 0;
}
"#;

/// The C compiler: `$CC`, else `cc`, `gcc` or `clang`, whichever answers first.
fn compiler() -> Option<String> {
    let candidates = std::env::var("CC").ok().into_iter().chain(["cc", "gcc", "clang"].map(String::from));
    candidates.into_iter().find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

fn newest(paths: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
    paths
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().unwrap_or(SystemTime::UNIX_EPOCH), p)))
        .max_by_key(|(modified, _)| *modified)
        .map(|(_, p)| p)
}

/// The static library cargo built with this test: the test executable is in
/// `target/<profile>/deps`, where cargo also puts `libaether_reference_capi-<hash>.a`
/// (and `cargo build` copies one to `target/<profile>/`); the newest wins.
/// When there is none, builds it with `cargo build` into a target directory
/// of its own (the running `cargo test` holds the lock on this one).
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let profile_dir = deps.parent().unwrap();
    let in_deps = std::fs::read_dir(deps)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&format!("{LIB}-")) && n.ends_with(".a")));
    if let Some(found) = newest(in_deps.chain([profile_dir.join(format!("{LIB}.a"))])) {
        return found;
    }
    let target_dir = profile_dir.join("capi-smoke-target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("c_smoke: no {LIB}.a next to {}; building it into {}", exe.display(), target_dir.display());
    let status = Command::new(cargo)
        .args(["build", "--release", "-p", "aether-reference-capi", "--target-dir"])
        .arg(&target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("running cargo build");
    assert!(status.success(), "cargo build -p aether-reference-capi failed");
    target_dir.join("release").join(format!("{LIB}.a"))
}

#[test]
fn c_program_links_and_runs() {
    let Some(cc) = compiler() else {
        eprintln!("c_smoke: SKIPPED: no C compiler ($CC, cc, gcc, clang) on PATH");
        return;
    };
    let library = static_library();
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let dir = std::env::temp_dir().join(format!("aether-capi-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("main.c");
    let binary = dir.join("main");
    std::fs::write(&source, PROGRAM).unwrap();

    let compile = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"])
        .arg(&source)
        .arg("-I")
        .arg(&include)
        .arg(&library)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&binary)
        .output()
        .expect("running the C compiler");
    assert!(
        compile.status.success(),
        "{cc} failed on {} with {}:\n{}{}",
        source.display(),
        library.display(),
        String::from_utf8_lossy(&compile.stdout),
        String::from_utf8_lossy(&compile.stderr)
    );

    let run = Command::new(&binary).output().expect("running the C program");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "the C program failed ({}):\n{stdout}{stderr}", run.status);
    assert_eq!(stderr, "", "the reference's panic on a bad input must stay silent");

    let count = aether_reference::flat::entries().len();
    let (f0, s0, e0) = aether_reference::flat::entries()[0];
    let expected = format!(
        "dot 1 {:016x}\nunknown -1\nbad_input -2\nout_too_small -3\nempty 1\ncount {count}\nentry0 0 {f0}/{s0}/{e0}\nentry_out_of_range -1\nversion {}\ncodes -1 -2 -3 -4\n",
        32.0f32.to_bits(),
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(stdout, expected);
    assert!(stdout.starts_with("dot 1 0000000042000000\n"));
    std::fs::remove_dir_all(&dir).ok();
}

//! The header-only core inlined into a caller's loops gives the shipped
//! object's bits on every item (`tests/c/inline_loops.c`: one loop per scalar
//! function of one or two inputs, binary32 and binary64, against the object
//! called item by item; NaN against NaN is the same result).
//!
//! With clang on x86-64 the header-only form is laid out for LLVM's loop
//! vectoriser (`AETHER_VECTOR_INLINE` in `aether_core.h`: by-value functions
//! through ms_abi, the OR guard on every product, its opaque zero made once
//! per function). This test shows that clang does vectorise every one of
//! these loops (its `-Rpass=loop-vectorize` remarks), so the bits are checked
//! on the vector path, not on a scalar fallback; and that the guards are what
//! hold them there: the same loops with `-DAETHER_UNSAFE_ALLOW_CONTRACTION`
//! move results. gcc's header-only form (the register-pinning guard) is
//! checked too.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Items per input class (three classes, see the C file).
const N: &str = "131072";

/// The loops the C file defines (13 one-input and 2 two-input functions,
/// each in binary32 and binary64).
const LOOPS: usize = 30;

fn run(cmd: &mut Command) -> String {
    let shown = format!("{cmd:?}");
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot start {shown}: {e}"));
    assert!(out.status.success() || out.status.code() == Some(1), "{shown} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Builds the harness with `cc`: the loops with `flags` (header-only), the
/// object and main at -O2. Returns the binary and the loops' compiler output.
fn build(dir: &Path, cc: &str, flags: &[&str]) -> (PathBuf, String) {
    std::fs::create_dir_all(dir).unwrap();
    let root = aether_generator::default_root();
    let core = root.join("c_core");
    let src = root.join("tests/c/inline_loops.c");
    let loops = dir.join("loops.o");
    let mut c = Command::new(cc);
    c.args(flags)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-DINLINE_LOOPS", "-c"])
        .arg("-I")
        .arg(&core)
        .arg(&src)
        .arg("-o")
        .arg(&loops);
    if cc == "clang" {
        c.arg("-Rpass=loop-vectorize");
    }
    let remarks = run(&mut c);
    let object = dir.join("core.o");
    run(Command::new(cc).args(["-O2", "-std=c99", "-c"]).arg("-I").arg(&core).arg(core.join("aether_core.c")).arg("-o").arg(&object));
    let exe = dir.join("inline_loops");
    run(Command::new(cc).args(["-O2", "-std=c99", "-I"]).arg(&core).arg(&src).arg(&loops).arg(&object).args(["-lm", "-o"]).arg(&exe));
    (exe, remarks)
}

/// Runs the harness; returns (mismatches, results) from its last line.
fn mismatches(exe: &Path) -> (u64, u64) {
    let out = run(Command::new(exe).arg(N));
    let last = out.lines().rfind(|l| l.starts_with("inline_loops: ")).unwrap_or_else(|| panic!("no summary line:\n{out}"));
    let words: Vec<&str> = last.split_whitespace().collect();
    (words[1].parse().unwrap(), words[4].parse().unwrap())
}

#[test]
fn the_inlined_loops_give_the_objects_bits_and_clang_vectorises_them() {
    let tmp = std::env::temp_dir().join(format!("aether-inline-loops-{}", std::process::id()));
    let configs: [(&str, &[&str]); 4] = [
        ("clang", &["-O2", "-march=x86-64-v3"]),
        ("clang", &["-O3", "-march=x86-64-v3", "-ffp-contract=fast"]),
        ("gcc", &["-O2", "-march=x86-64-v3"]),
        ("gcc", &["-O3", "-march=x86-64-v3", "-ffp-contract=fast"]),
    ];
    for (k, (cc, flags)) in configs.iter().enumerate() {
        let (exe, remarks) = build(&tmp.join(format!("c{k}")), cc, flags);
        let (bad, total) = mismatches(&exe);
        println!("{cc} {}: {bad} mismatches in {total} results", flags.join(" "));
        assert_eq!(bad, 0, "{cc} {flags:?}: the inlined loops differ from the object");
        assert!(total >= LOOPS as u64 * 3 * 131_072);
        if *cc == "clang" {
            let vectorised = remarks.matches("remark: vectorized loop").count();
            println!("  clang vectorised {vectorised} of {LOOPS} loops");
            assert_eq!(vectorised, LOOPS, "clang {flags:?}: not every loop vectorised:\n{remarks}");
        }
    }
    // The control: the guards removed, the vectorised loops fuse products
    // (-ffp-contract=fast with FMA) and results move.
    let (exe, remarks) =
        build(&tmp.join("control"), "clang", &["-O3", "-march=x86-64-v3", "-ffp-contract=fast", "-DAETHER_UNSAFE_ALLOW_CONTRACTION"]);
    let (bad, total) = mismatches(&exe);
    println!("control, clang without the guards: {bad} mismatches in {total} results");
    assert!(bad > 0, "without the guards no result moved: the test cannot see a fused product");
    assert_eq!(remarks.matches("remark: vectorized loop").count(), LOOPS);
    std::fs::remove_dir_all(&tmp).ok();
}

/// The per-item vector forms (`AETHER_ITEM_SHUFFLES`, aether_core.c) are
/// compiled exactly where the core says: with AVX under gcc 12 and clang,
/// header-only and in the objects, gcc's object loading its callers' 16-byte
/// copies as they are made (`AETHER_ITEM_COPIES_BY_16_BYTES`); without AVX,
/// their 16-byte forms (`AETHER_ITEM_SHUFFLES_128`: x86-64's baseline);
/// neither with `-DAETHER_NO_ITEM_SHUFFLES`.
/// So the compatibility matrix's AVX cells and the benchmark do run them,
/// and no build silently falls back. Read from the preprocessor's macro list.
#[test]
fn the_item_forms_are_compiled_where_the_core_says() {
    let core = aether_generator::default_root().join("c_core");
    // The header-only unit: a file of its own (not `-x c /dev/null`: scripts/null-device.sh).
    let unit = std::env::temp_dir().join(format!("aether-item-forms-{}.c", std::process::id()));
    std::fs::write(&unit, "#include \"aether_core.h\"\n").unwrap();
    let defined = |cc: &str, header_only: bool, flags: &[&str]| {
        let mut c = Command::new(cc);
        c.args(flags).args(["-std=c99", "-E", "-dM", "-I"]).arg(&core);
        if header_only {
            c.arg("-DAETHER_HEADER_ONLY").arg(&unit);
        } else {
            c.arg(core.join("aether_core.c"));
        }
        let out = run(&mut c);
        let has = |m: &str| out.lines().any(|l| l.trim() == format!("#define {m} 1"));
        (has("AETHER_ITEM_SHUFFLES"), has("AETHER_ITEM_COPIES_BY_16_BYTES"), has("AETHER_ITEM_SHUFFLES_128"))
    };
    let avx = ["-O2", "-march=x86-64-v3"];
    let no = ["-O2", "-march=x86-64-v3", "-DAETHER_NO_ITEM_SHUFFLES"];
    let no_base = ["-O2", "-DAETHER_NO_ITEM_SHUFFLES"];
    // (compiler, header-only, flags, the forms, the loads by 16 bytes, the 16-byte forms)
    type Case<'a> = (&'a str, bool, &'a [&'a str], bool, bool, bool);
    let cases: [Case; 12] = [
        ("gcc", true, &avx, true, false, false),
        ("clang", true, &avx, true, false, false),
        ("clang", false, &avx, true, false, false),
        ("gcc", false, &avx, true, true, false),
        ("gcc", true, &["-O2"], false, false, true),
        ("gcc", false, &["-O2"], false, false, true),
        ("clang", false, &["-O2"], false, false, true),
        ("gcc", true, &no, false, false, false),
        ("gcc", false, &no, false, false, false),
        ("clang", false, &no, false, false, false),
        ("gcc", false, &no_base, false, false, false),
        ("clang", true, &no_base, false, false, false),
    ];
    for (cc, header_only, flags, forms, spills, base) in cases {
        let form = if header_only { "header-only" } else { "object" };
        assert_eq!(
            defined(cc, header_only, flags),
            (forms, spills, base),
            "{cc} {form} {flags:?}: (AETHER_ITEM_SHUFFLES, AETHER_ITEM_COPIES_BY_16_BYTES, AETHER_ITEM_SHUFFLES_128)"
        );
    }
    let _ = std::fs::remove_file(&unit);
}

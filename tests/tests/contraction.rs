//! The guards hold. The real C core, compiled the way a careless consumer
//! might (`-ffp-contract=fast -mfma`: the compiler may fuse any product into
//! an addition), with gcc and clang at several optimisation levels, gives the
//! corpus's bits on every function, and its self-test passes: the pragmas
//! (gcc) and the product guards (clang) turn contraction off. Each guard is
//! shown to matter, not assumed: with `-DAETHER_UNSAFE_ALLOW_CONTRACTION`
//! the plain functions move and the self-test fails, while the compensated
//! functions still hold by their volatile barrier; and the same core without
//! its barriers (the `no-barrier` mutant) fails corpus cases in at least one
//! configuration.
//!
//! Whether a compiler fuses a product that feeds a two-sum depends on the
//! shape of the code around it: GCC 12 at -O2 vectorises the Neumaier step
//! (SLP), which hides the product from its FMA pass, but at
//! `-O2 -fno-tree-vectorize` (the -O2 of GCC 11 and older) it fuses. The
//! barrier does not depend on such luck.

use aether_generator::model::{Builtin, Callable, Expr, KernelKind};
use aether_generator::{mutants, output, targets};
use aether_tests::{compile_core, corpus, functions, model, policy, selftest, thunk, width, witnesses};

/// Contraction on, FMA available: the compilers may fuse `a*b + c`, also
/// across statements, under these flags.
const CONTRACTED: [&str; 3] = ["-std=c99", "-ffp-contract=fast", "-mfma"];

/// The compilers and optimisation levels tried.
const CONFIGS: [(&str, &[&str]); 6] = [
    ("gcc", &["-O2"]),
    ("gcc", &["-O3"]),
    ("gcc", &["-O2", "-fno-tree-vectorize"]),
    ("clang", &["-O2"]),
    ("clang", &["-O3"]),
    ("clang", &["-O2", "-fno-tree-vectorize"]),
];

/// A function is compensated when its tree passes a barrier; every kernel
/// is, except the linear algebra (plain, like the folds: it needs the
/// contract's -ffp-contract=off).
fn compensated(c: Callable) -> bool {
    match c {
        Callable::Function(f) => {
            let mut found = false;
            for e in f.exprs() {
                e.visit(&mut |x| found |= matches!(x, Expr::Call(Builtin::Barrier, _)));
            }
            found
        }
        Callable::Kernel(k) => !matches!(k.kind, KernelKind::Linalg { .. }),
    }
}

/// The C names whose corpus cases fail on a core, and the number of failing
/// cases.
fn failures(lib: &libloading::Library, only_compensated: Option<bool>) -> (Vec<String>, usize) {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let fns = functions();
    let (mut names, mut cases) = (Vec::new(), 0);
    for f in model.callables() {
        if only_compensated.is_some_and(|want| compensated(f) != want) {
            continue;
        }
        let name = f.c_name(&model);
        let cf = fns.iter().find(|c| c.name == name).unwrap();
        let ptr = thunk(lib, &name);
        let w = width(f.elem());
        let bad = corpus[&name]
            .cases
            .iter()
            .filter(|c| !policy::matches(&c.expected, &(cf.call)(ptr, &c.inputs), w, f.is_float(), f.either_zero()))
            .count();
        if bad > 0 {
            names.push(name);
            cases += bad;
        }
    }
    (names, cases)
}

fn fma_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[test]
fn the_core_keeps_its_bits_under_contraction_and_each_guard_is_needed() {
    // The machine has FMA; without it -mfma code cannot run here.
    assert!(fma_available(), "this check needs an x86-64 CPU with FMA (the project's machines have it)");
    let model = model();
    let banner = output::banner(&model);
    let witnesses = witnesses(&model);
    let tmp = std::env::temp_dir().join(format!("aether-contraction-{}", std::process::id()));
    let n_all = model.callables().len();
    let n_comp = model.callables().into_iter().filter(|c| compensated(*c)).count();
    let (h, c) = targets::c::render_core(&model, &model.lowered(), &banner, &witnesses).unwrap();
    let (mm, ml) = mutants::Mutant::NoBarrier.build(&model).unwrap();
    let (hn, cn) = targets::c::render_core(&mm, &ml, &banner, &witnesses).unwrap();
    let mut control_caught = 0;
    // Every build of every configuration (the core, unguarded, and without
    // barriers as well), compiled on every core at once.
    let builds: Vec<(usize, &str)> = (0..CONFIGS.len()).flat_map(|k| [(k, "core"), (k, "unguarded"), (k, "no-barrier")]).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut libs: Vec<Option<libloading::Library>> = builds.iter().map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (builds, tmp, h, c, hn, cn) = (&builds, &tmp, &h, &c, &hn, &cn);
                s.spawn(move || {
                    let mut built = Vec::new();
                    for (i, (k, kind)) in builds.iter().enumerate().filter(|(i, _)| i % threads == t) {
                        let (cc, opt) = CONFIGS[*k];
                        let mut flags: Vec<&str> = CONTRACTED.iter().chain(opt.iter()).copied().collect();
                        if *kind != "core" {
                            flags.push("-DAETHER_UNSAFE_ALLOW_CONTRACTION");
                        }
                        let (hh, cc_src) = if *kind == "no-barrier" { (hn, cn) } else { (h, c) };
                        built.push((i, compile_core(&tmp.join(format!("{kind}-{k}")), hh, cc_src, cc, &flags)));
                    }
                    built
                })
            })
            .collect();
        for handle in handles {
            for (i, lib) in handle.join().unwrap() {
                libs[i] = Some(lib);
            }
        }
    });
    let mut libs = libs.into_iter().map(|l| l.unwrap());
    for (cc, opt) in CONFIGS.iter() {
        let flags: Vec<&str> = CONTRACTED.iter().chain(opt.iter()).copied().collect();
        let what = format!("{cc} {}", flags.join(" "));
        // 1. The core as generated: the pragmas (gcc) and the product guards
        // (clang) keep every function's bits, and the self-test passes.
        let core = libs.next().unwrap();
        let (all_bad, all_cases) = failures(&core, None);
        assert!(all_bad.is_empty(), "the core does not hold under {what}: {all_cases} cases fail in {all_bad:?}");
        let (status, message) = selftest(&core, &model);
        assert_eq!(status, 0, "the self-test fails under {what}: {message}");
        // 2. The guards off (AETHER_UNSAFE_ALLOW_CONTRACTION): the flags do
        // contract, so plain functions move and the self-test says so; the
        // compensated ones still hold by their volatile barrier.
        let unguarded = libs.next().unwrap();
        let (bad, bad_cases) = failures(&unguarded, Some(true));
        let (plain_bad, plain_cases) = failures(&unguarded, Some(false));
        assert!(bad.is_empty(), "the barrier does not hold under {what}: {bad:?}");
        assert!(!plain_bad.is_empty(), "{what} changed no plain function: the build did not contract");
        let (ustatus, umessage) = selftest(&unguarded, &model);
        assert!(
            ustatus & aether_tests::sys::AETHER_SELFTEST_WITNESS as i32 != 0,
            "the self-test passes a contracted core under {what}: {umessage}"
        );
        // 3. The barrier off as well (the no-barrier mutant, unguarded).
        let control = libs.next().unwrap();
        let (caught, caught_cases) = failures(&control, Some(true));
        control_caught += caught.len();
        println!(
            "contraction: {what}: all {n_all} functions hold, self-test ok; with -DAETHER_UNSAFE_ALLOW_CONTRACTION: {n_comp} compensated \
             functions and kernels: {} fail ({bad_cases} cases); plain functions that move: {} ({plain_cases} cases), self-test status {ustatus}; \
             without barriers as well: {} compensated fail ({caught_cases} cases) {}",
            bad.len(),
            plain_bad.len(),
            caught.len(),
            caught.join(" ")
        );
    }
    assert!(
        control_caught > 0,
        "without its barriers the contracted core passes in every configuration: the barrier is not shown to matter"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

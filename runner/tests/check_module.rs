//! The generated check module (`aether_generator::targets::wgsl`) on both
//! stacks, on the corpus and a few random inputs per entry: every in-domain
//! case within its band, and the unguarded module changes the compensated
//! functions on lavapipe. `scripts/wgsl.sh` runs the same at full size.
//!
//! A stack that is not installed is skipped with a message, unless
//! AETHER_REQUIRE_WGSL=1.

use aether_generator::targets::wgsl::{self, Guard};
use aether_runner::compare;
use aether_runner::exec::{Error, Executor};

fn open(stack: &str) -> Option<Box<dyn Executor>> {
    match aether_runner::open(stack) {
        Ok(e) => Some(e),
        Err(Error::NotInstalled(m)) if std::env::var("AETHER_REQUIRE_WGSL").as_deref() != Ok("1") => {
            eprintln!("SKIPPED: the {stack} stack is not installed here ({m}); AETHER_REQUIRE_WGSL=1 makes this a failure");
            None
        }
        Err(e) => panic!("{stack}: {e}"),
    }
}

fn within_bands(stack: &str) {
    let Some(mut exec) = open(stack) else { return };
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).unwrap();
    let corpus = aether_generator::corpus::read_committed(&root).unwrap();
    let module = wgsl::check_module(&model, &model.lowered(), Guard::Bits);
    assert!(!module.entries.is_empty(), "the check module has entries");
    let cases = compare::prepare(&model, &module, &corpus, 300, aether_runner::inputs::DEFAULT_SEED).unwrap();
    let run = compare::run_stack(&model, exec.as_mut(), &module, &cases).unwrap_or_else(|e| panic!("{stack}: {e}"));
    assert_eq!(run.rows.len(), module.entries.len());
    let bad: Vec<String> = run
        .rows
        .iter()
        .filter(|r| r.outside > 0)
        .map(|r| format!("{}: {} in-domain cases outside {} (worst {:?})", r.c_name, r.outside, r.band, r.worst_outside))
        .collect();
    assert!(bad.is_empty(), "{stack} ({}):\n{}", run.adapter, bad.join("\n"));
}

#[test]
fn the_check_module_is_within_its_bands_on_wgpu() {
    within_bands("wgpu");
}

#[test]
fn the_check_module_is_within_its_bands_on_dawn() {
    within_bands("dawn");
}

/// The entries `keep` selects, with and without the guard, on lavapipe over
/// the corpus and 2000 random inputs each: (guarded run, unguarded run), or
/// None when lavapipe is not installed.
fn with_and_without_the_guard(keep: &dyn Fn(&str) -> bool) -> Option<(compare::StackRun, compare::StackRun)> {
    let mut exec = open("wgpu")?;
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).unwrap();
    let corpus = aether_generator::corpus::read_committed(&root).unwrap();
    let lowered = model.lowered();
    let only =
        |m: wgsl::CheckModule| wgsl::CheckModule { source: m.source, entries: m.entries.into_iter().filter(|e| keep(&e.c_name)).collect() };
    let base = only(wgsl::check_module(&model, &lowered, Guard::Bits));
    let none = only(wgsl::check_module(&model, &lowered, Guard::None));
    assert!(!base.entries.is_empty(), "no entry selected");
    let cases = compare::prepare(&model, &base, &corpus, 2000, 1).unwrap();
    let b = compare::run_stack(&model, exec.as_mut(), &base, &cases).unwrap();
    let n = compare::run_stack(&model, exec.as_mut(), &none, &cases).unwrap();
    Some((b, n))
}

#[test]
fn without_the_guard_lavapipe_changes_the_compensated_functions() {
    let Some((b, n)) = with_and_without_the_guard(&|name| name.ends_with("_two_sum") || name.ends_with("_combine")) else { return };
    let changed = compare::changes(&b, &n);
    eprintln!("{}: unguarded: {changed:?}", n.adapter);
    assert!(changed.iter().any(|c| c.c_name.ends_with("_two_sum")), "the unguarded two_sum keeps its residual on lavapipe: {changed:?}");
}

/// The per-lane linear algebra is unbounded in the spec's WGSL bands (a GPU
/// driver divides within 2 ulp and fuses products) and held to bits on a
/// stack that rounds every operation to nearest: one flipped low bit in every
/// in-domain case's first result word is outside the band there, and passes
/// as unbounded elsewhere. Needs no stack.
#[test]
fn the_linear_algebra_is_held_to_bits_only_on_stacks_that_round_to_nearest() {
    let root = aether_generator::default_root();
    let model = aether_generator::load(&root).unwrap();
    let corpus = aether_generator::corpus::read_committed(&root).unwrap();
    let module = wgsl::check_module(&model, &model.lowered(), Guard::Bits);
    let cases = compare::prepare(&model, &module, &corpus, 200, aether_runner::inputs::DEFAULT_SEED).unwrap();
    let lu = cases.iter().find(|c| c.c_name == "aether_mat3f_lu").expect("aether_mat3f_lu is checked");
    let exact = compare::judge(&model, lu, &lu.expected, true);
    assert!(exact.in_domain > 0 && exact.outside == 0, "the reference's own words: {exact:?}");
    let mut got = lu.expected.clone();
    for k in 0..lu.inputs.cases() {
        got[k * lu.n_out] ^= 1;
    }
    let held = compare::judge(&model, lu, &got, true);
    assert_eq!(held.outside, held.in_domain, "held to bits, every in-domain case is outside: {}", held.band);
    assert!(held.band.starts_with("bits"), "{}", held.band);
    let loose = compare::judge(&model, lu, &got, false);
    assert_eq!(loose.outside, 0, "unbounded: {}", loose.band);
    assert_eq!(loose.band, "unbounded");
    // The info word (the last): a whole number, exact when held, measured
    // when unbounded (a 2-ulp division can miss a zero pivot).
    let mut got = lu.expected.clone();
    for k in 0..lu.inputs.cases() {
        got[(k + 1) * lu.n_out - 1] ^= 1;
    }
    assert_eq!(compare::judge(&model, lu, &got, true).outside, held.in_domain);
    assert_eq!(compare::judge(&model, lu, &got, false).outside, 0);
}

/// The elementary functions round to an integer by the shifter,
/// `(x + 1.5 * 2^23) - 1.5 * 2^23`, which lavapipe folds to x unless the sums
/// pass through the guard (the printer guards every function whose tree has
/// the shifter, `(x + C) - C`): without the guard exp gives other bits there.
#[test]
fn without_the_guard_lavapipe_folds_the_shifter_of_exp() {
    let Some((b, n)) = with_and_without_the_guard(&|name| name == "aether_f32_exp") else { return };
    let guarded = &b.rows[0];
    assert_eq!(guarded.identical, guarded.cases, "{}: the guarded exp gives the reference's bits: {guarded:?}", b.adapter);
    let changed = compare::changes(&b, &n);
    assert!(changed.iter().any(|c| c.c_name == "aether_f32_exp"), "{}: the unguarded exp keeps its bits: {changed:?}", n.adapter);
}

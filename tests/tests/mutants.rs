//! The check can fail: the C core built from each mutant rule (fold order
//! reversed, zero seed, true division, FMA, hypot, ...) is compiled, loaded and
//! run on the corpus. The functions it mismatches must be exactly the ones
//! whose tree it changes and for which the corpus holds a witness (at least),
//! and never one it leaves unchanged.

use std::collections::BTreeSet;

use aether_generator::{corpus as gen_corpus, mutants, output, targets};

/// Mutants that change a function's tree but provably no bit of its result
/// (with the C core compiled as the contract says), by family, with the
/// reason. A survivor not listed here fails the test.
const EQUIVALENT: [(&str, &[&str], &str); 6] = [
    ("fold-left", &["is_finite"], "`&&` of truth values without side effects is order-free"),
    (
        "fold-seeded",
        &["squared_norm", "norm", "normalize", "is_finite", "slerp"],
        "a zero seed under a sum of squares: the first square is +0, positive or NaN, never -0, so +0 + a0*a0 is a0*a0 \
         exactly; and 1 && x is x; slerp's dot with a zero seed differs only where the dot is -0 (it becomes +0), and slerp \
         reads it through d < 0, d > 1 - 2^-11 and acos, where -0 and +0 agree (acos's small form gives pi/2 rounded for both)",
    ),
    (
        "no-barrier",
        &["two_sum_err", "two_sum", "neumaier_add", "pair_combine", "pair_value", "reduce32", "lanes_sum", "lanes_dot", "sum_array", "dot_array", "plane_add", "plane_resolve"],
        "a barrier only forbids contraction, which -ffp-contract=off already forbids; tests/contraction.rs kills it under -ffp-contract=fast -mfma",
    ),
    (
        "neg-sub",
        &["sincos", "sin", "cos", "tan", "from_axis_angle", "atan", "asin", "slerp"],
        "x * -1 and 0 - x differ only on a zero x; the negated sin r and cos r are never zero (cos r >= 0.7, and r = 0 needs a = 0, \
         whose quadrant negates nothing); from_axis_angle and slerp negate nothing but inside their sin; atan and asin negate r \
         only for x < 0, where r is not zero; tan negates rl only to subtract it from the nonzero low part of pi/4 (a -0 and \
         a +0 give the same difference), and its other negations are of values at least 0.6 in magnitude",
    ),
    (
        "product-order",
        &["log", "log2"],
        "log's (and log2's) one product of three factors is h = 0.5 * f * f, and a product by 0.5 is exact: (0.5 f) f and 0.5 (f f) are the \
         same number (f = m - 1 is 0 or at least 2^-24 (f32) or 2^-53 (f64) in magnitude, so f f is never subnormal)",
    ),
    (
        "reciprocal",
        &["sincos", "sin", "cos", "from_axis_angle", "from_euler_xyz"],
        "the one division is z / z with z = a - a, +0 or NaN: 0 / 0 and 0 * (1 / 0) are both NaN (the rotations divide only \
         inside their sincos)",
    ),
];
use aether_tests::{compile_core, corpus, functions, model, mutant_flags, policy, selftest, thunk, width, witnesses, CC};

#[test]
fn every_mutant_core_fails_the_corpus_where_it_changes_bits() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let fns = functions();
    let lowered = model.lowered();
    // The self-test's witnesses come from the model's own corpus, so every
    // mutant core replays them and (but for no-barrier) must fail.
    let witnesses = witnesses(&model);
    let mut selftest_failed = 0;
    let tmp = std::env::temp_dir().join(format!("aether-mutants-{}", std::process::id()));
    let mut report = Vec::new();
    let (mut total, mut killed, mut equivalent, mut undocumented) = (0, 0, Vec::new(), Vec::new());
    // The mutant cores are rendered and compiled on every core at once; the
    // checks below run one mutant after another.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(mutants::ALL.len());
    let mut libs: Vec<Option<libloading::Library>> = (0..mutants::ALL.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (model, witnesses, tmp) = (&model, &witnesses, &tmp);
                s.spawn(move || {
                    let mut built = Vec::new();
                    for (i, m) in mutants::ALL.iter().enumerate().filter(|(i, _)| i % threads == t) {
                        let (mutant_model, mutated) = m.build(model).unwrap();
                        let (h, c) = targets::c::render_core(&mutant_model, &mutated, &output::banner(model), witnesses).unwrap();
                        built.push((i, compile_core(&tmp.join(m.name()), &h, &c, CC, &mutant_flags())));
                    }
                    built
                })
            })
            .collect();
        for h in handles {
            for (i, lib) in h.join().unwrap() {
                libs[i] = Some(lib);
            }
        }
    });
    for (m, lib) in mutants::ALL.into_iter().zip(libs) {
        let (mutant_model, mutated) = m.build(&model).unwrap();
        let lib = lib.unwrap();
        let (mut changed, mut witnessed, mut caught) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        let mut family_of = std::collections::BTreeMap::new();
        for (i, f) in model.callables().into_iter().enumerate() {
            let name = f.c_name(&model);
            family_of.insert(name.clone(), f.family().to_string());
            if gen_corpus::changes(&model, &lowered, &mutant_model, &mutated, i) {
                changed.insert(name.clone());
            }
            let cases = &corpus[&name].cases;
            if cases.iter().any(|c| c.label.contains(&format!("discriminates {}:", m.name()))) {
                witnessed.insert(name.clone());
            }
            let cf = fns.iter().find(|c| c.name == name).unwrap();
            // The mutant's version of `name`, of the same C type.
            let ptr = thunk(&lib, &name);
            let w = width(f.elem());
            if cases.iter().any(|c| !policy::matches(&c.expected, &(cf.call)(ptr, &c.inputs), w, f.is_float(), f.either_zero())) {
                caught.insert(name.clone());
            }
        }
        report.push(format!(
            "mutant {:<19} changes {:>3} functions, the corpus catches {:>3} (witnessed {:>3})",
            m.name(),
            changed.len(),
            caught.len(),
            witnessed.len()
        ));
        if m == mutants::Mutant::FoldLeft {
            report.push(format!("  fold-left caught in: {}", caught.iter().cloned().collect::<Vec<_>>().join(" ")));
        }
        let (status, message) = selftest(&lib, &model);
        if m == mutants::Mutant::NoBarrier {
            assert_eq!(status, 0, "no-barrier fails the self-test without contraction: {message}");
        } else {
            // The witness bit, and the message names the rule.
            assert!(
                status & aether_tests::sys::AETHER_SELFTEST_WITNESS as i32 != 0,
                "mutant {}: aether_selftest() passes: {message}",
                m.name()
            );
            assert!(
                message.contains("than the contract on its witness for"),
                "mutant {}: the self-test names no function: {message}",
                m.name()
            );
            selftest_failed += 1;
        }
        if m == mutants::Mutant::NoBarrier {
            // Without contraction a barrier changes no bit: the corpus cannot
            // and must not catch its absence here. tests/contraction.rs builds
            // this mutant with -ffp-contract=fast -mfma, where it must fail.
            assert!(caught.is_empty() && witnessed.is_empty(), "no-barrier is caught without contraction: {caught:?}");
            assert!(!changed.is_empty(), "no function has a barrier");
        } else {
            assert!(!caught.is_empty(), "mutant {} is not caught by any corpus case", m.name());
        }
        for name in &changed {
            total += 1;
            if caught.contains(name) {
                killed += 1;
                continue;
            }
            match EQUIVALENT.iter().find(|(mm, fams, _)| *mm == m.name() && fams.contains(&family_of[name].as_str())) {
                Some((_, _, why)) => equivalent.push(format!("{} on {name}: {why}", m.name())),
                None => undocumented.push(format!("{} on {name}", m.name())),
            }
        }
        let missed: Vec<_> = witnessed.difference(&caught).collect();
        assert!(missed.is_empty(), "mutant {}: the corpus has witnesses but the C core passed for {missed:?}", m.name());
        let spurious: Vec<_> = caught.difference(&changed).collect();
        assert!(spurious.is_empty(), "mutant {}: mismatches in functions it does not change: {spurious:?}", m.name());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("{}", report.join("\n"));
    println!(
        "selftest: aether_selftest() fails, naming a function and its rule, in {selftest_failed} of {} mutant cores (all but no-barrier, which changes no bit without contraction)",
        mutants::ALL.len()
    );
    let score = 100.0 * f64::from(killed) / f64::from(total - equivalent.len() as u32);
    println!(
        "mutation score: {} mutants, {total} (mutant, function) pairs that change a tree; {killed} killed by the corpus, \
         {} documented as equivalent, {} survivors: {score:.1}% of the non-equivalent killed",
        mutants::ALL.len(),
        equivalent.len(),
        undocumented.len()
    );
    for (m, fams, why) in EQUIVALENT {
        let n = equivalent.iter().filter(|e| e.starts_with(&format!("{m} on"))).count();
        println!("  equivalent: {m} on {n} functions of {}: {why}", fams.join(", "));
    }
    assert!(undocumented.is_empty(), "mutants survive the corpus without a documented equivalence:\n{}", undocumented.join("\n"));
}

//! The integer predicates on the C core: both generated forms against the
//! hand-written golden reference, on the corpus and on the sweep classes the
//! issue names; the three wrong spellings as negative controls; and the spec
//! mutant that drops the round-to-nearest-even modelling, killed by the
//! corpus.

use std::time::Instant;

use aether_generator::predicate::{Form, PTy, Value};
use aether_generator::predicate_corpus;
use aether_reference::angle;
use aether_tests::{corpus, model, sys};

/// The size of the sweep's random classes (`predicate_corpus::sweep`);
/// AETHER_PREDICATE_SWEEP sets another (the report's longer run).
fn random() -> usize {
    std::env::var("AETHER_PREDICATE_SWEEP").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

fn table() -> &'static [sys::aether_pflat_entry] {
    // SAFETY: a static C table of aether_pflat_count entries.
    unsafe { std::slice::from_raw_parts(sys::aether_pflat_table.as_ptr(), sys::aether_pflat_count as usize) }
}

fn entry(name: &str) -> &'static sys::aether_pflat_entry {
    table()
        .iter()
        .find(|e| {
            // SAFETY: the names are static NUL-terminated strings.
            unsafe { std::ffi::CStr::from_ptr(e.name) }.to_str().unwrap() == name
        })
        .unwrap_or_else(|| panic!("{name}: not in the C core's predicate table"))
}

fn call(f: sys::aether_pflat_fn, args: &[u64]) -> bool {
    // SAFETY: the thunk reads n_in words, which `args` holds.
    unsafe { f.expect("a thunk")(args.as_ptr()) != 0 }
}

#[test]
fn the_c_table_lists_every_predicate_of_the_spec() {
    let m = model();
    let names: Vec<String> = table().iter().map(|e| unsafe { std::ffi::CStr::from_ptr(e.name) }.to_str().unwrap().to_string()).collect();
    let spec: Vec<String> = m.spec.predicates.predicates.iter().map(|p| p.name.clone()).collect();
    assert_eq!(names, spec);
    for (e, p) in table().iter().zip(&m.spec.predicates.predicates) {
        assert_eq!(e.n_in as usize, p.params.len(), "{}", p.name);
    }
}

#[test]
fn the_self_test_passes_on_the_c_core() {
    // SAFETY: a plain C function.
    let bad = unsafe { sys::aether_pflat_selftest() };
    println!("aether_predicate_selftest() of the C core: {bad} wrong answers on {} witnesses", angle::WITNESSES.len());
    assert_eq!(bad, 0);
}

#[test]
fn corpus_cases_hold_on_both_c_forms() {
    let m = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let mut n = 0;
    for p in &m.spec.predicates.predicates {
        let part = &corpus[&format!("aether_predicate_{}", p.name)];
        let e = entry(&p.name);
        assert!(
            part.cases.iter().any(|c| c.label.starts_with("witness")) || p.name != "angle_flag",
            "angle_flag: no witness in its corpus"
        );
        for c in &part.cases {
            let want = c.expected[0] == 1;
            for (form, f) in [("golden", e.golden), ("integer", e.integer)] {
                assert_eq!(call(f, &c.inputs), want, "{} ({form}) on {:?} ({})", p.name, c.inputs, c.label);
            }
            n += 1;
        }
    }
    println!("predicate corpus: {n} cases, both C forms agree with the corpus");
}

/// Every sweep class on the C core: disagreements of each C form with the
/// golden reference (none allowed) and, for angle_flag, of each wrong
/// spelling (the controls: each must disagree on the near-parallel, int32 and
/// near-tie classes).
#[test]
fn sweep_classes_agree_on_the_c_core_and_the_wrong_spellings_do_not() {
    for class in predicate_corpus::sweep(random()) {
        let e = entry(class.predicate);
        let reference = predicate_corpus::reference(class.predicate).unwrap();
        let t = Instant::now();
        let (mut n, mut bad) = (0usize, [0usize; 5]);
        let mut first: Option<String> = None;
        for chunk in class.chunks(1 << 20) {
            for a in chunk.chunks(class.arity) {
                let want = reference(a);
                let words: Vec<u64> = a.iter().map(|x| *x as u64).collect();
                let mut got = vec![call(e.golden, &words), call(e.integer, &words)];
                if class.predicate == "angle_flag" {
                    got.extend([
                        angle::wrong_exact_f64(a[0], a[1], a[2]),
                        angle::wrong_all_f32(a[0], a[1], a[2]),
                        angle::wrong_products_f32(a[0], a[1], a[2]),
                    ]);
                }
                for (k, g) in got.iter().enumerate() {
                    if *g != want {
                        bad[k] += 1;
                        if k < 2 && first.is_none() {
                            first = Some(format!("{a:?}: golden reference {want}, C form {k} {g}"));
                        }
                    }
                }
                n += 1;
            }
        }
        let controls = if class.predicate == "angle_flag" {
            format!(
                "; controls (exact int64 in binary64 / all binary32 / int64 products in binary32): {} / {} / {}",
                bad[2], bad[3], bad[4]
            )
        } else {
            String::new()
        };
        println!(
            "predicate sweep {}, {}: {n} inputs, C golden form {} and C integer form {} disagreements with the reference{controls} ({:.1} s)",
            class.predicate,
            class.class,
            bad[0],
            bad[1],
            t.elapsed().as_secs_f64()
        );
        assert_eq!(bad[0] + bad[1], 0, "{} {}: the C core disagrees, first {}", class.predicate, class.class, first.unwrap_or_default());
        // The document's sweep found 117, 123 and 158 per 3e6; ours is more
        // concentrated on the boundary (docs/reports/integer-predicate.md).
        if class.predicate == "angle_flag" && ["near-parallel int16 bands", "int32 bands", "within one ulp"].contains(&class.class.as_str())
        {
            assert!(bad[2..].iter().all(|&k| k > 0), "every wrong spelling must disagree on {}: {bad:?}", class.class);
        }
    }
}

/// The spec with shr_rne's rounding replaced by a truncation: the generator
/// refuses it (its forms disagree with the reference), and the committed
/// corpus kills it.
#[test]
fn a_mutant_without_round_to_nearest_even_is_killed_by_the_corpus() {
    let root = aether_generator::default_root();
    let text = std::fs::read_to_string(root.join(aether_generator::SPEC_PATH)).unwrap();
    let rne = "out = r > tie || (r == tie && (q & 1) == 1) ? q + 1 : q";
    assert!(text.contains(rne), "the spec's shr_rne changed: update this mutant");
    for (what, mutant) in [("truncation", "out = r > tie ? q : q"), ("ties away from zero", "out = r >= tie ? q + 1 : q")] {
        let spec = aether_generator::spec::parse("mutant.toml", &text.replace(rne, mutant)).unwrap_or_else(|e| panic!("{e}"));
        let model = aether_generator::model(&spec).unwrap_or_else(|e| panic!("{e}"));
        let refused = predicate_corpus::build(&model).expect_err("the generator must refuse the mutant");
        assert!(refused.to_string().contains("angle_flag"), "{refused}");
        let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
        let preds = &model.spec.predicates;
        let p = preds.predicate("angle_flag").unwrap();
        let part = &corpus["aether_predicate_angle_flag"];
        let killed: Vec<&str> = part
            .cases
            .iter()
            .filter(|c| {
                let args: Vec<Value> = c
                    .inputs
                    .iter()
                    .zip(&p.params)
                    .map(|(w, q)| match q.ty {
                        PTy::Int(t) => Value::Int(t, i128::from(*w as i64)),
                        _ => unreachable!(),
                    })
                    .collect();
                preds.eval(p, Form::Integer, &args).unwrap() != (c.expected[0] == 1)
            })
            .map(|c| c.label.as_str())
            .collect();
        println!("mutant shr_rne {what}: killed by {} of {} corpus cases ({})", killed.len(), part.cases.len(), killed.join(", "));
        assert!(!killed.is_empty(), "the corpus does not kill the {what} mutant");
    }
}

//! Every corpus case, on the C core and on the reference: both must give the
//! corpus's expected bits under the spec's comparison policy. A corpus that no
//! longer matches the reference (stale) fails too.

use aether_tests::{corpus, functions, hex, model, policy, width};

#[test]
fn every_corpus_case_matches_on_c_and_reference() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let fns = functions();
    let (mut n_fns, mut n_cases, mut failures) = (0, 0, Vec::new());
    for f in &model.functions {
        let name = model.c_name(f);
        let parsed = corpus.get(&name).unwrap_or_else(|| panic!("{name}: no corpus cases"));
        let c = fns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}: no C binding"));
        let reference = aether_reference::flat::lookup(&f.family, &f.shape, &f.elem).unwrap_or_else(|| panic!("{name}: no reference"));
        let w = width(&f.elem);
        n_fns += 1;
        for case in &parsed.cases {
            n_cases += 1;
            for (side, got) in [("C core", c.run(&case.inputs)), ("reference", reference(&case.inputs))] {
                if !policy::matches(&case.expected, &got, w, !f.returns_bool(), f.either_zero) {
                    failures.push(format!(
                        "{name} ({}): {side} gave {} for inputs {}, corpus expects {}",
                        case.label,
                        hex(&got, w),
                        hex(&case.inputs, w),
                        hex(&case.expected, w)
                    ));
                }
            }
        }
    }
    println!("corpus: {n_fns} functions, {n_cases} cases compared on the C core and the reference, {} mismatches", failures.len());
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.iter().take(40).cloned().collect::<Vec<_>>().join("\n"));
}

/// The umbrella header, compiled as C, lists the same functions and case
/// counts as the parts read back here.
#[test]
fn umbrella_table_agrees_with_the_parts() {
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let model = model();
    // SAFETY: plain C functions returning a count and a pointer to a static table of that length.
    let table = unsafe {
        std::slice::from_raw_parts(aether_tests::sys::aether_test_corpus_table(), aether_tests::sys::aether_test_corpus_count() as usize)
    };
    assert_eq!(table.len(), model.functions.len(), "the umbrella lists {} functions, the spec has {}", table.len(), model.functions.len());
    for (entry, f) in table.iter().zip(&model.functions) {
        // SAFETY: the table's names are static NUL-terminated C strings.
        let name = unsafe { std::ffi::CStr::from_ptr(entry.name) }.to_str().unwrap();
        assert_eq!(name, model.c_name(f));
        let parsed = &corpus[name];
        assert_eq!(entry.n_cases as usize, parsed.cases.len(), "{name}: case count");
        assert_eq!(entry.n_in as usize, parsed.n_in, "{name}: input words");
        assert_eq!(entry.n_out as usize, parsed.n_out, "{name}: result words");
        assert_eq!(entry.either_zero != 0, f.either_zero, "{name}: either-zero flag");
        assert_eq!(entry.elem_bits, width(&f.elem), "{name}: width");
    }
}

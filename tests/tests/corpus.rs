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
    let (mut n_kernels, mut kernel_words) = (0, 0);
    for f in model.callables() {
        let name = f.c_name(&model);
        let parsed = corpus.get(&name).unwrap_or_else(|| panic!("{name}: no corpus cases"));
        let c = fns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}: no C binding"));
        let reference = aether_reference::flat::lookup(f.family(), f.shape(), f.elem()).unwrap_or_else(|| panic!("{name}: no reference"));
        let w = width(f.elem());
        n_fns += 1;
        if f.fixed_words().is_none() {
            n_kernels += 1;
            kernel_words += parsed.cases.iter().map(|c| c.inputs.len()).sum::<usize>();
        }
        for case in &parsed.cases {
            n_cases += 1;
            for (side, got) in [("C core", c.run(&case.inputs)), ("reference", reference(&case.inputs))] {
                if !policy::matches(&case.expected, &got, w, f.is_float(), f.either_zero()) {
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
    println!(
        "corpus: {n_fns} functions ({n_kernels} of them kernels over arrays, {kernel_words} array input words), {n_cases} cases compared on the C core and the reference, {} mismatches",
        failures.len()
    );
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
    let callables = model.callables();
    assert_eq!(table.len(), callables.len(), "the umbrella lists {} functions, the spec has {}", table.len(), callables.len());
    for (entry, f) in table.iter().zip(&callables) {
        // SAFETY: the table's names are static NUL-terminated C strings.
        let name = unsafe { std::ffi::CStr::from_ptr(entry.name) }.to_str().unwrap();
        assert_eq!(name, f.c_name(&model));
        let parsed = &corpus[name];
        assert_eq!(entry.n_cases as usize, parsed.cases.len(), "{name}: case count");
        assert_eq!(entry.n_in as usize, parsed.n_in, "{name}: input words");
        assert_eq!(entry.n_out as usize, parsed.n_out, "{name}: result words");
        assert_eq!(entry.records != 0, parsed.records, "{name}: records flag");
        assert_eq!(entry.records != 0, f.fixed_words().is_none(), "{name}: records flag against the spec");
        assert_eq!(entry.either_zero != 0, f.either_zero(), "{name}: either-zero flag");
        assert_eq!(entry.elem_bits, width(f.elem()), "{name}: width");
        if parsed.records {
            // The records as C sees them: walk the flat array by its counts.
            let total: usize = parsed.cases.iter().map(|c| 2 + c.inputs.len() + c.expected.len()).sum();
            let words: Vec<u64> = if entry.elem_bits == 32 {
                // SAFETY: the table's rows point at a static array of `total` uint32_t words.
                unsafe { std::slice::from_raw_parts(entry.rows.cast::<u32>(), total) }.iter().map(|&x| u64::from(x)).collect()
            } else {
                // SAFETY: as above, of uint64_t words.
                unsafe { std::slice::from_raw_parts(entry.rows.cast::<u64>(), total) }.to_vec()
            };
            let mut at = 0;
            for c in &parsed.cases {
                assert_eq!(words[at] as usize, c.inputs.len(), "{name}: record input count");
                assert_eq!(words[at + 1] as usize, c.expected.len(), "{name}: record result count");
                assert_eq!(&words[at + 2..at + 2 + c.inputs.len()], &c.inputs[..], "{name}: record inputs");
                at += 2 + c.inputs.len() + c.expected.len();
                assert_eq!(&words[at - c.expected.len()..at], &c.expected[..], "{name}: record results");
            }
        }
    }
}

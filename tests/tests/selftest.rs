//! The self-test and the contract fingerprint of the C core, on the core
//! build.rs linked in: the self-test passes here; its witnesses cover every
//! rule that can change a bit without contraction, for every element type;
//! the fingerprint is the same in the header, the object, the corpus and the
//! model, ignores documentation and changes with any operation. (That the
//! self-test fails on each mutant core is shown in tests/mutants.rs, under
//! contraction in tests/contraction.rs, and for the floating-point
//! environment in scripts/negative-controls.sh.)

use std::ffi::{CStr, CString};

use aether_generator::{mutants, selftest as st, spec, Model};
use aether_tests::{model, sys, witnesses};

fn id_of(text: &str) -> String {
    let spec = spec::parse("spec/aether.toml", text).unwrap_or_else(|e| panic!("{e}"));
    st::contract_id(&Model::build(&spec).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn the_linked_core_passes_its_self_test() {
    let mut buf = vec![0u8; 4096];
    // SAFETY: the buffer is writable for its length; the id is the header's
    // NUL-terminated macro.
    let status = unsafe { sys::aether_selftest(sys::AETHER_CONTRACT_ID.as_ptr().cast(), buf.as_mut_ptr().cast(), buf.len()) };
    let message = CStr::from_bytes_until_nul(&buf).unwrap().to_string_lossy().into_owned();
    println!("selftest: {message}");
    assert_eq!(status, 0, "{message}");
    assert!(message.starts_with("aether_selftest: ok: "), "{message}");
    // A NULL buffer and a tiny one are fine.
    // SAFETY: NULL message with size 0 is documented; a 5-byte buffer is
    // written NUL-terminated within its size.
    assert_eq!(unsafe { sys::aether_selftest(std::ptr::null(), std::ptr::null_mut(), 0) }, 0);
    let mut small = [0x55u8; 6];
    assert_eq!(unsafe { sys::aether_selftest(std::ptr::null(), small.as_mut_ptr().cast(), 5) }, 0);
    assert_eq!(&small, b"aeth\0\x55");
}

/// The longest message the environment here can give: a contract id that is not the object's
/// (cut at 120 characters), and on x86_64 flush-to-zero, denormals-are-zero and a directed
/// rounding mode all set (every witness then fails, counted in one more problem). It fits
/// `AETHER_SELFTEST_MESSAGE_MAX` whole; the bound itself is checked by the compiler (see
/// `aether_selftest_message_max_holds`, and the controls below).
#[test]
fn the_longest_message_fits_aether_selftest_message_max() {
    let max = sys::AETHER_SELFTEST_MESSAGE_MAX as usize;
    let id = CString::new("x".repeat(300)).unwrap();
    let mut buf = vec![0x55u8; max + 64];
    #[cfg(target_arch = "x86_64")]
    #[allow(deprecated)]
    // SAFETY: the MXCSR is this thread's and is restored before anything else runs on it; the
    // buffer is writable for its length, the id NUL-terminated.
    let status = unsafe {
        use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
        let saved = _mm_getcsr();
        _mm_setcsr(saved | 0x8040 | 0x4000);
        let s = sys::aether_selftest(id.as_ptr(), buf.as_mut_ptr().cast(), buf.len());
        _mm_setcsr(saved);
        s
    };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: as above, without the environment.
    let status = unsafe { sys::aether_selftest(id.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    let message = CStr::from_bytes_until_nul(&buf).unwrap().to_string_lossy().into_owned();
    println!("selftest ({} characters, AETHER_SELFTEST_MESSAGE_MAX {max}): {message}", message.len());
    assert_ne!(status & sys::AETHER_SELFTEST_CONTRACT_ID as i32, 0, "{message}");
    #[cfg(target_arch = "x86_64")]
    {
        let all = sys::AETHER_SELFTEST_FLUSH_TO_ZERO
            | sys::AETHER_SELFTEST_DENORMALS_ARE_ZERO
            | sys::AETHER_SELFTEST_ROUNDING
            | sys::AETHER_SELFTEST_WITNESS;
        assert_eq!(status as u32 & all, all, "{message}");
        for problem in
            ["the header says contract", "flush-to-zero is on", "denormals-are-zero is on", "the rounding mode is", "witnesses fail"]
        {
            assert!(message.contains(problem), "no \"{problem}\": {message}");
        }
    }
    assert!(message.len() < max, "{} characters do not fit {max} with the NUL", message.len());
    // The README's old 512-byte buffer cut this message.
    assert!(message.len() >= 512, "{message}");
}

/// Compiles a copy of the C core with `edit` applied to (header, source); the compiler's
/// output when it fails.
fn compile_edited(name: &str, edit: impl Fn(String, String) -> (String, String)) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("aether-selftest-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../c_core");
    let h = std::fs::read_to_string(format!("{root}/aether_core.h")).unwrap();
    let c = std::fs::read_to_string(format!("{root}/aether_core.c")).unwrap();
    let (h, c) = edit(h, c);
    std::fs::write(dir.join("aether_core.h"), h).unwrap();
    std::fs::write(dir.join("aether_core.c"), c).unwrap();
    let out = std::process::Command::new(env!("AETHER_CC"))
        .args(["-std=c99", "-fsyntax-only", "aether_core.c"])
        .current_dir(&dir)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The bound `AETHER_SELFTEST_MESSAGE_MAX` promises is the compiler's to check: the core as
/// generated compiles; one less than the sum of its buffers does not, nor an environment
/// problem longer than its line.
#[test]
fn the_message_bound_is_checked_at_compile_time() {
    let define = format!("#define AETHER_SELFTEST_MESSAGE_MAX {}", sys::AETHER_SELFTEST_MESSAGE_MAX);
    compile_edited("as-generated", |h, c| (h, c)).unwrap();
    let lower = compile_edited("lower", |h, c| {
        assert!(h.contains(&define));
        (h.replace(&define, &format!("#define AETHER_SELFTEST_MESSAGE_MAX {}", sys::AETHER_SELFTEST_MESSAGE_MAX - 1)), c)
    });
    let err = lower.expect_err("a bound one below the buffers' sum compiled");
    assert!(err.contains("aether_selftest_message_max_holds"), "{err}");
    let longer = compile_edited("long-literal", |h, c| {
        let from = "AETHER_SELFTEST_ENV_PROBLEM(t, count, \"";
        assert!(c.contains(from));
        (h, c.replacen(from, &format!("{from}{}", "y".repeat(256)), 1))
    });
    longer.expect_err("an environment problem of more than 255 characters compiled");
}

#[test]
fn the_witnesses_cover_every_rule_for_every_type() {
    let model = model();
    let w = witnesses(&model);
    for m in mutants::ALL {
        for t in &model.spec.types {
            let n = w.iter().filter(|x| x.mutant == m && model.callables()[x.callable].elem() == t.name).count();
            if m == mutants::Mutant::NoBarrier {
                assert_eq!(n, 0, "no-barrier changes no bit without contraction; it has no witness");
            } else {
                assert!(n >= 1, "no self-test witness of {} for {}", m.name(), t.name);
            }
        }
    }
    // Contraction can strike any family: the fma rule keeps a witness of
    // every family it changes somewhere.
    let fma_families: std::collections::BTreeSet<&str> =
        w.iter().filter(|x| x.mutant == mutants::Mutant::Fma).map(|x| model.callables()[x.callable].family()).collect();
    assert!(fma_families.len() >= 30, "only {} families have an fma witness", fma_families.len());
    assert!(w.iter().all(|x| x.inputs.len() <= st::MAX_WITNESS_WORDS));
    println!("selftest: {} witnesses, {} families with an fma witness", w.len(), fma_families.len());
}

#[test]
fn header_object_corpus_and_model_agree_on_the_fingerprint() {
    let model = model();
    let id = st::contract_id(&model);
    // SAFETY: aether_contract_id returns a static NUL-terminated string.
    let object = unsafe { CStr::from_ptr(sys::aether_contract_id()) }.to_str().unwrap().to_string();
    let header = CStr::from_bytes_with_nul(sys::AETHER_CONTRACT_ID).unwrap().to_str().unwrap().to_string();
    let corpus = CStr::from_bytes_with_nul(sys::AETHER_CORPUS_CONTRACT_ID).unwrap().to_str().unwrap().to_string();
    assert_eq!(object, id);
    assert_eq!(header, id);
    assert_eq!(corpus, id);
    assert!(id.starts_with(&format!("{} {} ", model.spec.name, model.spec.version)) && id.len() > 40, "{id}");
}

#[test]
fn the_fingerprint_ignores_documentation_and_follows_operations() {
    let root = aether_generator::default_root();
    let text = std::fs::read_to_string(root.join("spec/aether.toml")).unwrap();
    let base = id_of(&text);
    // Comments, documentation and blank lines: the same contract.
    let doc =
        text.replace("doc = \"Linear interpolation a + t * (b - a), per component, in that order.\"", "doc = \"Interpolation, reworded.\"");
    assert_ne!(doc, text, "the spec's lerp doc changed; update this test");
    let commented = format!("# a comment\n\n{}", text.replace("\n[families.add]", "\n# another comment\n\n[families.add]"));
    assert_eq!(id_of(&doc), base, "a doc change changes the fingerprint");
    assert_eq!(id_of(&commented), base, "a comment changes the fingerprint");
    // Operands of a commutative operation swapped: the same bits, the same
    // contract. Another order of operations: another contract.
    let swapped = text.replace("body = \"out[i] = a[i] + t * (b[i] - a[i])\"", "body = \"out[i] = t * (b[i] - a[i]) + a[i]\"");
    assert_ne!(swapped, text, "the spec's lerp body changed; update this test");
    assert_eq!(id_of(&swapped), base, "commuted operands change the fingerprint");
    let reordered = text.replace("body = \"out[i] = a[i] + t * (b[i] - a[i])\"", "body = \"out[i] = a[i] + (t * b[i] - t * a[i])\"");
    assert_ne!(id_of(&reordered), base, "another operation order keeps the fingerprint");
    // Each mutant of the rules is another contract too.
    let model = model();
    for m in [mutants::Mutant::FoldLeft, mutants::Mutant::TrueDivision, mutants::Mutant::ColumnMajor, mutants::Mutant::PivotLast] {
        let (mm, _) = m.build(&model).unwrap();
        assert_ne!(st::contract_id(&mm), base, "mutant {} keeps the fingerprint", m.name());
    }
    // The predicates' steps and df64's operations and domain are part of the
    // contract; a comment inside a predicate body is not.
    for (find, replace) in [
        ("dm = 5110 * m\n", "dm = 5111 * m\n"),
        ("w = t.lo + v.lo\n", "w = t.lo - v.lo\n"),
        ("min_magnitude = \"2^-70\"", "min_magnitude = \"2^-72\""),
    ] {
        assert_eq!(text.matches(find).count(), 1, "{find}");
        assert_ne!(id_of(&text.replacen(find, replace, 1)), base, "`{find}` -> `{replace}` keeps the fingerprint");
    }
    let predicate_comment = text.replacen("mp = sig24(p)\n", "mp = sig24(p) # the significand\n", 1);
    assert_ne!(predicate_comment, text);
    assert_eq!(id_of(&predicate_comment), base, "a comment in a predicate body changes the fingerprint");
}

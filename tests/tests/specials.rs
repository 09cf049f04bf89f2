//! Special-value cross products, TestFloat style: 20 special values per type
//! (+-0, +-min subnormal, +-max subnormal, +-min normal, +-1, +-max finite,
//! +-inf, +-the default quiet NaN, +-a signalling NaN with a payload, +-a
//! quiet NaN with a payload), on every plain
//! function of the spec (fixed input words), C core against the reference
//! under the comparison policy.
//!
//! * A function of exactly two input words: the full cross product (400).
//! * Every function with parameters: every combination in which each
//!   parameter's words all hold one special value (20^params), and, for each
//!   input word, every special value there with every other word 1.5.
//!   (One-parameter functions get this too: 20 + 20 * words inputs.)
//! * A function with derived parameters (`s = a + b`) gets each input also
//!   with the derived words filled in.

use aether_generator::interp;
use aether_generator::model::Callable;
use aether_tests::{compile_core, core_flags, functions, hex, model, policy, thunk, width, CC};

/// The 20 special values of a width, as bit patterns.
fn specials(width: u32) -> Vec<u64> {
    let positive: Vec<u64> = if width == 32 {
        vec![
            0x0000_0000, // +0
            0x0000_0001, // min subnormal
            0x007f_ffff, // max subnormal
            0x0080_0000, // min normal
            0x3f80_0000, // 1
            0x7f7f_ffff, // max finite
            0x7f80_0000, // inf
            0x7fc0_0000, // quiet NaN
            0x7fa5_a5a5, // signalling NaN with a payload
        ]
    } else {
        vec![
            0x0000_0000_0000_0000,
            0x0000_0000_0000_0001,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff5_a5a5_a5a5_a5a5,
        ]
    };
    let sign = 1u64 << (width - 1);
    let mut v: Vec<u64> = positive.iter().flat_map(|&p| [p, p | sign]).collect();
    // The seven number magnitudes and the default quiet NaN make 16 with
    // their signs; a NaN with a payload, signalling above and quiet here,
    // makes 20.
    let quiet_payload = if width == 32 { 0x7fc0_1234 } else { 0x7ff8_0000_0000_1234 };
    v.extend([quiet_payload, quiet_payload | sign]);
    v
}

/// The inputs for one function of `words` input words with parameters of
/// `param_words` words each.
fn inputs(param_words: &[usize], width: u32) -> Vec<Vec<u64>> {
    let sp = specials(width);
    let ordinary = if width == 32 { u64::from(1.5f32.to_bits()) } else { 1.5f64.to_bits() };
    let words: usize = param_words.iter().sum();
    let mut out = Vec::new();
    if words == 0 {
        out.push(Vec::new());
        return out;
    }
    if words == 2 {
        for &a in &sp {
            for &b in &sp {
                out.push(vec![a, b]);
            }
        }
    }
    // Every parameter's words all one special value, every combination.
    let n = param_words.len() as u32;
    for mut code in 0..sp.len().pow(n) {
        let mut v = Vec::with_capacity(words);
        for &pw in param_words {
            let s = sp[code % sp.len()];
            code /= sp.len();
            v.extend(std::iter::repeat_n(s, pw));
        }
        out.push(v);
    }
    // Every word position taking every special value, the rest ordinary.
    for at in 0..words {
        for &s in &sp {
            let mut v = vec![ordinary; words];
            v[at] = s;
            out.push(v);
        }
    }
    // The schemes overlap (two one-word parameters); each input once.
    let mut seen = std::collections::HashSet::new();
    out.retain(|v| seen.insert(v.clone()));
    out
}

/// Compares every plain function on the special inputs, calling the C side
/// at `address(name)`; returns (functions, inputs, mismatches, the first
/// mismatch lines).
fn compare(address: &dyn Fn(&str) -> *const ()) -> (usize, usize, usize, Vec<String>) {
    let mut per_function = Vec::new();
    let model = model();
    let fns = functions();
    let (mut n_fns, mut n_inputs, mut bad, mut failures) = (0usize, 0usize, 0usize, Vec::new());
    for f in model.callables() {
        let Callable::Function(func) = f else { continue };
        assert!(f.fixed_words().is_some());
        let name = f.c_name(&model);
        let c = fns.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}: no C binding"));
        let at = address(&name);
        let reference = aether_reference::flat::lookup(f.family(), f.shape(), f.elem()).unwrap_or_else(|| panic!("{name}: no reference"));
        let w = width(f.elem());
        let param_words: Vec<usize> = func.params.iter().map(|p| p.kind.words()).collect();
        let mut all = inputs(&param_words, w);
        if !func.derived.is_empty() {
            let filled: Vec<Vec<u64>> = all
                .iter()
                .map(|i| {
                    let mut i = i.clone();
                    interp::fill_derived(func, w, &mut i);
                    i
                })
                .collect();
            all.extend(filled);
        }
        n_fns += 1;
        let bad_before = bad;
        for input in &all {
            n_inputs += 1;
            let (want, got) = (reference(input), (c.call)(at, input));
            if !policy::matches(&want, &got, w, f.is_float(), f.either_zero()) {
                bad += 1;
                if failures.len() < 40 {
                    failures.push(format!("{name}: inputs {} reference {} C {}", hex(input, w), hex(&want, w), hex(&got, w)));
                }
            }
        }
        if bad > bad_before {
            per_function.push(format!("{name}: {} of {} inputs", bad - bad_before, all.len()));
        }
    }
    if !per_function.is_empty() {
        failures.insert(0, format!("mismatches by function: {}", per_function.join("; ")));
    }
    (n_fns, n_inputs, bad, failures)
}

fn check(what: &str, (n_fns, n_inputs, bad, failures): (usize, usize, usize, Vec<String>)) {
    println!("specials ({what}): {n_fns} plain functions, {n_inputs} inputs compared, {bad} mismatches");
    for f in &failures {
        println!("  {f}");
    }
    assert_eq!(bad, 0, "{what}: {bad} mismatches, the first:\n{}", failures.join("\n"));
}

/// The core build.rs linked into this test binary. A Rust binary resolves the
/// core's libm calls (fminf, fmaxf, sqrtf ...) to the Rust runtime's own
/// copies (compiler-builtins), not to the system libm.
#[test]
fn special_values_match_the_reference() {
    let fns = functions();
    check("core linked into the test", compare(&|name| fns.iter().find(|c| c.name == name).unwrap().linked));
}

/// The committed core compiled as a shared library with the same compiler and
/// flags and linked with `-lm`: its libm calls go to the system libm, as in a
/// C program.
#[test]
fn special_values_match_the_reference_with_the_system_libm() {
    let root = aether_generator::default_root();
    let header = std::fs::read_to_string(root.join("c_core/aether_core.h")).unwrap();
    let source = std::fs::read_to_string(root.join("c_core/aether_core.c")).unwrap();
    let dir = std::env::temp_dir().join(format!("aether-specials-{}", std::process::id()));
    let lib = compile_core(&dir, &header, &source, CC, &core_flags());
    let result = compare(&|name| thunk(&lib, name));
    let _ = std::fs::remove_dir_all(&dir);
    check("core as a shared library on the system libm", result);
}

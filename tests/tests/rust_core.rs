//! The generated Rust core (`rust_core/`, linked into this test) against the
//! reference: every corpus case and at least 10^5 random inputs per function
//! (kernels over arrays 2 * 10^4), bit for bit under the comparison policy,
//! through the core's flat thunks (`rust_core/check/flat.rs`).
//! `scripts/rust-core.sh` runs the same check on other builds of the core
//! (debug, release, x86-64-v3, aarch64 under qemu-user, wasm32 under Node)
//! and on a rule mutant's core, which must fail it.

use aether_tests::rust_core::{inputs, random_count, Tally, PER_FUNCTION};
use aether_tests::{corpus, model};

#[path = "../../rust_core/check/flat.rs"]
#[rustfmt::skip]
#[allow(clippy::all, dead_code)]
mod flat;

#[test]
fn the_rust_core_matches_the_reference() {
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    let callables = model.callables();
    assert_eq!(flat::ENTRIES.len(), callables.len(), "the Rust core's flat table lists every callable");
    let (mut total, mut failures) = (0usize, Vec::new());
    for c in callables {
        let name = c.c_name(&model);
        let entry = flat::ENTRIES.iter().find(|e| e.0 == name).unwrap_or_else(|| panic!("{name}: not in the Rust core"));
        assert_eq!((entry.1, entry.2, entry.3), (c.family(), c.shape(), c.elem()), "{name}: the flat table's key");
        let reference = aether_reference::flat::lookup(c.family(), c.shape(), c.elem()).unwrap();
        let mut tally = Tally::default();
        for i in inputs(&model, &lowered, &corpus, c, random_count(c, PER_FUNCTION)) {
            tally.judge(&model, c, &i, &reference(&i), entry.4(&i).as_deref());
        }
        total += tally.cases;
        failures.extend(tally.first);
        if tally.mismatches > 3 {
            failures.push(format!("{name}: {} mismatches in all", tally.mismatches));
        }
    }
    println!(
        "rust core: {} callables, {total} inputs compared with the reference, {} mismatch reports",
        flat::ENTRIES.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The batched forms (`_aos`, `_soa`) of every function give each item the
/// reference's bits: the corpus and 10^4 random items per function, passed
/// in batches of 0, 1, 2, 7 and the rest (so `aether_n` takes small and odd
/// values and every item sits at another offset in each layout).
#[test]
fn the_batched_forms_give_every_item_the_reference_bits() {
    use aether_generator::model::Callable;
    let model = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    let lowered = model.lowered();
    assert_eq!(flat::BATCHES.len(), lowered.len(), "every function has batched forms");
    let (mut total, mut failures) = (0usize, Vec::new());
    for f in &lowered {
        let c = Callable::Function(f);
        let name = c.c_name(&model);
        let batch = flat::BATCHES.iter().find(|e| e.0 == name).unwrap_or_else(|| panic!("{name}: no batched forms")).2;
        let reference = aether_reference::flat::lookup(c.family(), c.shape(), c.elem()).unwrap();
        let items = inputs(&model, &lowered, &corpus, c, random_count(c, 10_000));
        let (mut aos, mut soa) = (Tally::default(), Tally::default());
        let mut rest = &items[..];
        for size in [0, 1, 2, 7, usize::MAX] {
            let (now, later) = rest.split_at(size.min(rest.len()));
            rest = later;
            let got = batch(now);
            for (k, i) in now.iter().enumerate() {
                let want = reference(i);
                aos.judge(&model, c, i, &want, got.as_ref().map(|g| &g.0[k][..]));
                soa.judge(&model, c, i, &want, got.as_ref().map(|g| &g.1[k][..]));
            }
        }
        total += aos.cases;
        for (form, t) in [("_aos", aos), ("_soa", soa)] {
            failures.extend(t.first.iter().map(|m| format!("{form}: {m}")));
            if t.mismatches > 3 {
                failures.push(format!("{name}{form}: {} mismatches in all", t.mismatches));
            }
        }
    }
    println!("rust core batches: {} functions, {total} items in each layout, {} mismatch reports", lowered.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The batch layouts, written out by hand (the check above reads and writes
/// them with the same generator's code, so it alone would not see both sides
/// agree on a wrong layout): `_soa` holds component c of item i at
/// [c * n + i], `_aos` the structs; lengths that do not fit are errors that
/// write nothing, and a count whose slices would overflow is one too.
#[test]
fn the_batch_layouts_and_their_length_errors() {
    use aether_core::*;
    // Two items: a = (1, 3, 5) and (2, 4, 6), b = (1, 0, 0) and (0, 0, 1).
    let (a, b) = ([1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0_f32, 0.0, 0.0, 0.0, 0.0, 1.0]);
    let mut out = [0.0_f32; 2];
    aether_vec3f_dot_soa(&a, &b, &mut out, 2).unwrap();
    assert_eq!(out, [1.0, 6.0]);
    let mut sum = [0.0_f32; 6];
    aether_vec3f_add_soa(&a, &b, &mut sum, 2).unwrap();
    assert_eq!(sum, [2.0, 2.0, 3.0, 4.0, 5.0, 7.0]);
    let (va, vb) = ([Vec3f::new(1.0, 3.0, 5.0), Vec3f::new(2.0, 4.0, 6.0)], [Vec3f::new(1.0, 0.0, 0.0), Vec3f::new(0.0, 0.0, 1.0)]);
    let mut out = [0.0_f32; 2];
    aether_vec3f_dot_aos(&va, &vb, &mut out).unwrap();
    assert_eq!(out, [1.0, 6.0]);
    // A matrix's components in memory order (row-major): item 0 the identity, item 1 twice it.
    let mut m = [0.0_f32; 32];
    for d in [0, 5, 10, 15] {
        m[2 * d] = 1.0;
        m[2 * d + 1] = 2.0;
    }
    let v = [1.0_f32, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0];
    let mut mv = [0.0_f32; 8];
    aether_mat4f_mul_vec_soa(&m, &v, &mut mv, 2).unwrap();
    assert_eq!(mv, [1.0, 2.0, 2.0, 4.0, 3.0, 6.0, 4.0, 8.0]);
    // Truth values.
    let mut fin = [false; 2];
    aether_vec3f_is_finite_soa(&[1.0, f32::NAN, 1.0, 1.0, 1.0, 1.0], &mut fin, 2).unwrap();
    assert_eq!(fin, [true, false]);
    // Lengths that do not fit: an error naming the slice, nothing written.
    let mut out = [9.0_f32; 2];
    assert_eq!(aether_vec3f_dot_soa(&a[..5], &b, &mut out, 2), Err(LengthError { what: "a", len: 5, expected: 6 }));
    assert_eq!(aether_vec3f_dot_soa(&a, &b, &mut out[..1], 2), Err(LengthError { what: "aether_out", len: 1, expected: 2 }));
    assert_eq!(aether_vec3f_dot_aos(&va, &vb[..1], &mut out), Err(LengthError { what: "b", len: 1, expected: 2 }));
    assert_eq!(out, [9.0; 2], "nothing written");
    assert_eq!(
        aether_vec3f_add_soa(&[], &[], &mut [], usize::MAX),
        Err(LengthError { what: "a", len: 0, expected: usize::MAX }),
        "3 * usize::MAX overflows"
    );
    aether_vec3f_add_soa(&[], &[], &mut [], 0).unwrap();
}

/// A kernel answers slices that do not fit with an error and writes nothing;
/// a thunk refuses words that do not fit the convention.
#[test]
fn wrong_lengths_are_errors_not_panics() {
    use aether_core::*;
    let (a, b) = ([1.0_f32, 2.0, 3.0], [1.0_f32, 2.0]);
    assert_eq!(aether_f32_dot_array(&a, &b), Err(LengthError { what: "b", len: 2, expected: 3 }));
    let mut lanes = [Pairf::ZERO; 32];
    assert!(aether_f32_lanes_dot(&mut lanes, usize::MAX, &a, &b).is_err());
    assert_eq!(lanes, [Pairf::ZERO; 32], "nothing written");
    // usize::MAX as the first lane is (MAX mod 32 + j) mod 32, no overflow.
    aether_f32_lanes_sum(&mut lanes, usize::MAX, &a).unwrap();
    assert_eq!(lanes[31].hi, 1.0, "{lanes:?}");
    let (mut value, mut comp) = ([0.0_f32; 6], [0.0_f32; 5]);
    assert!(aether_vec3f_plane_add(&mut value, &mut comp, 0, Vec3f::new(1.0, 2.0, 3.0)).is_err());
    let mut comp = [0.0_f32; 6];
    assert!(aether_vec3f_plane_add(&mut value, &mut comp, 2, Vec3f::new(1.0, 2.0, 3.0)).is_err());
    assert!(aether_vec3f_plane_add(&mut value, &mut comp, usize::MAX, Vec3f::new(1.0, 2.0, 3.0)).is_err());
    assert_eq!(value, [0.0; 6]);
    aether_vec3f_plane_add(&mut value, &mut comp, 1, Vec3f::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(value, [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]);
    let mut out = [0.0_f32; 2];
    assert!(aether_f32_plane_resolve(&mut out, &value, &comp).is_err());
    let (mut ms, mut piv, mut info) = ([Mat3f::ZERO; 2], [0_i32; 5], [0_i32; 2]);
    assert_eq!(aether_mat3f_lu_lanes(&mut ms, &mut piv, &mut info), Err(LengthError { what: "ipiv", len: 5, expected: 6 }));
    // The flat convention refuses words that do not fit.
    let thunk = |n: &str| flat::ENTRIES.iter().find(|e| e.0 == n).unwrap().4;
    assert_eq!(thunk("aether_vec3f_dot")(&[0; 5]), None);
    assert_eq!(thunk("aether_f32_sum_array")(&[]), Some(vec![0]));
    let mut lu_solve = vec![0u64; 9 + 3 + 3];
    lu_solve[9..12].copy_from_slice(&[1, 2, 4]);
    assert_eq!(thunk("aether_mat3f_lu_solve")(&lu_solve), None, "a pivot outside k+1..=n");
}

/// The structs are the C core's layout: their size is their words, the
/// matrices row-major, the quaternion w first.
#[test]
fn structs_have_the_c_layout() {
    use aether_core::*;
    assert_eq!(std::mem::size_of::<Vec3f>(), 12);
    assert_eq!(std::mem::size_of::<Vec4d>(), 32);
    assert_eq!(std::mem::size_of::<Mat4f>(), 64);
    assert_eq!(std::mem::size_of::<Quatd>(), 32);
    assert_eq!(std::mem::align_of::<Mat3f>(), 4);
    assert_eq!(Quatf::new(1.0, 2.0, 3.0, 4.0).to_array(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(Quatf::from([1.0, 2.0, 3.0, 4.0]).w, 1.0);
    // Row-major: m * e_x is the first column, m[0], m[3], m[6].
    let m = Mat3f::from_array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    assert_eq!(m * Vec3f::new(1.0, 0.0, 0.0), Vec3f::new(1.0, 4.0, 7.0));
    assert_eq!(CONTRACT_ID, aether_generator::selftest::contract_id(&model()));
}

/// The core's integer square root (the fallback where no hardware one is
/// reachable from `core`) is the correctly rounded one: every 61st binary32
/// bit pattern (and every one of the first and last 2^20, the subnormals and
/// the top of the range), and 10^6 binary64 inputs across the exponent range,
/// against the hardware's. A root truncated instead of rounded, or rounded up
/// on an exact remainder, fails here (negative controls below).
#[test]
fn the_integer_square_root_is_correctly_rounded() {
    use aether_core::{aether_sqrt_soft_f32, aether_sqrt_soft_f64};
    let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let same64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let mut bad = Vec::new();
    let patterns =
        (0..1u32 << 20).chain((0..u32::MAX / 61).map(|k| k * 61)).chain(0x7f70_0000..=0x7fff_ffff).chain(0x8000_0000..0x8010_0000);
    let mut n32 = 0u64;
    for b in patterns {
        let x = f32::from_bits(b);
        n32 += 1;
        if !same32(aether_sqrt_soft_f32(x), x.sqrt()) && bad.len() < 5 {
            bad.push(format!("f32 {b:#010x}: {:#010x} want {:#010x}", aether_sqrt_soft_f32(x).to_bits(), x.sqrt().to_bits()));
        }
    }
    let mut r = aether_generator::rng::SplitMix64::for_name("rust-core soft sqrt", 0);
    let specials = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::MIN_POSITIVE, 5e-324, f64::MAX, 4.0, 2.0, -1.0];
    let randoms = (0..1_000_000).map(|_| f64::from_bits(r.next_u64() & 0x7fff_ffff_ffff_ffff));
    for x in specials.into_iter().chain(randoms) {
        if !same64(aether_sqrt_soft_f64(x), x.sqrt()) && bad.len() < 10 {
            bad.push(format!("f64 {:#018x}: {:#018x} want {:#018x}", x.to_bits(), aether_sqrt_soft_f64(x).to_bits(), x.sqrt().to_bits()));
        }
    }
    println!("integer square root: {n32} binary32 and {} binary64 inputs", specials.len() + 1_000_000);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Negative controls: the integer root truncated, or rounded half up,
    // differs from the correctly rounded one on inputs of this sample.
    let truncated =
        |x: f32| f32::from_bits(aether_sqrt_soft_f32(x).to_bits() - u32::from(aether_sqrt_soft_f32(x) * aether_sqrt_soft_f32(x) > x));
    assert!((1..1u32 << 20).map(|k| f32::from_bits(0x3f80_0000 + k)).any(|x| truncated(x).to_bits() != x.sqrt().to_bits()));
}

/// Both forms of every predicate in the Rust core against the hand-written
/// golden reference: the corpus, every sweep class (its random classes at
/// 10^5) and the self-test on the witnesses.
#[test]
fn the_rust_predicates_match_the_reference() {
    use aether_generator::predicate_corpus;
    let m = model();
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(flat::PREDICATES.len(), m.spec.predicates.predicates.len());
    assert_eq!(aether_core::aether_predicate_selftest(), 0, "the self-test");
    let entry = |name: &str| flat::PREDICATES.iter().find(|e| e.0 == name).unwrap_or_else(|| panic!("{name}: not in the Rust core"));
    let mut n = 0usize;
    for p in &m.spec.predicates.predicates {
        let e = entry(&p.name);
        for c in &corpus[&format!("aether_predicate_{}", p.name)].cases {
            for (form, f) in [("golden", e.2), ("integer", e.3)] {
                assert_eq!(f(&c.inputs), c.expected[0] == 1, "{} ({form}) on {:?} ({})", p.name, c.inputs, c.label);
            }
            n += 1;
        }
    }
    for class in predicate_corpus::sweep(100_000) {
        let e = entry(class.predicate);
        let reference = predicate_corpus::reference(class.predicate).unwrap();
        let mut bad = 0usize;
        for chunk in class.chunks(1 << 20) {
            for a in chunk.chunks(class.arity) {
                let words: Vec<u64> = a.iter().map(|x| *x as u64).collect();
                let want = reference(a);
                bad += usize::from(e.2(&words) != want) + usize::from(e.3(&words) != want);
                n += 1;
            }
        }
        assert_eq!(bad, 0, "{} {}: the Rust core's forms disagree with the reference", class.predicate, class.class);
    }
    println!("rust core predicates: {n} inputs, both forms agree with the reference; the self-test passes");
}

/// The self-test passes on the core as built here (a mutant's core fails it:
/// scripts/rust-core.sh).
#[test]
fn the_self_test_passes() {
    let n = aether_core::aether_selftest().unwrap_or_else(|e| panic!("{e}"));
    println!("aether_selftest of the Rust core: {n} checks passed");
    assert!(n > 40, "the self-test checks the rounding, the subnormal probes and the witnesses: {n}");
}

//! The exported C functions, called directly through the rlib.

use std::ffi::{c_char, CStr};
use std::ptr;

use aether_reference::flat;
use aether_reference_capi::{
    aether_ref_call, aether_ref_count, aether_ref_entry, aether_ref_version, AETHER_REF_BAD_INPUT, AETHER_REF_NULL_POINTER,
    AETHER_REF_OUT_TOO_SMALL, AETHER_REF_UNKNOWN,
};

fn f32_words(values: &[f32]) -> Vec<u64> {
    values.iter().map(|v| u64::from(v.to_bits())).collect()
}

/// Calls `aether_ref_call` with Rust strings and slices.
fn call(family: &CStr, shape: &CStr, elem: &CStr, input: &[u64], out: &mut [u64]) -> isize {
    // SAFETY: C strings, and slices of the lengths passed.
    unsafe { aether_ref_call(family.as_ptr(), shape.as_ptr(), elem.as_ptr(), input.as_ptr(), input.len(), out.as_mut_ptr(), out.len()) }
}

#[test]
fn dot_vec3_f32_known_value() {
    let input = f32_words(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut out = [u64::MAX; 4];
    assert_eq!(call(c"dot", c"vec3", c"f32", &input, &mut out), 1);
    assert_eq!(out[0], u64::from(32.0f32.to_bits()));
    assert_eq!(out[1..], [u64::MAX; 3], "only the result words are written");
}

#[test]
fn f64_and_multi_word_results() {
    let input: Vec<u64> = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0].iter().map(|v| v.to_bits()).collect();
    let mut out = [0u64; 3];
    assert_eq!(call(c"cross", c"vec3", c"f64", &input, &mut out), 3);
    let expected: Vec<u64> = [-3.0f64, 6.0, -3.0].iter().map(|v| v.to_bits()).collect();
    assert_eq!(out.as_slice(), expected.as_slice());
}

#[test]
fn unknown_names_give_unknown() {
    let input = f32_words(&[1.0, 2.0]);
    let mut out = [0u64; 4];
    assert_eq!(call(c"no_such_family", c"vec3", c"f32", &input, &mut out), AETHER_REF_UNKNOWN);
    assert_eq!(call(c"dot", c"vec5", c"f32", &input, &mut out), AETHER_REF_UNKNOWN);
    assert_eq!(call(c"dot", c"vec3", c"f16", &input, &mut out), AETHER_REF_UNKNOWN);
    assert_eq!(call(c"dot", c"vec3", c"f\xff32", &input, &mut out), AETHER_REF_UNKNOWN, "not UTF-8");
    for nulls in [[true, false, false], [false, true, false], [false, false, true]] {
        let [f, s, e] = [(c"dot", nulls[0]), (c"vec3", nulls[1]), (c"f32", nulls[2])]
            .map(|(name, null)| if null { ptr::null() } else { name.as_ptr() });
        // SAFETY: null or C strings; slices of the lengths passed.
        let rc = unsafe { aether_ref_call(f, s, e, input.as_ptr(), input.len(), out.as_mut_ptr(), out.len()) };
        assert_eq!(rc, AETHER_REF_UNKNOWN);
    }
    assert_eq!(out, [0; 4]);
}

#[test]
fn bad_input_gives_bad_input_without_aborting() {
    let mut out = [7u64; 4];
    // Too short: five words for two vec3.
    assert_eq!(call(c"dot", c"vec3", c"f32", &f32_words(&[1.0, 2.0, 3.0, 4.0, 5.0]), &mut out), AETHER_REF_BAD_INPUT);
    // Too long.
    assert_eq!(call(c"dot", c"vec3", c"f32", &f32_words(&[1.0; 7]), &mut out), AETHER_REF_BAD_INPUT);
    // An f32 word with high bits set.
    let mut input = f32_words(&[1.0; 6]);
    input[2] |= 1 << 40;
    assert_eq!(call(c"dot", c"vec3", c"f32", &input, &mut out), AETHER_REF_BAD_INPUT);
    assert_eq!(out, [7; 4], "nothing written");
    // The process goes on, and so do good calls on this thread.
    assert_eq!(call(c"dot", c"vec3", c"f32", &f32_words(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), &mut out), 1);
    // A panic outside the library still panics (the quiet hook hands it on).
    assert!(std::panic::catch_unwind(|| panic!("an ordinary panic")).is_err());
}

#[test]
fn out_too_small_writes_nothing() {
    let input = f32_words(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut out = [0xdead_beefu64; 3];
    assert_eq!(call(c"cross", c"vec3", c"f32", &input, &mut out[..2]), AETHER_REF_OUT_TOO_SMALL);
    assert_eq!(call(c"cross", c"vec3", c"f32", &input, &mut out[..0]), AETHER_REF_OUT_TOO_SMALL);
    assert_eq!(out, [0xdead_beef; 3]);
    // SAFETY: a null `out` with capacity 0.
    let rc = unsafe { aether_ref_call(c"dot".as_ptr(), c"vec3".as_ptr(), c"f32".as_ptr(), input.as_ptr(), 6, ptr::null_mut(), 0) };
    assert_eq!(rc, AETHER_REF_OUT_TOO_SMALL);
    assert_eq!(call(c"cross", c"vec3", c"f32", &input, &mut out), 3);
}

#[test]
fn null_pointers() {
    let mut out = [0u64; 8];
    // A null input of length 0 is the empty array.
    let expected = flat::lookup("sum_array", "scalar", "f32").unwrap()(&[]);
    // SAFETY: null input of length 0; `out` of the length passed.
    let rc =
        unsafe { aether_ref_call(c"sum_array".as_ptr(), c"scalar".as_ptr(), c"f32".as_ptr(), ptr::null(), 0, out.as_mut_ptr(), out.len()) };
    assert_eq!(rc, 1);
    assert_eq!(out[..1], expected[..]);
    // SAFETY: as above.
    let rc =
        unsafe { aether_ref_call(c"identity".as_ptr(), c"mat2".as_ptr(), c"f64".as_ptr(), ptr::null(), 0, out.as_mut_ptr(), out.len()) };
    assert_eq!(rc, 4);
    assert_eq!(out[..4], [1.0f64, 0.0, 0.0, 1.0].map(f64::to_bits));
    // SAFETY: a null input with n_in > 0 is refused before it is read.
    let rc = unsafe { aether_ref_call(c"sum".as_ptr(), c"vec2".as_ptr(), c"f32".as_ptr(), ptr::null(), 2, out.as_mut_ptr(), out.len()) };
    assert_eq!(rc, AETHER_REF_NULL_POINTER);
    let input = f32_words(&[1.0, 2.0]);
    // SAFETY: a null `out` with a capacity is refused before it is written.
    let rc = unsafe { aether_ref_call(c"sum".as_ptr(), c"vec2".as_ptr(), c"f32".as_ptr(), input.as_ptr(), 2, ptr::null_mut(), 4) };
    assert_eq!(rc, AETHER_REF_NULL_POINTER);
}

fn entry(i: usize) -> Option<[&'static str; 3]> {
    let mut keys = [ptr::null::<c_char>(); 3];
    let [f, s, e] = keys.each_mut().map(ptr::from_mut);
    // SAFETY: three writable pointers.
    if unsafe { aether_ref_entry(i, f, s, e) } != 0 {
        assert_eq!(keys, [ptr::null(); 3], "nothing stored out of range");
        return None;
    }
    // SAFETY: static NUL-terminated strings, by the function's contract.
    Some(keys.map(|k| unsafe { CStr::from_ptr(k) }.to_str().unwrap()))
}

#[test]
fn enumeration_matches_flat_entries() {
    let entries = flat::entries();
    assert_eq!(aether_ref_count(), entries.len());
    assert!(aether_ref_count() > 300);
    for (i, &(family, shape, elem)) in entries.iter().enumerate() {
        let keys = entry(i).unwrap();
        assert_eq!(keys, [family, shape, elem]);
        assert!(flat::lookup(keys[0], keys[1], keys[2]).is_some(), "{keys:?}");
        // The strings are static: the same pointers every time.
        let mut again = ptr::null();
        // SAFETY: one writable pointer; the others null.
        assert_eq!(unsafe { aether_ref_entry(i, &mut again, ptr::null_mut(), ptr::null_mut()) }, 0);
        let mut first = ptr::null();
        // SAFETY: as above.
        unsafe { aether_ref_entry(i, &mut first, ptr::null_mut(), ptr::null_mut()) };
        assert_eq!(again, first);
    }
    assert_eq!(entry(entries.len()), None);
    assert_eq!(entry(usize::MAX), None);
}

#[test]
fn every_entry_answers_empty_input_without_aborting() {
    let mut out = vec![0u64; 4096];
    for i in 0..aether_ref_count() {
        let [family, shape, elem] = entry(i).unwrap().map(|k| std::ffi::CString::new(k).unwrap());
        let rc = call(&family, &shape, &elem, &[], &mut out);
        match flat::lookup(family.to_str().unwrap(), shape.to_str().unwrap(), elem.to_str().unwrap())
            .map(|f| std::panic::catch_unwind(|| f(&[])))
        {
            Some(Ok(expected)) => {
                assert_eq!(rc, expected.len() as isize, "{family:?}/{shape:?}/{elem:?}");
                assert_eq!(out[..expected.len()], expected[..]);
            }
            Some(Err(_)) => assert_eq!(rc, AETHER_REF_BAD_INPUT, "{family:?}/{shape:?}/{elem:?}"),
            None => unreachable!(),
        }
    }
}

#[test]
fn concurrent_calls() {
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut out = [0u64; 1];
                for k in 0..2000 {
                    let x = (t * 2000 + k) as f32;
                    let input = f32_words(&[x, 1.0, 0.0, 1.0, 1.0, 1.0]);
                    assert_eq!(call(c"dot", c"vec3", c"f32", &input, &mut out), 1);
                    assert_eq!(out[0], u64::from((x + 1.0).to_bits()));
                    assert_eq!(call(c"dot", c"vec3", c"f32", &input[..4], &mut out), AETHER_REF_BAD_INPUT);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn version() {
    // SAFETY: a static NUL-terminated string.
    let version = unsafe { CStr::from_ptr(aether_ref_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    assert_eq!(aether_ref_version(), aether_ref_version());
}

//! The aether reference behind a C ABI.
//!
//! `aether-reference` is the oracle every language core is checked against;
//! this crate exports its flat calling convention
//! ([`aether_reference::flat`], see `reference/src/flat.rs`) as a static
//! library for checkers that are not written in Rust. The header
//! `include/aether_reference.h` is generated from this file by cbindgen
//! (`build.rs`); `tests/header.rs` fails when the committed copy is stale and
//! `AETHER_BLESS=1 cargo test -p aether-reference-capi --test header`
//! rewrites it.
//!
//! Every function is safe to call from several threads at once.

use std::cell::Cell;
use std::ffi::{c_char, c_int, CStr, CString};
use std::panic::{self, AssertUnwindSafe};
use std::sync::{LazyLock, Once};

use aether_reference::flat;

/// `aether_ref_call`: no function `(family, shape, elem)`, or a name that is
/// a null pointer or not UTF-8.
pub const AETHER_REF_UNKNOWN: isize = -1;

/// `aether_ref_call`: the reference rejected the input (a wrong number of
/// words, an `f32` word with high bits set, an index out of range, ...).
/// Nothing is written to `out`.
pub const AETHER_REF_BAD_INPUT: isize = -2;

/// `aether_ref_call`: the result has more than `out_cap` words. Nothing is
/// written to `out`.
pub const AETHER_REF_OUT_TOO_SMALL: isize = -3;

/// `aether_ref_call`: `input` is null while `n_in > 0`, or `out` is null
/// while the result has words to write. Nothing is written to `out`.
pub const AETHER_REF_NULL_POINTER: isize = -4;

thread_local! {
    /// Set while this thread runs a reference function under `catch_unwind`:
    /// its panic is reported as [`AETHER_REF_BAD_INPUT`], not printed.
    static SILENT: Cell<bool> = const { Cell::new(false) };
}

/// Installs, once, a panic hook that says nothing for a panic of a reference
/// function called here and hands every other panic to the hook that was
/// installed before (the default one unless the host set its own).
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !SILENT.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `function` on `input`, quietly; `None` when it panics.
fn call_quietly(function: flat::FlatFn, input: &[u64]) -> Option<Vec<u64>> {
    install_quiet_hook();
    let was = SILENT.with(|s| s.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| function(input)));
    SILENT.with(|s| s.set(was));
    result.ok()
}

/// # Safety
///
/// `name` is null or a NUL-terminated string.
unsafe fn name<'a>(name: *const c_char) -> Option<&'a str> {
    if name.is_null() {
        return None;
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(name) }.to_str().ok()
}

/// Calls the reference function `(family, shape, elem)` in the flat
/// convention (reference/src/flat.rs): the `n_in` words at `input` are every
/// parameter's components in parameter order, each word the raw IEEE bit
/// pattern of one element (an `f32` in the low 32 bits, the high 32 bits
/// zero; vectors x, y, z, w; quaternions w, x, y, z; matrices row-major);
/// the result words come back the same way (a bool is one word, 0 or 1).
/// Keys are the spec's: e.g. `("dot", "vec3", "f32")`,
/// `("sum_array", "scalar", "f64")`, `("lu", "mat3", "f32")`.
///
/// Returns the number of result words (`>= 0`), written to `out[0..n]`, or
/// one of the negative `AETHER_REF_*` codes, in which case nothing is
/// written. `input` may be null when `n_in` is 0 (an empty array input).
///
/// # Safety
///
/// `family`, `shape` and `elem` are each null or a NUL-terminated string.
/// `input` is null or points to `n_in` readable, aligned `uint64_t` words;
/// `out` is null or points to `out_cap` writable, aligned `uint64_t` words,
/// not overlapping `input`.
#[no_mangle]
pub unsafe extern "C" fn aether_ref_call(
    family: *const c_char,
    shape: *const c_char,
    elem: *const c_char,
    input: *const u64,
    n_in: usize,
    out: *mut u64,
    out_cap: usize,
) -> isize {
    // SAFETY: the names are null or NUL-terminated by the caller's contract.
    let (family, shape, elem) = unsafe { (name(family), name(shape), name(elem)) };
    let (Some(family), Some(shape), Some(elem)) = (family, shape, elem) else {
        return AETHER_REF_UNKNOWN;
    };
    let Some(function) = flat::lookup(family, shape, elem) else {
        return AETHER_REF_UNKNOWN;
    };
    let input: &[u64] = if n_in == 0 {
        &[]
    } else if input.is_null() {
        return AETHER_REF_NULL_POINTER;
    } else {
        // SAFETY: non-null, `n_in` readable aligned words by the caller's contract.
        unsafe { std::slice::from_raw_parts(input, n_in) }
    };
    let Some(result) = call_quietly(function, input) else {
        return AETHER_REF_BAD_INPUT;
    };
    if result.len() > out_cap {
        return AETHER_REF_OUT_TOO_SMALL;
    }
    if !result.is_empty() {
        if out.is_null() {
            return AETHER_REF_NULL_POINTER;
        }
        // SAFETY: `out` has `out_cap >= result.len()` writable words and does
        // not overlap `input` (caller's contract); `result` is our own vector.
        unsafe { std::ptr::copy_nonoverlapping(result.as_ptr(), out, result.len()) };
    }
    // A vector never holds more than isize::MAX elements.
    result.len() as isize
}

/// Every `(family, shape, elem)` of [`flat::entries`] as NUL-terminated
/// strings that live as long as the program.
static ENTRIES: LazyLock<Vec<[CString; 3]>> = LazyLock::new(|| {
    flat::entries()
        .iter()
        .map(|&(family, shape, elem)| [family, shape, elem].map(|s| CString::new(s).expect("a flat key has no NUL byte")))
        .collect()
});

/// The number of reference functions, for `aether_ref_entry`.
#[no_mangle]
pub extern "C" fn aether_ref_count() -> usize {
    ENTRIES.len()
}

/// The keys of reference function `i` (`0 <= i < aether_ref_count()`):
/// stores static NUL-terminated strings (never to be freed) through each of
/// `family`, `shape` and `elem` that is not null. Returns 0, or -1 when `i`
/// is out of range (nothing is stored).
///
/// # Safety
///
/// `family`, `shape` and `elem` are each null or point to a writable
/// `const char *`.
#[no_mangle]
pub unsafe extern "C" fn aether_ref_entry(
    i: usize,
    family: *mut *const c_char,
    shape: *mut *const c_char,
    elem: *mut *const c_char,
) -> c_int {
    let Some(entry) = ENTRIES.get(i) else {
        return -1;
    };
    for (slot, key) in [family, shape, elem].into_iter().zip(entry) {
        if !slot.is_null() {
            // SAFETY: non-null and writable by the caller's contract.
            unsafe { slot.write(key.as_ptr()) };
        }
    }
    0
}

const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
    Ok(version) => version,
    Err(_) => panic!("the crate version has no NUL byte"),
};

/// The version of the reference (the workspace version, shared by
/// aether-reference and this library), e.g. "0.1.0": a static
/// NUL-terminated string, never to be freed.
#[no_mangle]
pub extern "C" fn aether_ref_version() -> *const c_char {
    VERSION.as_ptr()
}

//! Test support: the C core built by build.rs and bound by bindgen, every
//! function called through its generated flat thunk, and the corpus read back
//! from `corpus/`.

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, clippy::all)]
pub mod sys {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub mod coefficients;
pub mod exact;
pub mod rust_core;

use std::collections::BTreeMap;

use aether_generator::corpus::{self, ParsedFunction};
use aether_generator::model::Model;
pub use aether_generator::policy;

/// One C function, called through its flat thunk (`c_core/check/aether_flat.c`,
/// generated with the core: input words in, result words out).
#[derive(Debug, Clone, Copy)]
pub struct CFunction {
    pub name: &'static str,
    pub family: &'static str,
    pub shape: &'static str,
    pub elem: &'static str,
    /// Calls the thunk at the given address with input words.
    pub call: fn(*const (), &[u64]) -> Vec<u64>,
    /// The address of this function's thunk linked into this crate.
    pub linked: *const (),
}

impl CFunction {
    /// Calls the linked C function.
    pub fn run(&self, words: &[u64]) -> Vec<u64> {
        (self.call)(self.linked, words)
    }
}

/// What a word of the thunks' result room holds until a call writes it.
const ROOM_POISON: u64 = 0xDEAD_7FF4_BAD0_0A11;

type Thunk = unsafe extern "C" fn(*const u64, usize, *mut u64, usize) -> usize;

/// Calls a flat thunk with `words`; panics, naming the words, when the
/// thunk refuses them (a count, index or pivot outside the convention).
/// `thunk` must come from `functions()` or `thunk()`: it is the `fn` type of
/// `CFunction::call`, so it takes the address as a plain pointer.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn call_thunk(thunk: *const (), words: &[u64]) -> Vec<u64> {
    // SAFETY: `thunk` is an `aether_flat_call` taken from an
    // `aether_flat_entries` table (this crate's or a loaded core's).
    let f = unsafe { std::mem::transmute::<*const (), Thunk>(thunk) };
    // The result's size is not known before the call: a thunk that needs more
    // room says so (and calls nothing), and is called again with more. The
    // room is one buffer per thread, kept between calls: a fresh zeroed
    // buffer per call cost more than most functions (an exhaustive sweep calls
    // 2^32 times). Every word a call does not write holds ROOM_POISON (no f32
    // word, no likely f64 result), never an earlier call's result, so a thunk
    // that reports a word it did not write still shows as a mismatch.
    thread_local! {
        static ROOM: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    ROOM.with(|room| {
        let mut out = room.borrow_mut();
        let need = (4 * words.len()).max(1024);
        if out.len() < need {
            out.resize(need, ROOM_POISON);
        }
        loop {
            // SAFETY: `words` and `out` are valid for the lengths passed.
            let n = unsafe { f(words.as_ptr(), words.len(), out.as_mut_ptr(), out.len()) };
            if n != usize::MAX {
                let result = out[..n].to_vec();
                out[..n].fill(ROOM_POISON);
                return result;
            }
            assert!(out.len() < 1 << 26, "the thunk refuses the input words {words:x?}");
            let more = out.len() * 8;
            out.resize(more, ROOM_POISON);
        }
    })
}

/// A static C string of a flat entry.
fn static_str(p: *const std::os::raw::c_char) -> &'static str {
    // SAFETY: the entries' strings are string literals of the C object,
    // which lives as long as the process (or the loaded library, which the
    // callers keep alive).
    unsafe { std::ffi::CStr::from_ptr(p) }.to_str().unwrap()
}

/// The flat entries of a table of `AETHER_FLAT_COUNT` entries.
fn entries_at(table: *const sys::aether_flat_entry) -> &'static [sys::aether_flat_entry] {
    // SAFETY: `table` is `aether_flat_entries`, an array of that many entries.
    unsafe { std::slice::from_raw_parts(table, sys::AETHER_FLAT_COUNT as usize) }
}

/// Every function and kernel of the core linked into this crate, through the
/// flat thunks linked with it.
pub fn functions() -> Vec<CFunction> {
    // Only the address of the linked table is taken (no read, so no unsafe).
    let table = std::ptr::addr_of!(sys::aether_flat_entries).cast::<sys::aether_flat_entry>();
    entries_at(table)
        .iter()
        .map(|e| CFunction {
            name: static_str(e.name),
            family: static_str(e.family),
            shape: static_str(e.shape),
            elem: static_str(e.elem),
            call: call_thunk,
            linked: e.call.expect("every entry has a thunk") as *const (),
        })
        .collect()
}

/// The thunk of `name` in a core loaded with `compile_core`, for `CFunction::call`.
pub fn thunk(lib: &libloading::Library, name: &str) -> *const () {
    // SAFETY: the symbol is the `aether_flat_entries` array of the loaded
    // library; its address is the array's.
    let table = unsafe { lib.get::<*const sys::aether_flat_entry>(b"aether_flat_entries\0") }.expect("the core has aether_flat_entries");
    let e = entries_at(*table).iter().find(|e| static_str(e.name) == name).unwrap_or_else(|| panic!("{name}: no flat entry"));
    e.call.expect("every entry has a thunk") as *const ()
}

/// The spec's model.
pub fn model() -> Model {
    aether_generator::load(&aether_generator::default_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// The committed corpus, by C name.
pub type Corpus = BTreeMap<String, ParsedFunction>;

/// Every corpus part's functions, read back and fence-checked, by C name.
pub fn corpus() -> Result<Corpus, String> {
    corpus::read_committed(&aether_generator::default_root())
}

/// The self-test's witnesses, chosen from the committed corpus as the
/// generator chooses them.
pub fn witnesses(model: &Model) -> Vec<aether_generator::selftest::Witness> {
    let corpus = corpus().unwrap_or_else(|e| panic!("{e}"));
    aether_generator::selftest::witnesses(model, &|name| corpus.get(name).map(|f| f.cases.clone()))
}

/// Runs `aether_selftest(AETHER_CONTRACT_ID of the model, ...)` of a loaded
/// core: its status and message.
pub fn selftest(lib: &libloading::Library, model: &Model) -> (i32, String) {
    type SelfTest = unsafe extern "C" fn(*const std::os::raw::c_char, *mut std::os::raw::c_char, usize) -> std::os::raw::c_int;
    let id = std::ffi::CString::new(aether_generator::selftest::contract_id(model)).unwrap();
    let mut buf = vec![0u8; 4096];
    // SAFETY: `aether_selftest` has this C type (aether_core.h); the buffer
    // is writable for its length and the id NUL-terminated.
    let status = unsafe {
        let f = std::mem::transmute::<*const (), SelfTest>(symbol(lib, "aether_selftest"));
        f(id.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
    };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    (status, String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// The C compiler build.rs compiled the core with.
pub const CC: &str = env!("AETHER_CC");

/// Compiles a core (header and source text) into `dir` as a shared library
/// with the given compiler and flags, with the flat thunks of
/// `c_core/check/aether_flat.c` built against that header, and loads it. `-fPIC -shared
/// -fno-semantic-interposition`: the last lets the compiler inline the core's
/// functions into each other as it does in a static build (which a consumer
/// linking the core into a program gets), instead of calling them through
/// the PLT.
pub fn compile_core(dir: &std::path::Path, header: &str, source: &str, cc: &str, flags: &[&str]) -> libloading::Library {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("aether_core.h"), header).unwrap();
    std::fs::write(dir.join("aether_core.c"), source).unwrap();
    let so = dir.join("libaether_core_variant.so");
    let mut cmd = std::process::Command::new(cc);
    let check = aether_generator::default_root().join("c_core/check");
    cmd.args(flags)
        .args(["-fPIC", "-shared", "-fno-semantic-interposition", "-o"])
        .arg(&so)
        .arg(format!("-I{}", dir.display()))
        .arg(format!("-I{}", check.display()))
        .arg(dir.join("aether_core.c"))
        .arg(check.join("aether_flat.c"))
        .arg("-lm");
    let out = cmd.output().unwrap_or_else(|e| panic!("run the C compiler {cc}: {e}"));
    assert!(out.status.success(), "the core in {} does not compile:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
    // SAFETY: a library just built from generated C; it has no initialisers.
    unsafe { libloading::Library::new(&so) }.expect("load the compiled core")
}

/// The flags every build of the core in this crate uses.
pub fn core_flags() -> Vec<&'static str> {
    env!("AETHER_CORE_FLAGS").split(' ').collect()
}

/// The flags of a mutant core (tests/tests/mutants.rs): the core's flags at
/// -O0. A mutant core is built to show that the corpus tells its rule from
/// the contract's, which no optimisation level changes (the core keeps its
/// bits at every level: the compatibility matrix runs -O0 to -O3); -O0
/// compiles the 8,700 lines in about a third of -O2's time, 22 times.
pub fn mutant_flags() -> Vec<&'static str> {
    core_flags().into_iter().map(|f| if f.starts_with("-O") { "-O0" } else { f }).collect()
}

/// The address of symbol `name` in a loaded core.
pub fn symbol(lib: &libloading::Library, name: &str) -> *const () {
    // SAFETY: only the address is taken; callers cast it to the symbol's
    // C type (aether_core.h).
    let s = unsafe { lib.get::<unsafe extern "C" fn()>(format!("{name}\0").as_bytes()) }.unwrap_or_else(|e| panic!("{name}: {e}"));
    *s as *const ()
}

/// Bits as hex, for failure messages.
pub fn hex(words: &[u64], width: u32) -> String {
    let v: Vec<String> = words.iter().map(|w| if width == 32 { format!("{w:08x}") } else { format!("{w:016x}") }).collect();
    format!("[{}]", v.join(" "))
}

/// The width in bits of an element type name.
pub fn width(elem: &str) -> u32 {
    if elem == "f32" {
        32
    } else {
        64
    }
}

/// The intervals `lo:hi,lo:hi,...` of the environment variable `var`, for the
/// witness searches' aimed inputs (`bin/probe.rs`, `bin/coefficients.rs`); an
/// unset variable, or a part that does not parse, gives none.
pub fn ranges_from_env(var: &str) -> Vec<(f64, f64)> {
    std::env::var(var)
        .unwrap_or_default()
        .split(',')
        .filter_map(|r| {
            let (lo, hi) = r.split_once(':')?;
            Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?))
        })
        .collect()
}

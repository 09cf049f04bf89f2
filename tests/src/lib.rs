//! Test support: the C core built by build.rs and bound by bindgen, a flat
//! caller for every function, the reference's flat callers, and the corpus
//! read back from `corpus/`.

#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, clippy::all)]
pub mod sys {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}

pub mod exact;

use std::collections::BTreeMap;

use aether_generator::corpus::{self, ParsedFunction};
use aether_generator::model::Model;
pub use aether_generator::policy;

/// One C function: a typed caller behind a flat one.
#[derive(Debug, Clone, Copy)]
pub struct CFunction {
    pub name: &'static str,
    pub family: &'static str,
    pub shape: &'static str,
    pub elem: &'static str,
    /// Calls the function at the given address with input words.
    pub call: fn(*const (), &[u64]) -> Vec<u64>,
    /// The address of the function linked into this crate.
    pub linked: *const (),
}

impl CFunction {
    /// Calls the linked C function.
    pub fn run(&self, words: &[u64]) -> Vec<u64> {
        (self.call)(self.linked, words)
    }
}

/// Generated from the spec by build.rs; the casts are the same text for f32
/// and f64, and a kernel's array count is the same text for one array and
/// two, so some are no-ops.
#[allow(clippy::unnecessary_cast, clippy::identity_op)]
mod glue {
    use super::sys::*;
    use super::CFunction;
    include!(concat!(env!("OUT_DIR"), "/glue.rs"));
}
pub use glue::functions;

/// The spec's model.
pub fn model() -> Model {
    aether_generator::load(&aether_generator::default_root()).unwrap_or_else(|e| panic!("{e}"))
}

/// Every corpus part's functions, read back and fence-checked, by C name.
pub fn corpus() -> Result<BTreeMap<String, ParsedFunction>, String> {
    let dir = aether_generator::default_root().join("corpus");
    let mut out = BTreeMap::new();
    let mut names: Vec<_> =
        std::fs::read_dir(&dir).map_err(|e| e.to_string())?.flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    names.sort();
    for name in names {
        if name == "aether_c_corpus.h" || !name.ends_with(".h") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&name)).map_err(|e| e.to_string())?;
        for f in corpus::parse_part(&name, &text)? {
            out.insert(f.c_name.clone(), f);
        }
    }
    Ok(out)
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
/// with the given compiler and flags, and loads it. `-fPIC -shared
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
    cmd.args(flags).args(["-fPIC", "-shared", "-fno-semantic-interposition", "-o"]).arg(&so).arg(dir.join("aether_core.c")).arg("-lm");
    let out = cmd.output().unwrap_or_else(|e| panic!("run the C compiler {cc}: {e}"));
    assert!(out.status.success(), "the core in {} does not compile:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
    // SAFETY: a library just built from generated C; it has no initialisers.
    unsafe { libloading::Library::new(&so) }.expect("load the compiled core")
}

/// The flags every build of the core in this crate uses.
pub fn core_flags() -> Vec<&'static str> {
    env!("AETHER_CORE_FLAGS").split(' ').collect()
}

/// The address of symbol `name` in a loaded core.
pub fn symbol(lib: &libloading::Library, name: &str) -> *const () {
    // SAFETY: only the address is taken; callers call it through the typed
    // glue of the same function.
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

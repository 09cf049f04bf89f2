//! The witness tables of `aether_selftest()` in the C core: a static thunk
//! per witnessed callable (the flat convention of `c_flat`), the witnesses,
//! and their words. The checking code itself is in the template.

use crate::model::Model;
use crate::selftest::Witness;
use crate::targets::shared::c_family::flat as c_flat;

/// The lines of the self-test's tables.
pub fn tables(model: &Model, witnesses: &[Witness]) -> Vec<String> {
    let callables = model.callables();
    let mut lines = c_flat::layout_checks(model);
    lines.extend(c_flat::helpers());
    let mut done: Vec<usize> = Vec::new();
    for w in witnesses {
        if done.contains(&w.callable) {
            continue;
        }
        done.push(w.callable);
        lines.push(String::new());
        lines.extend(c_flat::thunk(model, callables[w.callable], &thunk_name(&w.c_name), "static "));
    }
    lines.push(String::new());
    lines.extend(witness_table(model, witnesses, &|w| thunk_name(&w.c_name)));
    lines
}

/// The witnesses and their words: `aether_selftest_witnesses` (one row per
/// witness: function, rule, `thunk(w)`, bits, policy, counts, word offset)
/// and `aether_selftest_words`. The C core's `thunk` is a function; the CUDA
/// core's an index for its dispatcher.
pub fn witness_table(model: &Model, witnesses: &[Witness], thunk: &dyn Fn(&Witness) -> String) -> Vec<String> {
    let mut lines = Vec::new();
    lines.push(format!("static const aether_selftest_witness aether_selftest_witnesses[{}] = {{", witnesses.len().max(1)));
    let (rows, words) = witness_rows(model, witnesses);
    for (w, r) in witnesses.iter().zip(&rows) {
        lines.push(format!(
            "    {{ \"{}\", \"{}: {}\", {}, {}u, {}, {}, {}u, {}u, {}u }},",
            w.c_name,
            w.mutant.name(),
            w.mutant.description().replace('"', "'"),
            thunk(w),
            r.bits,
            i32::from(r.is_float),
            i32::from(r.either_zero),
            w.inputs.len(),
            w.expected.len(),
            r.at
        ));
    }
    if witnesses.is_empty() {
        lines.push("    { \"\", \"\", 0, 0u, 0, 0, 0u, 0u, 0u }".into());
    }
    lines.push("};".into());
    lines.push(String::new());
    lines.push(format!("static const uint64_t aether_selftest_words[{}] = {{", words.len().max(1)));
    lines.extend(word_lines(&words, "ull"));
    lines.push("};".into());
    lines
}

/// What a self-test's table says of one witness besides its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WitnessRow {
    pub bits: u32,
    pub is_float: bool,
    pub either_zero: bool,
    /// Where its inputs, then its expected words, start in the words.
    pub at: usize,
}

/// The rows of the witnesses and their words, one after another (inputs,
/// then expected results), for the C family's self-test tables.
pub fn witness_rows(model: &Model, witnesses: &[Witness]) -> (Vec<WitnessRow>, Vec<u64>) {
    let callables = model.callables();
    let mut rows = Vec::new();
    let mut words = Vec::new();
    for w in witnesses {
        let c = callables[w.callable];
        let bits = model.spec.types.iter().find(|t| t.name == c.elem()).unwrap().bits;
        rows.push(WitnessRow { bits, is_float: c.is_float(), either_zero: c.either_zero(), at: words.len() });
        words.extend(w.inputs.iter().chain(&w.expected).copied());
    }
    (rows, words)
}

/// The words as the lines of a C initialiser, four a line, each with the
/// 64-bit literal suffix (`ull` in C, `ul` in OpenCL C); a lone 0 for none.
pub fn word_lines(words: &[u64], suffix: &str) -> Vec<String> {
    if words.is_empty() {
        return vec!["    0u".into()];
    }
    words
        .chunks(4)
        .map(|chunk| {
            let ws: Vec<String> = chunk.iter().map(|w| format!("0x{w:016x}{suffix}")).collect();
            format!("    {},", ws.join(", "))
        })
        .collect()
}

/// The subnormal probes (`selftest::subnormal_probes`) as a C table
/// `aether_selftest_probes[AETHER_SELFTEST_PROBES]` of `{ bits, operand, a,
/// b, expected }`, for the C core's and the CUDA core's self-tests.
pub fn probe_table(model: &Model) -> Vec<String> {
    let probes = crate::selftest::subnormal_probes(model);
    let mut lines = vec![
        "/* The subnormal probes: a * b in the element type of `bits` must give `expected`; a flushed".into(),
        "   result (operand 0: the smallest normal times 1/2) or a flushed operand (operand 1: the".into(),
        "   smallest subnormal times 2^p) gives zero instead. */".into(),
        "typedef struct aether_selftest_probe {".into(),
        "    unsigned bits;".into(),
        "    int operand;".into(),
        "    uint64_t a, b, expected;".into(),
        "} aether_selftest_probe;".into(),
        String::new(),
        format!("#define AETHER_SELFTEST_PROBES {}u", probes.len().max(1)),
        "static const aether_selftest_probe aether_selftest_probes[AETHER_SELFTEST_PROBES] = {".into(),
    ];
    for p in &probes {
        lines.push(format!(
            "    {{ {}u, {}, 0x{:016x}ull, 0x{:016x}ull, 0x{:016x}ull }},",
            p.bits,
            i32::from(p.operand),
            p.a,
            p.b,
            p.expected
        ));
    }
    if probes.is_empty() {
        lines.push("    { 32u, 0, 0u, 0u, 0u }".into());
    }
    lines.push("};".into());
    lines
}

fn thunk_name(c_name: &str) -> String {
    format!("aether_selftest_call_{}", c_name.trim_start_matches("aether_"))
}

//! The witness tables of `aether_selftest()` in the C core: a static thunk
//! per witnessed callable (the flat convention of `c_flat`), the witnesses,
//! and their words. The checking code itself is in the template.

use super::c_flat;
use crate::model::Model;
use crate::selftest::Witness;

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
    let callables = model.callables();
    let mut lines = Vec::new();
    lines.push(format!("static const aether_selftest_witness aether_selftest_witnesses[{}] = {{", witnesses.len().max(1)));
    let mut at = 0;
    let mut words = Vec::new();
    for w in witnesses {
        let c = callables[w.callable];
        let bits = model.spec.types.iter().find(|t| t.name == c.elem()).unwrap().bits;
        lines.push(format!(
            "    {{ \"{}\", \"{}: {}\", {}, {bits}u, {}, {}, {}u, {}u, {at}u }},",
            w.c_name,
            w.mutant.name(),
            w.mutant.description().replace('"', "'"),
            thunk(w),
            i32::from(c.is_float()),
            i32::from(c.either_zero()),
            w.inputs.len(),
            w.expected.len()
        ));
        at += w.inputs.len() + w.expected.len();
        words.extend(w.inputs.iter().chain(&w.expected).copied());
    }
    if witnesses.is_empty() {
        lines.push("    { \"\", \"\", 0, 0u, 0, 0, 0u, 0u, 0u }".into());
    }
    lines.push("};".into());
    lines.push(String::new());
    lines.push(format!("static const uint64_t aether_selftest_words[{}] = {{", words.len().max(1)));
    for chunk in words.chunks(4) {
        let ws: Vec<String> = chunk.iter().map(|w| format!("0x{w:016x}ull")).collect();
        lines.push(format!("    {},", ws.join(", ")));
    }
    if words.is_empty() {
        lines.push("    0u".into());
    }
    lines.push("};".into());
    lines
}

fn thunk_name(c_name: &str) -> String {
    format!("aether_selftest_call_{}", c_name.trim_start_matches("aether_"))
}

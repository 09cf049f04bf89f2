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
/// witness: function, rule, `thunk(w)`, bits, policy, counts, word offset,
/// the mask of causes that can explain its failure)
/// and `aether_selftest_words`. The C core's `thunk` is a function; the CUDA
/// core's an index for its dispatcher.
pub fn witness_table(model: &Model, witnesses: &[Witness], thunk: &dyn Fn(&Witness) -> String) -> Vec<String> {
    let mut lines = Vec::new();
    lines.push(format!("static const aether_selftest_witness aether_selftest_witnesses[{}] = {{", witnesses.len().max(1)));
    let (rows, words) = witness_rows(model, witnesses);
    for (w, r) in witnesses.iter().zip(&rows) {
        lines.push(format!(
            "    {{ \"{}\", \"{}: {}\", {}, {}u, {}, {}, {}u, {}u, {}u, {}u }},",
            w.c_name,
            w.mutant.name(),
            w.mutant.description().replace('"', "'"),
            thunk(w),
            r.bits,
            i32::from(r.is_float),
            i32::from(r.either_zero),
            w.inputs.len(),
            w.expected.len(),
            r.at,
            w.causes
        ));
    }
    if witnesses.is_empty() {
        lines.push("    { \"\", \"\", 0, 0u, 0, 0, 0u, 0u, 0u, 0u }".into());
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

/// The cause probes (`selftest::cause_probes`) as a C function
/// `aether_selftest_causes()` (`storage` before it: `static ` or CUDA's
/// qualifiers) that runs each as the core's own code runs (each product
/// through the core's guard `<product>_f32`/`_f64` where `product` is not
/// empty, the sums plain), on operands read from volatile words (so nothing is folded at compile
/// time, while a compiler that contracts, reassociates or drops zero signs in
/// plain code does it here too), and returns the mask (`Cause::bit`) of the
/// causes whose probe gave other bits; and the causes in words,
/// `aether_selftest_cause_words`.
pub fn cause_probe_function(model: &Model, storage: &str, product: &str) -> Vec<String> {
    use crate::selftest::{Cause, CAUSES};
    let mut lines = vec![
        "/* The causes a failing witness can have besides a broken rule, by bit: the order of".into(),
        "   selftest::CAUSES in the generator. */".into(),
    ];
    for c in CAUSES {
        lines.push(format!("#define AETHER_SELFTEST_CAUSE_{} {}u", c.name().to_uppercase().replace('-', "_"), c.bit()));
    }
    lines.push(format!("static const char *const aether_selftest_cause_words[{}] = {{", CAUSES.len()));
    for c in CAUSES {
        lines.push(format!("    \"{}\",", c.words()));
    }
    lines.push("};".into());
    lines.push(String::new());
    lines.push("/* The cause probes, in plain arithmetic (no guard): each gives `expected` in IEEE arithmetic".into());
    lines.push("   and other bits where its cause strikes plain code. Returns the mask of the causes seen. */".into());
    lines.push(format!("{storage}unsigned aether_selftest_causes(void)"));
    lines.push("{".into());
    if !product.is_empty() {
        lines.push("    AETHER_GUARD_ZERO".into());
    }
    lines.push("    unsigned causes = 0u;".into());
    for p in crate::selftest::cause_probes(model) {
        let (ty, rd, wr) = if p.bits == 32 {
            ("float", "aether_flat_rd32", "aether_flat_wr32")
        } else {
            ("double", "aether_flat_rd64", "aether_flat_wr64")
        };
        let lit = |v: f64| if p.bits == 32 { format!("{v:.1}f") } else { format!("{v:.1}") };
        let elem = model.spec.types.iter().find(|t| t.bits == p.bits).map_or("f32", |t| t.name.as_str());
        let product = |e: String| if product.is_empty() { e } else { format!("{product}_{elem}(({e}))") };
        let expr = p.op.spell(["x", "y", "z"], &lit, "fma", (&product, &|e| e), false);
        let bit = match p.cause {
            Cause::Fusion => "FUSION",
            Cause::Reassociation => "REASSOCIATION",
            Cause::Flush => "FLUSH",
            Cause::ZeroSign => "ZERO_SIGN",
        };
        lines.push(format!("    {{ /* {}: {expr} */", p.cause.name()));
        lines.push(format!(
            "        volatile uint64_t w0 = 0x{:016x}ull, w1 = 0x{:016x}ull, w2 = 0x{:016x}ull;",
            p.inputs[0], p.inputs[1], p.inputs[2]
        ));
        lines.push(format!("        const {ty} x = {rd}(w0), y = {rd}(w1), z = {rd}(w2);"));
        lines.push("        (void)x; (void)y; (void)z;".into());
        lines.push(format!("        if ({wr}({expr}) != 0x{:016x}ull) causes |= AETHER_SELFTEST_CAUSE_{bit};", p.expected));
        lines.push("    }".into());
    }
    lines.push("    return causes;".into());
    lines.push("}".into());
    lines
}

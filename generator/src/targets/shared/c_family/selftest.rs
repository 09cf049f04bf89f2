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
/// qualifiers; `list_storage` before `aether_selftest_cause_list`, which
/// appends a mask's causes in words to a line) that runs each as the core's
/// own code runs (spelled as `product` says: the C core's guard around each
/// product and plain sums, or the CUDA core's rounded-operation calls;
/// `AETHER_GUARD_ZERO` first with `guard_zero`), on operands read from
/// volatile words (so nothing is folded at compile time, while a compiler that contracts, reassociates or drops zero signs in
/// plain code does it here too), and returns the mask (`Cause::bit`) of the
/// causes whose probe gave other bits; and the causes in words,
/// `aether_selftest_cause_words`.
pub fn cause_probe_function(model: &Model, (storage, list_storage): (&str, &str), guard_zero: bool, product: &Spelling) -> Vec<String> {
    use crate::selftest::CAUSES;
    let mut lines = vec![
        "/* The causes a failing witness can have besides a broken rule, by bit: the order of".into(),
        "   selftest::CAUSES in the generator. */".into(),
    ];
    lines.extend(cause_defines());
    lines.push(format!("static const char *const aether_selftest_cause_words[{}] = {{", CAUSES.len()));
    for c in CAUSES {
        lines.push(format!("    \"{}\",", c.words()));
    }
    lines.push("};".into());
    lines.push(String::new());
    lines.push("/* Appends to `line` the causes of `mask` in words, \", \" between them. */".into());
    lines.push(format!("{list_storage}void aether_selftest_cause_list(char *line, size_t size, unsigned mask)"));
    for l in [
        "{",
        "    unsigned c;",
        "    int first = 1;",
        "    for (c = 0; c < sizeof aether_selftest_cause_words / sizeof aether_selftest_cause_words[0]; ++c) {",
        "        const size_t used = strlen(line);",
        "        if (!(mask & (1u << c))) continue;",
        "        snprintf(line + used, size - used, \"%s%s\", first ? \"\" : \", \", aether_selftest_cause_words[c]);",
        "        first = 0;",
        "    }",
        "}",
    ] {
        lines.push(l.into());
    }
    lines.push(String::new());
    lines.push("/* The cause probes, written as the core writes its arithmetic (each product as the core's products,".into());
    lines.push("   sums plain): each gives `expected` in IEEE arithmetic and other bits where its cause strikes".into());
    lines.push("   the core's code. Returns the mask of the causes seen. */".into());
    lines.push(format!("{storage}unsigned aether_selftest_causes(void)"));
    lines.push("{".into());
    if guard_zero {
        lines.push("    AETHER_GUARD_ZERO".into());
    }
    lines.push("    unsigned causes = 0u;".into());
    lines.extend(cause_probe_statements(model, product, "ull", None));
    lines.push("    return causes;".into());
    lines.push("}".into());
    lines
}

/// The statements of the cause probes (`cause_probe_function`'s body, for
/// the C, CUDA and OpenCL C self-tests): each probe as a block that reads its
/// operands from volatile words (64-bit literals with `suffix`: `ull`, or
/// OpenCL C's `ul`), computes it as `product` spells it (`Spelling`) and sets its cause's bit in `causes` (an unsigned declared
/// before them, the `AETHER_SELFTEST_CAUSE_*` bits defined) where it gives
/// other bits; the f64 probes between the lines of `guard64` where given
/// (OpenCL C's `#ifdef AETHER_FP64`, `#endif`).
pub fn cause_probe_statements(model: &Model, product: &Spelling, suffix: &str, guard64: Option<(&str, &str)>) -> Vec<String> {
    use crate::selftest::Cause;
    let mut lines = Vec::new();
    for p in crate::selftest::cause_probes(model) {
        let (ty, rd, wr) = if p.bits == 32 {
            ("float", "aether_flat_rd32", "aether_flat_wr32")
        } else {
            ("double", "aether_flat_rd64", "aether_flat_wr64")
        };
        let lit = |v: f64| if p.bits == 32 { format!("{v:.1}f") } else { format!("{v:.1}") };
        let elem = model.spec.types.iter().find(|t| t.bits == p.bits).map_or("f32", |t| t.name.as_str());
        let expr = match product {
            Spelling::Infix(product) => {
                let product = |e: String| product(elem, e);
                p.op.spell(["x", "y", "z"], &lit, "fma", (&product, &|e| e), false)
            }
            Spelling::Calls => core_calls(p.op, elem, &lit),
        };
        let bit = match p.cause {
            Cause::Fusion => "FUSION",
            Cause::Reassociation => "REASSOCIATION",
            Cause::Flush => "FLUSH",
            Cause::ZeroSign => "ZERO_SIGN",
        };
        if p.bits == 64 {
            if let Some((open, _)) = guard64 {
                lines.push(open.to_string());
            }
        }
        lines.push(format!("    {{ /* {}: {expr} */", p.cause.name()));
        lines.push(format!(
            "        volatile uint64_t w0 = 0x{:016x}{suffix}, w1 = 0x{:016x}{suffix}, w2 = 0x{:016x}{suffix};",
            p.inputs[0], p.inputs[1], p.inputs[2]
        ));
        lines.push(format!("        const {ty} x = {rd}(w0), y = {rd}(w1), z = {rd}(w2);"));
        lines.push("        (void)x; (void)y; (void)z;".into());
        lines.push(format!("        if ({wr}({expr}) != 0x{:016x}{suffix}) causes |= AETHER_SELFTEST_CAUSE_{bit};", p.expected));
        lines.push("    }".into());
        if p.bits == 64 {
            if let Some((_, close)) = guard64 {
                lines.push(close.to_string());
            }
        }
    }
    lines
}

/// How a core's cause probes spell their arithmetic: infix, each product
/// `a * b` of element type `elem` as the closure spells it (the C core's
/// guard around it, OpenCL C's parentheses); or every operation as the
/// core's rounded-operation call `aether_<op>_<elem>(a, b)` (the CUDA core:
/// explicit-rounding intrinsics on the device, plain operators with the
/// host's product guard on the host, plain operators everywhere under
/// AETHER_UNSAFE_ALLOW_CONTRACTION).
#[allow(missing_debug_implementations)] // a closure
pub enum Spelling<'a> {
    Infix(&'a dyn Fn(&str, String) -> String),
    Calls,
}

/// A cause probe as the core's rounded-operation calls, in the order of
/// evaluation `ProbeOp::spell` gives it in IEEE arithmetic.
fn core_calls(op: crate::selftest::ProbeOp, elem: &str, lit: &dyn Fn(f64) -> String) -> String {
    use crate::selftest::ProbeOp;
    let f = |name: &str, a: &str, b: &str| format!("aether_{name}_{elem}({a}, {b})");
    match op {
        ProbeOp::MulAdd => f("add", &f("mul", "x", "y"), "z"),
        ProbeOp::MulSub => f("sub", &f("mul", "x", "y"), "z"),
        ProbeOp::AddAdd => f("add", &f("add", "x", "y"), "z"),
        ProbeOp::AddSub => f("sub", &f("add", "x", "y"), "y"),
        ProbeOp::NegOne => f("mul", "x", &lit(-1.0)),
        ProbeOp::ZeroSub => f("sub", &lit(0.0), "x"),
        ProbeOp::AddZero => f("add", "x", &lit(0.0)),
        ProbeOp::SubNeg => f("mul", &f("sub", "x", "y"), &lit(-1.0)),
    }
}

/// The `AETHER_SELFTEST_CAUSE_*` bits, by name (the order of
/// `selftest::CAUSES`).
pub fn cause_defines() -> Vec<String> {
    crate::selftest::CAUSES
        .iter()
        .map(|c| format!("#define AETHER_SELFTEST_CAUSE_{} {}u", c.name().to_uppercase().replace('-', "_"), c.bit()))
        .collect()
}

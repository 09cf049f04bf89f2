//! The reference corpus: for every function, input words and the expected
//! result words (IEEE bit patterns), in md5-fenced parts of one family and
//! one element type each.
//!
//! Expected bits come from the hand-written reference. The generator also
//! evaluates its own model on every case and stops if the two disagree, and it
//! searches, for every mutant of a rule that changes a function, an input that
//! tells them apart.

use std::fmt::Write as _;

use crate::error::Error;
use crate::interp;
use crate::model::{Function, Model};
use crate::mutants::{self, Mutant};
use crate::policy;
use crate::rng::{self, SplitMix64};

/// Random cases per function in the corpus.
pub const RANDOM_CASES: usize = 24;
/// Inputs tried per (function, mutant) before the mutant is declared to
/// change no bit.
pub const WITNESS_TRIES: usize = 20_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub label: String,
    pub inputs: Vec<u64>,
    pub expected: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct FunctionCases {
    pub c_name: String,
    pub family: String,
    pub width: u32,
    pub n_in: usize,
    pub n_out: usize,
    pub is_float: bool,
    pub either_zero: bool,
    pub signature: String,
    pub cases: Vec<Case>,
    /// Mutants that change this function's tree but no bit on any input tried.
    pub no_witness: Vec<Mutant>,
}

/// The reference's result words for a function on some inputs.
pub fn reference(model: &Model, f: &Function, inputs: &[u64]) -> Result<Vec<u64>, Error> {
    let call = aether_reference::flat::lookup(&f.family, &f.shape, &f.elem).ok_or_else(|| {
        Error::Inconsistent(format!("the reference has no `{}` for {} {} ({})", f.family, f.shape, f.elem, model.c_name(f)))
    })?;
    Ok(call(inputs))
}

fn width(model: &Model, f: &Function) -> u32 {
    model.spec.types.iter().find(|t| t.name == f.elem).unwrap().bits
}

fn hex_list(words: &[u64], width: u32) -> String {
    words.iter().map(|w| if width == 32 { format!("0x{w:08x}") } else { format!("0x{w:016x}") }).collect::<Vec<_>>().join(" ")
}

/// Builds every function's cases: specials, discriminating witnesses, random.
pub fn build(model: &Model) -> Result<Vec<FunctionCases>, Error> {
    let lowered = model.lowered();
    let mut mutant_fns = Vec::new();
    for m in mutants::ALL {
        mutant_fns.push((m, m.lowered(model)?));
    }
    let mut out = Vec::new();
    for (i, f) in lowered.iter().enumerate() {
        let w = width(model, f);
        let n_in = f.input_words();
        let c_name = model.c_name(f);
        let mut rows: Vec<(String, Vec<u64>)> = Vec::new();
        let specials = rng::specials(w);

        // Special values: every word one special; one special among ordinary
        // words; for two-word inputs, every pair.
        let mut ord = SplitMix64::for_name(&c_name, 0);
        let ordinary: Vec<u64> = (0..n_in).map(|_| rng::word(&mut ord, w, rng::Mode::Narrow)).collect();
        for (k, (name, s)) in specials.iter().enumerate() {
            if n_in > 0 {
                rows.push((format!("special: every input word {name}"), vec![*s; n_in]));
                let mut v = ordinary.clone();
                v[k % n_in] = *s;
                rows.push((format!("special: word {} is {name}, the rest ordinary", k % n_in), v));
            }
        }
        // Signed zeros split by parameter: products of them are -0, which is
        // what tells an unseeded fold of products from a zero-seeded one.
        if f.params.len() > 1 {
            let slots = f.input_slots();
            for p in 0..f.params.len() {
                let v: Vec<u64> = slots.iter().map(|(q, _)| if *q == p { specials[1].1 } else { specials[0].1 }).collect();
                rows.push((format!("special: parameter {} all -0, the rest +0", f.params[p].name), v));
            }
        }
        if n_in == 2 {
            for (na, a) in &specials {
                for (nb, b) in &specials {
                    rows.push((format!("special pair: {na}, {nb}"), vec![*a, *b]));
                }
            }
        }
        if n_in == 0 {
            rows.push(("no input".into(), Vec::new()));
        }

        // Discriminating cases: one witness per mutant that changes the tree.
        let base = mutants::canonical(f);
        let mut no_witness = Vec::new();
        for (m, fns) in &mutant_fns {
            let g = &fns[i];
            if mutants::canonical(g) == base {
                continue;
            }
            match witness(f, g, &rows, w, &c_name, *m) {
                Some(inputs) => rows.push((format!("discriminates {}: {}", m.name(), m.description()), inputs)),
                None => no_witness.push(*m),
            }
        }

        // Seeded random cases.
        for k in 0..RANDOM_CASES {
            let mut r = SplitMix64::for_name(&c_name, 1000 + k as u64);
            rows.push((format!("random #{k}"), rng::input(&mut r, w, n_in)));
        }

        // One case per distinct input; a repeated input adds its label to the
        // first case's (a special row can be a mutant's witness too).
        let mut first: std::collections::HashMap<Vec<u64>, usize> = std::collections::HashMap::new();
        let mut cases: Vec<Case> = Vec::new();
        for (label, inputs) in rows {
            if let Some(&k) = first.get(&inputs) {
                cases[k].label = format!("{}; {label}", cases[k].label);
                continue;
            }
            first.insert(inputs.clone(), cases.len());
            let expected = reference(model, f, &inputs)?;
            let ours = interp::evaluate(f, w, &inputs);
            if !policy::matches(&expected, &ours, w, !f.returns_bool(), f.either_zero) {
                return Err(Error::Inconsistent(format!(
                    "the spec's model and the reference disagree on {c_name} for inputs [{}]: reference [{}], model [{}] ({label})",
                    hex_list(&inputs, w),
                    hex_list(&expected, w),
                    hex_list(&ours, w)
                )));
            }
            cases.push(Case { label, inputs, expected });
        }
        out.push(FunctionCases {
            c_name: c_name.clone(),
            family: f.family.clone(),
            width: w,
            n_in,
            n_out: f.output_words(),
            is_float: !f.returns_bool(),
            either_zero: f.either_zero,
            signature: signature(model, f),
            cases,
            no_witness,
        });
    }
    Ok(out)
}

fn signature(model: &Model, f: &Function) -> String {
    let kind = |k: &crate::model::Kind| match k {
        crate::model::Kind::Bool => "bool".to_string(),
        crate::model::Kind::Shape(s) => model.prefix(&s.name, &f.elem),
    };
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, kind(&p.kind))).collect();
    format!("{}({}) -> {}", model.c_name(f), params.join(", "), kind(&f.ret))
}

/// The first input on which `mutant` gives other bits than `f` under the
/// comparison policy: the special rows first, then seeded random inputs.
fn witness(f: &Function, mutant: &Function, rows: &[(String, Vec<u64>)], w: u32, c_name: &str, m: Mutant) -> Option<Vec<u64>> {
    let differs = |inputs: &[u64]| {
        let a = interp::evaluate(f, w, inputs);
        let b = interp::evaluate(mutant, w, inputs);
        !policy::matches(&a, &b, w, !f.returns_bool(), f.either_zero)
    };
    if let Some((_, v)) = rows.iter().find(|(_, v)| differs(v)) {
        // Prefer a witness of its own, so the case says what it is for; fall
        // back to the special row if random inputs never differ.
        let mut r = SplitMix64::for_name(c_name, 0x5eed_0000 + m as u64);
        for _ in 0..WITNESS_TRIES {
            let v2 = rng::input(&mut r, w, f.input_words());
            if differs(&v2) {
                return Some(v2);
            }
        }
        return Some(v.clone());
    }
    let mut r = SplitMix64::for_name(c_name, 0x5eed_0000 + m as u64);
    (0..WITNESS_TRIES).map(|_| rng::input(&mut r, w, f.input_words())).find(|v| differs(v))
}

// ------------------------------------------------------------------ writing

/// The corpus part name of a family and element type, e.g. `dot_f32`.
pub fn part_name(family: &str, elem: &str) -> String {
    format!("{family}_{elem}")
}

fn word_literal(w: u64, width: u32) -> String {
    if width == 32 {
        format!("0x{w:08x}u")
    } else {
        format!("0x{w:016x}ull")
    }
}

/// Wraps a body in the part's fences. The md5 is taken over the body: every
/// byte after the first line's newline up to the first byte of the last line,
/// so `sed '1d;$d' part | md5sum` reproduces it.
pub fn fence(name: &str, body: &str) -> String {
    let digest = format!("{:x}", md5::compute(body.as_bytes()));
    format!("/* aether-corpus-part: {name} md5: {digest} */\n{body}/* aether-corpus-part-end: {name} md5: {digest} */\n")
}

/// The text of one part.
pub fn render_part(name: &str, banner: &str, fns: &[&FunctionCases]) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "{banner}");
    let _ = writeln!(b, "/* Corpus part {name}. Each row: the input words, a `=>` comment, then the expected result");
    let _ = writeln!(b, "   words, all IEEE bit patterns; a truth-valued result is one word, 0 or 1. */");
    for f in fns {
        let ty = if f.width == 32 { "uint32_t" } else { "uint64_t" };
        let _ = writeln!(b);
        let _ = writeln!(b, "/* {}: {} input word(s), {} result word(s), {} cases */", f.signature, f.n_in, f.n_out, f.cases.len());
        if !f.no_witness.is_empty() {
            let names: Vec<&str> = f.no_witness.iter().map(|m| m.name()).collect();
            let _ = writeln!(b, "/* mutants that change the tree but no bit on {} tried inputs: {} */", WITNESS_TRIES, names.join(", "));
        }
        let _ = writeln!(
            b,
            "static const {ty} aether_corpus_{}[{}][{}] = {{",
            f.c_name.trim_start_matches("aether_"),
            f.cases.len(),
            f.n_in + f.n_out
        );
        for c in &f.cases {
            let ins: Vec<String> = c.inputs.iter().map(|w| word_literal(*w, f.width)).collect();
            let outs: Vec<String> = c.expected.iter().map(|w| word_literal(*w, f.width)).collect();
            let _ = writeln!(b, "    /* {} */", c.label);
            if ins.is_empty() {
                let _ = writeln!(b, "    {{ /* => */ {} }},", outs.join(", "));
            } else {
                let _ = writeln!(b, "    {{ {}, /* => */ {} }},", ins.join(", "), outs.join(", "));
            }
        }
        let _ = writeln!(b, "}};");
    }
    fence(name, &b)
}

/// Every part, keyed by part name, in spec order.
pub fn parts(model: &Model) -> Vec<(String, Vec<usize>)> {
    let mut order: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, f) in model.functions.iter().enumerate() {
        let name = part_name(&f.family, &f.elem);
        match order.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(i),
            None => order.push((name, vec![i])),
        }
    }
    order
}

// ------------------------------------------------------------------ reading

/// One function's rows as read back from a part.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFunction {
    pub c_name: String,
    pub n_in: usize,
    pub n_out: usize,
    pub cases: Vec<Case>,
}

/// Checks a part's fences and md5 and reads its rows. Errors name the part.
pub fn parse_part(file_name: &str, text: &str) -> Result<Vec<ParsedFunction>, String> {
    let first_nl = text.find('\n').ok_or_else(|| format!("{file_name}: no first line"))?;
    let first = &text[..first_nl];
    let trimmed = text.strip_suffix('\n').ok_or_else(|| format!("{file_name}: does not end with a newline"))?;
    let last_start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    if last_start <= first_nl {
        return Err(format!("{file_name}: no end fence"));
    }
    let last = &trimmed[last_start..];
    let body = &text[first_nl + 1..last_start];
    let parse_fence = |line: &str, tag: &str| -> Option<(String, String)> {
        let rest = line.strip_prefix(&format!("/* {tag}: "))?.strip_suffix(" */")?;
        let (name, digest) = rest.split_once(" md5: ")?;
        Some((name.to_string(), digest.to_string()))
    };
    let (name1, md1) = parse_fence(first, "aether-corpus-part").ok_or_else(|| format!("{file_name}: malformed first fence line"))?;
    let (name2, md2) = parse_fence(last, "aether-corpus-part-end").ok_or_else(|| format!("{file_name}: malformed last fence line"))?;
    if name1 != name2 || md1 != md2 {
        return Err(format!("{file_name}: part {name1}: the fences disagree ({name1} {md1} / {name2} {md2})"));
    }
    if file_name != format!("{name1}.h") {
        return Err(format!("{file_name}: part {name1}: the fence names another part"));
    }
    let digest = format!("{:x}", md5::compute(body.as_bytes()));
    if digest != md1 {
        return Err(format!("{file_name}: part {name1}: md5 of the body is {digest}, the fence says {md1}"));
    }
    let mut out: Vec<ParsedFunction> = Vec::new();
    let mut label = String::new();
    for line in body.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("static const ") {
            // static const uint32_t aether_corpus_vec3f_dot[N][W] = {
            let name = rest.split_whitespace().nth(1).and_then(|s| s.split('[').next()).unwrap_or_default();
            let dims: Vec<usize> = rest.split('[').skip(1).filter_map(|d| d.split(']').next()?.parse().ok()).collect();
            if dims.len() != 2 {
                return Err(format!("{file_name}: part {name1}: malformed array line `{t}`"));
            }
            out.push(ParsedFunction {
                c_name: format!("aether_{}", name.trim_start_matches("aether_corpus_")),
                n_in: 0,
                n_out: 0,
                cases: Vec::with_capacity(dims[0]),
            });
            let f = out.last_mut().unwrap();
            f.n_in = dims[1];
        } else if let Some(l) = t.strip_prefix("/* ").and_then(|s| s.strip_suffix(" */")) {
            label = l.to_string();
        } else if t.starts_with('{') {
            let f = out.last_mut().ok_or_else(|| format!("{file_name}: part {name1}: a row before any array"))?;
            let inner = t.trim_start_matches('{').trim_end_matches(',').trim_end_matches('}');
            let (ins, outs) = inner.split_once("/* => */").ok_or_else(|| format!("{file_name}: part {name1}: row without `/* => */`"))?;
            let words = |s: &str| -> Result<Vec<u64>, String> {
                s.split(',')
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| {
                        let h = x.trim_start_matches("0x").trim_end_matches("ull").trim_end_matches('u');
                        u64::from_str_radix(h, 16).map_err(|_| format!("{file_name}: part {name1}: bad word `{x}`"))
                    })
                    .collect()
            };
            let (ins, outs) = (words(ins)?, words(outs)?);
            f.cases.push(Case { label: label.clone(), inputs: ins, expected: outs });
        }
    }
    for f in &mut out {
        let width = f.n_in;
        let first = f.cases.first().ok_or_else(|| format!("{file_name}: part {name1}: {} has no case", f.c_name))?;
        f.n_out = first.expected.len();
        f.n_in = first.inputs.len();
        if f.n_in + f.n_out != width || f.cases.iter().any(|c| c.inputs.len() != f.n_in || c.expected.len() != f.n_out) {
            return Err(format!("{file_name}: part {name1}: {} has rows of the wrong width", f.c_name));
        }
    }
    Ok(out)
}

/// The umbrella header: includes every part and lists every function's table.
pub fn render_umbrella(banner: &str, version: &str, parts: &[String], all: &[FunctionCases]) -> String {
    let mut b = String::new();
    let _ = writeln!(b, "{banner}");
    let _ = writeln!(b, "#ifndef AETHER_C_CORPUS_H\n#define AETHER_C_CORPUS_H\n");
    let _ = writeln!(b, "#include <stdint.h>\n");
    let _ = writeln!(b, "#define AETHER_CORPUS_CONTRACT_VERSION \"{version}\"\n");
    for p in parts {
        let _ = writeln!(b, "#include \"{p}.h\"");
    }
    let _ = writeln!(b);
    let _ = writeln!(b, "/* One entry per function: rows of n_in input words then n_out result words, each word");
    let _ = writeln!(b, "   elem_bits wide. Compare with the spec's policy: bytes equal, or both NaN, or (either_zero)");
    let _ = writeln!(b, "   +0 against -0. A result with is_float 0 is a truth value, compared as bytes. */");
    let _ = writeln!(b, "typedef struct aether_corpus_function {{\n    const char *name;\n    const char *part;\n    unsigned elem_bits;\n    unsigned n_in;\n    unsigned n_out;\n    unsigned n_cases;\n    const void *rows;\n    int is_float;\n    int either_zero;\n}} aether_corpus_function;\n");
    let _ = writeln!(b, "static const aether_corpus_function aether_corpus_functions[] = {{");
    for f in all {
        let _ = writeln!(
            b,
            "    {{ \"{}\", \"{}\", {}, {}, {}, {}, aether_corpus_{}, {}, {} }},",
            f.c_name,
            part_name(&f.family, if f.width == 32 { "f32" } else { "f64" }),
            f.width,
            f.n_in,
            f.n_out,
            f.cases.len(),
            f.c_name.trim_start_matches("aether_"),
            i32::from(f.is_float),
            i32::from(f.either_zero)
        );
    }
    let _ = writeln!(b, "}};\n");
    let _ = writeln!(b, "#define AETHER_CORPUS_FUNCTION_COUNT {}\n", all.len());
    let _ = writeln!(b, "#endif /* AETHER_C_CORPUS_H */");
    b
}

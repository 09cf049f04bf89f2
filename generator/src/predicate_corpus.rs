//! The predicates' corpus and the proof the generator runs before it writes
//! anything: on every corpus case and on seeded random inputs of every
//! class, the spec's two forms (evaluated by `Predicates::eval`) and the
//! hand-written reference (`aether_reference::angle`) give one answer.

use std::fmt::Write;

use aether_reference::angle;

use crate::corpus::{fence, Case};
use crate::error::Error;
use crate::model::Model;
use crate::predicate::{Form, PTy, Predicate, Predicates, Value};
use crate::rng::SplitMix64;

/// Random inputs per class the generator checks before writing.
pub const CHECK_PER_CLASS: usize = 4000;

/// The corpus of one predicate: input words (each parameter as the 64-bit
/// two's complement pattern of its value) and the answer, 0 or 1.
#[derive(Debug, Clone)]
pub struct PredicateCases {
    pub name: String,
    pub c_name: String,
    pub signature: String,
    pub cases: Vec<Case>,
}

/// The hand-written reference of a predicate of the spec, over its
/// arguments as i64.
pub fn reference(name: &str) -> Option<fn(&[i64]) -> bool> {
    match name {
        "angle_flag" => Some(|a| angle::golden(a[0], a[1], a[2])),
        "angle_flag_bands" => Some(|a| {
            let (dp, om, tm) = angle::from_bands(a[0] as i32, a[1] as i32, a[2] as i32, a[3] as i32);
            angle::golden(dp, om, tm)
        }),
        _ => None,
    }
}

/// Where the hand-written reference is defined, per parameter `[lo, hi]`
/// (`aether_reference::angle::DOMAIN` and `BAND_DOMAIN`, which it asserts in
/// debug builds): the spec's domain must lie inside, since the reference is
/// the judge of every input in it.
fn reference_box(name: &str) -> Vec<(i128, i128)> {
    let wide = |(lo, hi): (i64, i64)| (i128::from(lo), i128::from(hi));
    match name {
        "angle_flag" => angle::DOMAIN.iter().map(|d| wide(*d)).collect(),
        "angle_flag_bands" => vec![wide((i64::from(angle::BAND_DOMAIN.0), i64::from(angle::BAND_DOMAIN.1))); 4],
        _ => Vec::new(),
    }
}

/// Classes of inputs of a predicate, by name: (class, inputs).
pub fn classes(name: &str, seed: u64, n: usize) -> Vec<(&'static str, Vec<Vec<i64>>)> {
    let triples = |v: Vec<(i64, i64, i64)>| v.into_iter().map(|(a, b, c)| vec![a, b, c]).collect::<Vec<_>>();
    match name {
        "angle_flag" => vec![
            ("near-parallel int16", triples(angle::near_parallel_int16(seed, n))),
            ("int32 bands", triples(angle::full_int32(seed ^ 1, n))),
            ("within one ulp", triples(angle::near_tie(seed ^ 2, n))),
            ("random int64", triples(angle::random_int64(seed ^ 3, n))),
        ],
        "angle_flag_bands" => vec![("int16 bands", quads(seed, n, 32767)), ("int32 bands", quads(seed ^ 1, n, i64::from(i32::MAX)))],
        _ => Vec::new(),
    }
}

/// Band quadruples with components in [-bound, bound]: half of them a vector
/// and its rotation by about one degree (the boundary), half uniform.
fn quads(seed: u64, n: usize, bound: i64) -> Vec<Vec<i64>> {
    let mut rng = SplitMix64::new(seed);
    let uniform = |rng: &mut SplitMix64| (rng.below(2 * bound as u64 + 1) as i64) - bound;
    (0..n)
        .map(|k| {
            let (oh, ov) = (uniform(&mut rng), uniform(&mut rng));
            if k % 2 == 0 {
                let deg = (0.95 + 0.1 * (rng.below(1 << 20) as f64 / f64::from(1 << 20))).to_radians();
                let (s, c) = deg.sin_cos();
                let clamp = |x: f64| (x.round() as i64).clamp(-bound, bound);
                vec![oh, ov, clamp(oh as f64 * c - ov as f64 * s), clamp(oh as f64 * s + ov as f64 * c)]
            } else {
                vec![oh, ov, uniform(&mut rng), uniform(&mut rng)]
            }
        })
        .collect()
}

/// One class of the proof by sweep: its inputs, flat (`arity` words a case).
#[derive(Debug)]
pub struct SweepClass {
    pub predicate: &'static str,
    pub class: String,
    pub arity: usize,
    pub count: usize,
    source: Source,
}

#[derive(Debug)]
enum Source {
    List(Vec<i64>),
    /// `angle::exhaustive_reduced()`, made as it is read (18.9 million cases).
    Reduced,
}

impl SweepClass {
    fn list(predicate: &'static str, class: &str, cases: Vec<Vec<i64>>) -> SweepClass {
        let arity = cases.first().map_or(0, Vec::len);
        SweepClass { predicate, class: class.to_string(), arity, count: cases.len(), source: Source::List(cases.concat()) }
    }

    /// The cases in chunks of at most `size`, flat.
    pub fn chunks(&self, size: usize) -> Box<dyn Iterator<Item = Vec<i64>> + '_> {
        match &self.source {
            Source::List(words) => Box::new(words.chunks(size * self.arity).map(<[i64]>::to_vec)),
            Source::Reduced => {
                let mut it = angle::exhaustive_reduced();
                Box::new(std::iter::from_fn(move || {
                    let chunk: Vec<i64> = it.by_ref().take(size).flat_map(|(a, b, c)| [a, b, c]).collect();
                    (!chunk.is_empty()).then_some(chunk)
                }))
            }
        }
    }
}

/// The proof by sweep, the same on every target: for angle_flag
/// max(3*10^6, `random`) near-parallel int16 band quadruples, `random` int32
/// band ones, max(10^4, `random` / 100) inputs within one ulp of the
/// comparison, `random` int64 triples of every bit length, and every
/// reduced-domain exponent combination (18,890,525); for angle_flag_bands
/// `random` int16 and int32 band quadruples. Seeds fixed: every target sees
/// the same inputs.
pub fn sweep(random: usize) -> Vec<SweepClass> {
    let t = |v: Vec<(i64, i64, i64)>| v.into_iter().map(|(a, b, c)| vec![a, b, c]).collect::<Vec<_>>();
    let mut out = vec![
        SweepClass::list("angle_flag", "near-parallel int16 bands", t(angle::near_parallel_int16(1, random.max(3_000_000)))),
        SweepClass::list("angle_flag", "int32 bands", t(angle::full_int32(2, random))),
        SweepClass::list("angle_flag", "within one ulp", t(angle::near_tie(3, (random / 100).max(10_000)))),
        SweepClass::list("angle_flag", "random int64", t(angle::random_int64(4, random))),
        SweepClass {
            predicate: "angle_flag",
            class: "every exponent combination (reduced domain)".into(),
            arity: 3,
            count: angle::exhaustive_reduced().count(),
            source: Source::Reduced,
        },
    ];
    for (class, inputs) in classes("angle_flag_bands", 7, random) {
        out.push(SweepClass::list("angle_flag_bands", class, inputs));
    }
    out
}

fn values(p: &Predicate, args: &[i64]) -> Vec<Value> {
    p.params
        .iter()
        .zip(args)
        .map(|(q, a)| match q.ty {
            PTy::Int(t) => Value::Int(t, i128::from(*a)),
            other => unreachable!("predicate parameters are integers here, not {other}"),
        })
        .collect()
}

/// Both forms and the reference on one input: the answer, or what disagrees, located at the
/// form that disagrees (its body's line and key; the predicate's table where both do, or where
/// the evaluation itself fails), with the input by parameter name.
fn judge(file: &str, preds: &Predicates, p: &Predicate, r: fn(&[i64]) -> bool, args: &[i64]) -> Result<Option<bool>, String> {
    let v = values(p, args);
    let input: Vec<String> = p.params.iter().zip(args).map(|(q, a)| format!("{} = {a}", q.name)).collect();
    let input = input.join(", ");
    let table = format!("{file}:{}: `predicates.{}`", p.line, p.name);
    // An evaluation that fails is located at its innermost step (a helper's
    // where a helper's arithmetic fails), the domain's at the domain.
    let located = |e: crate::predicate::EvalError| format!("{file}:{}: `{}`: on {input}: {}", e.line, e.key, e.message);
    let evaluated = |form: Form| preds.eval(p, form, &v).map_err(located);
    let domain = |e: crate::predicate::EvalError| {
        format!("{file}:{}: `predicates.{}.domain`: on {input}: {}", p.domain_line.unwrap_or(p.line), p.name, e.message)
    };
    if !preds.in_domain(p, &v).map_err(domain)? {
        return Ok(None);
    }
    let golden = evaluated(Form::Golden)?;
    let integer = evaluated(Form::Integer)?;
    let want = r(args);
    if golden == want && integer == want {
        return Ok(Some(want));
    }
    let at = match (golden == want, &p.forms) {
        (false, crate::predicate::Forms::Two { .. }) if integer == want => {
            format!("{file}:{}: `predicates.{}.golden`", p.body(Form::Golden).line, p.name)
        }
        (true, crate::predicate::Forms::Two { .. }) => format!("{file}:{}: `predicates.{}.integer`", p.body(Form::Integer).line, p.name),
        _ => table,
    };
    Err(format!("{at}: on {input} the hand-written reference says {want}, the golden form {golden}, the integer form {integer}"))
}

/// The self-test's witnesses of a predicate: named inputs with their golden
/// answer (the reference's `angle::WITNESSES`; `build` checks both forms on
/// them, as on every corpus case, before anything is written).
pub fn witnesses(name: &str) -> Vec<(Vec<i64>, bool)> {
    match name {
        "angle_flag" => angle::WITNESSES.iter().map(|w| (vec![w.0, w.1, w.2], w.3)).collect(),
        _ => Vec::new(),
    }
}

fn corpus_inputs(p: &Predicate) -> Vec<(String, Vec<i64>)> {
    let mut out = Vec::new();
    if p.name == "angle_flag" {
        for (k, w) in angle::WITNESSES.iter().enumerate() {
            out.push((format!("witness {k}"), vec![w.0, w.1, w.2]));
        }
        let ends = [0, 1, -1, i64::MAX, -i64::MAX, i64::MIN, 1 << 24, (1 << 24) + 1, (1 << 25) + 1, (1 << 25) + 3];
        for dp in ends {
            for (om, tm) in [(0, 0), (0, 1), (1, 0), (1, 1), (i64::MAX, i64::MAX), ((1 << 25) + 1, (1 << 25) + 3)] {
                out.push(("edge".to_string(), vec![dp, om, tm]));
            }
        }
    } else if p.name == "angle_flag_bands" {
        let m = i64::from(i32::MAX);
        for q in [[0, 0, 0, 0], [1, 0, 1, 0], [1, 0, -1, 0], [m, m, m, m], [-m, -m, -m, -m], [m, -m, m, -m], [m, 0, m, 1], [0, m, -1, m]] {
            out.push(("edge".to_string(), q.to_vec()));
        }
    }
    for (class, inputs) in classes(&p.name, 0x5eed_0001, 24) {
        for a in inputs {
            out.push((format!("random {class}"), a));
        }
    }
    out
}

/// The inputs at the edges of a predicate's domain: per parameter its
/// bounds, the two whole numbers inside each, and 0, 1, 2, 2^24, 2^24 + 1,
/// 2^31 - 1 where inside (binary32's and i32's edges), crossed; at most
/// `EDGE_CAP` of them, the crossing thinned evenly.
pub fn domain_edges(preds: &Predicates, p: &Predicate) -> Result<Vec<Vec<i64>>, String> {
    let bounds = preds.domain_box(p)?;
    for ((q, &(lo, hi)), &(rlo, rhi)) in p.params.iter().zip(&bounds).zip(&reference_box(&p.name)) {
        if lo < rlo || hi > rhi {
            let (at, end) = if lo < rlo { (lo, format!("{} >= {rlo}", q.name)) } else { (hi, format!("{} <= {rhi}", q.name)) };
            return Err(format!(
                "the domain reaches {} = {at}, where the hand-written reference (aether_reference::angle) is not defined: it needs {end}",
                q.name
            ));
        }
    }
    let mut axes: Vec<Vec<i64>> = Vec::new();
    for &(lo, hi) in &bounds {
        let (lo, hi) = (lo.max(i128::from(i64::MIN)), hi.min(i128::from(i64::MAX)));
        let mut v: Vec<i128> = [lo, lo + 1, lo + 2, hi - 2, hi - 1, hi, 0, 1, 2, 1 << 24, (1 << 24) + 1, (1 << 31) - 1]
            .into_iter()
            .filter(|x| (lo..=hi).contains(x))
            .collect();
        v.sort_unstable();
        v.dedup();
        axes.push(v.into_iter().map(|x| x as i64).collect());
    }
    let total: usize = axes.iter().map(Vec::len).product();
    let step = total.div_ceil(EDGE_CAP).max(1);
    let mut out = Vec::new();
    for k in (0..total).step_by(step) {
        let mut rest = k;
        out.push(
            axes.iter()
                .map(|a| {
                    let x = a[rest % a.len()];
                    rest /= a.len();
                    x
                })
                .collect(),
        );
    }
    Ok(out)
}

/// The most edge inputs of one predicate (angle_flag has 10 x 11 x 11).
pub const EDGE_CAP: usize = 4096;

/// The proof of one predicate before anything is written: both forms and the
/// reference agree on `CHECK_PER_CLASS` seeded inputs of each class and, with
/// `edges`, on every input at the domain's edges (`domain_edges`), where a
/// widened domain shows first and random inputs almost never go.
pub fn prove(model: &Model, p: &Predicate, edges: bool) -> Result<(), Error> {
    let preds = &model.spec.predicates;
    let file = &model.spec.file;
    let Some(r) = reference(&p.name) else { return Ok(()) };
    if edges {
        let at = format!("{file}:{}: `predicates.{}.domain`", p.domain_line.unwrap_or(p.line), p.name);
        let inputs = domain_edges(preds, p).map_err(|m| Error::Inconsistent(format!("{at}: {m}")))?;
        for a in &inputs {
            let edge = |m: String| {
                Error::Inconsistent(format!("{m} (an input at the edges of the domain, line {})", p.domain_line.unwrap_or(p.line)))
            };
            judge(file, preds, p, r, a).map_err(edge)?;
        }
    }
    for (_, inputs) in classes(&p.name, 0xa7e1_0000 ^ p.line as u64, CHECK_PER_CLASS) {
        for a in &inputs {
            judge(file, preds, p, r, a).map_err(Error::Inconsistent)?;
        }
    }
    Ok(())
}

/// Checks every predicate and builds its corpus; refuses a spec whose forms
/// disagree with each other or with the reference, naming the input.
pub fn build(model: &Model) -> Result<Vec<PredicateCases>, Error> {
    build_with(model, true)
}

/// [`build`] with the proof at the domain's edges on or off (off only to
/// show, in a test, what the edges catch that nothing else does).
pub fn build_with(model: &Model, edges: bool) -> Result<Vec<PredicateCases>, Error> {
    let preds = &model.spec.predicates;
    let mut out = Vec::new();
    for p in &preds.predicates {
        let Some(r) = reference(&p.name) else {
            return Err(Error::Inconsistent(format!(
                "{}:{}: predicate {} has no hand-written reference (aether_reference::angle)",
                model.spec.file, p.line, p.name
            )));
        };
        prove(model, p, edges)?;
        let mut cases = Vec::new();
        for (label, a) in corpus_inputs(p) {
            if let Some(answer) = judge(&model.spec.file, preds, p, r, &a).map_err(Error::Inconsistent)? {
                cases.push(Case { label, inputs: a.iter().map(|x| *x as u64).collect(), expected: vec![u64::from(answer)] });
            }
        }
        let params: Vec<String> = p.params.iter().map(|q| format!("{} {}", q.ty, q.name)).collect();
        out.push(PredicateCases {
            name: p.name.clone(),
            c_name: format!("aether_predicate_{}", p.name),
            signature: format!("bool {}({})", p.name, params.join(", ")),
            cases,
        });
    }
    Ok(out)
}

/// The corpus part of a predicate: `corpus/predicate_<name>.h`.
pub fn part_name(p: &PredicateCases) -> String {
    format!("predicate_{}", p.name)
}

/// The text of a predicate's part, in the rows of every part (read back by
/// `corpus::parse_part`).
pub fn render_part(p: &PredicateCases, banner: &str) -> String {
    let name = part_name(p);
    let n_in = p.cases.first().map_or(0, |c| c.inputs.len());
    let mut b = String::new();
    let _ = writeln!(b, "{banner}");
    let _ = writeln!(b, "/* Corpus part {name}. Each row: the arguments, each as the 64-bit two's complement pattern of");
    let _ = writeln!(b, "   its integer value, a `=>` comment, then the answer of both forms, 0 or 1. */");
    let _ = writeln!(b);
    let _ = writeln!(b, "/* {}: {n_in} input word(s), 1 result word, {} cases */", p.signature, p.cases.len());
    let _ =
        writeln!(b, "static const uint64_t aether_corpus_{}[{}][{}] = {{", p.c_name.trim_start_matches("aether_"), p.cases.len(), n_in + 1);
    for c in &p.cases {
        let ins: Vec<String> = c.inputs.iter().map(|w| format!("0x{w:016x}ull")).collect();
        let _ = writeln!(b, "    /* {} */", c.label);
        let _ = writeln!(b, "    {{ {}, /* => */ 0x{:016x}ull }},", ins.join(", "), c.expected[0]);
    }
    let _ = writeln!(b, "}};");
    fence(&name, &b)
}

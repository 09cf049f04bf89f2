//! A fast path through the generator, for fuzzing the spec text
//! (`fuzz/fuzz_targets/spec.rs`) and for compiling cores generated from
//! mutants of the spec (`generator/tests/spec_mutants_compile.rs`).
//!
//! Full generation (`output::generate`) builds the reference corpus first:
//! it evaluates the model, the reference and every rule mutant on thousands
//! of inputs per function to find discriminating witnesses (about 12 s). The
//! targets take the corpus only for their self-test's witnesses, so they
//! render without it. Two fast paths:
//!
//! * [`render_without_corpus`]: parse and validate the text, build the model,
//!   render every target of `targets::registry()` with an empty corpus (the
//!   self-tests then replay no witness vector; the fingerprint, the subnormal
//!   probes and everything else are rendered as usual), and the contract doc.
//!   It never calls the Rust reference.
//! * [`render_with_probe_corpus`]: the same, with a minimal corpus instead of
//!   an empty one: the spec's own named probes of every callable (and an
//!   all-+0 input for a fixed-size function without probes), each evaluated
//!   by the Rust reference and by the model and compared as the corpus
//!   compares them; every rule mutant's model is built as well. Each
//!   callable's first case is also labelled as a stand-in witness of every
//!   mutant, so the self-test's witness code is rendered; those stand-ins
//!   discriminate nothing (only the full corpus searches real witnesses),
//!   which is why this corpus is for fuzzing and compile checks only and is
//!   never written. The corpus parts, the umbrella header and the contract
//!   doc are rendered from it, in the order `output::generate` uses.
//!
//! What neither path covers: the witness search of `corpus::build` (the
//! mutants evaluated on random inputs), the random and special-value rows,
//! and `output::check` / `output::write`.

use crate::api_doc;
use crate::contract_doc;
use crate::corpus::{self, Case, FunctionCases};
use crate::error::Error;
use crate::kernel;
use crate::model::Model;
use crate::mutants;
use crate::output;
use crate::policy;
use crate::spec;
use crate::targets::{self, Output};

/// The file name errors give for the fuzzed text.
pub const FILE: &str = crate::SPEC_PATH;

/// Parses and validates `text`, builds the model, and renders every target
/// with an empty corpus, then the contract doc.
pub fn render_without_corpus(text: &str) -> Result<Vec<Output>, Error> {
    let model = build(text)?;
    render_targets(&model, &[])
}

/// Parses and validates `text`, builds the model and every mutant's model,
/// evaluates the spec's probes on the reference and the model, and renders
/// every target, the corpus files and the contract doc from that minimal
/// corpus.
pub fn render_with_probe_corpus(text: &str) -> Result<Vec<Output>, Error> {
    render_model_with_probe_corpus(&build(text)?)
}

/// [`render_with_probe_corpus`] of a model already built.
pub fn render_model_with_probe_corpus(model: &Model) -> Result<Vec<Output>, Error> {
    for m in mutants::ALL {
        m.build(model)?;
    }
    let all = probe_corpus(model)?;
    let mut out = render_targets(model, &all)?;
    // The docs came last from render_targets; the corpus files go before
    // them, as in output::generate.
    let docs = out.split_off(out.iter().position(|o| o.path.starts_with("docs/")).unwrap_or(out.len()));
    let banner = output::banner(model);
    let mut names = Vec::new();
    for (name, idx) in corpus::parts(model) {
        let fns: Vec<&FunctionCases> = idx.iter().map(|i| &all[*i]).collect();
        out.push(Output::new(format!("corpus/{name}.h"), corpus::render_part(&name, &banner, &fns)));
        names.push(name);
    }
    out.push(Output::new(
        "corpus/aether_c_corpus.h",
        corpus::render_umbrella(&banner, &model.spec.version, &crate::selftest::contract_id(model), &names, &all),
    ));
    out.extend(docs);
    Ok(out)
}

/// Parse, validation and the model.
pub fn build(text: &str) -> Result<Model, Error> {
    let spec = spec::parse(FILE, text)?;
    Ok(crate::model(&spec)?)
}

/// Every target's files with the given corpus, then the contract doc and
/// the API reference.
pub fn render_targets(model: &Model, corpus: &[FunctionCases]) -> Result<Vec<Output>, Error> {
    let banner = output::banner(model);
    let mut out = Vec::new();
    for t in targets::registry() {
        out.extend(t.render(model, &banner, corpus)?);
    }
    out.push(Output::new("docs/numerics-contract.md", contract_doc::render(model)?));
    out.push(Output::new("docs/api.md", api_doc::render(model, &out)?));
    Ok(out)
}

fn bits_of(model: &Model, elem: &str) -> Result<u32, Error> {
    model.spec.types.iter().find(|t| t.name == elem).map(|t| t.bits).ok_or_else(|| Error::Inconsistent(format!("no element type `{elem}`")))
}

/// The minimal corpus: every callable's probes (see the module doc).
pub fn probe_corpus(model: &Model) -> Result<Vec<FunctionCases>, Error> {
    let lowered = model.lowered();
    let mut all = Vec::new();
    for (i, c) in model.callables().into_iter().enumerate() {
        let w = bits_of(model, c.elem())?;
        let c_name = c.c_name(model);
        let mut rows = corpus::probe_rows(model, c, w)?;
        if rows.is_empty() {
            if let Some((n_in, _)) = c.fixed_words() {
                rows.push(("every input word +0".into(), vec![0; n_in]));
            }
        }
        let mut cases = Vec::new();
        for (k, (label, inputs)) in rows.into_iter().enumerate() {
            let expected = corpus::reference(model, c, &inputs)?;
            let ours = kernel::evaluate_callable(model, &lowered, i, &inputs).map_err(Error::Inconsistent)?;
            if !policy::matches(&expected, &ours, w, c.is_float(), c.either_zero()) {
                return Err(Error::Inconsistent(format!(
                    "the spec's model and the reference disagree on {c_name} ({label}): reference {expected:x?}, model {ours:x?}"
                )));
            }
            let label = if k == 0 {
                let stand_in: Vec<String> = mutants::ALL.iter().map(|m| format!("discriminates {}:", m.name())).collect();
                format!("{label}; fuzzing stand-in witness, discriminates nothing: {}", stand_in.join(" "))
            } else {
                label
            };
            cases.push(Case { label, inputs, expected });
        }
        let (n_in, n_out) = c.fixed_words().unwrap_or((0, 0));
        all.push(FunctionCases {
            c_name: c_name.clone(),
            family: c.family().to_string(),
            width: w,
            n_in,
            n_out,
            records: c.fixed_words().is_none(),
            is_float: c.is_float(),
            either_zero: c.either_zero(),
            signature: c_name,
            cases,
            no_witness: Vec::new(),
        });
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_text() -> String {
        std::fs::read_to_string(crate::default_root().join(crate::SPEC_PATH)).unwrap()
    }

    #[test]
    fn the_real_spec_renders_on_both_fast_paths() {
        let text = spec_text();
        let empty = render_without_corpus(&text).unwrap();
        let probes = render_with_probe_corpus(&text).unwrap();
        for path in ["c_core/aether_core.h", "c_core/aether_core.c", "c_core/check/aether_flat.c", "cuda_core/aether_core.cuh"] {
            assert!(empty.iter().any(|o| o.path == path), "{path} without a corpus");
            assert!(probes.iter().any(|o| o.path == path), "{path} with the probe corpus");
        }
        assert!(probes.iter().any(|o| o.path == "corpus/aether_c_corpus.h"));
        let docs: Vec<&str> = probes.iter().rev().take(2).rev().map(|o| o.path.as_str()).collect();
        assert_eq!(docs, ["docs/numerics-contract.md", "docs/api.md"]);
    }

    #[test]
    fn a_refused_spec_is_an_error() {
        assert!(matches!(render_without_corpus("not = [toml"), Err(Error::Spec(_))));
    }
}

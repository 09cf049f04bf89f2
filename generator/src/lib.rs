//! The aether generator: reads the one spec, builds a target-neutral model of
//! every function (expression trees with folds ordered by the spec's rule),
//! and writes the language cores, the reference corpus and their checks.

pub mod api_doc;
pub mod bands;
pub mod constants;
pub mod contract_doc;
pub mod corpus;
pub mod df64;
pub mod df64_spec;
pub mod dsl;
pub mod error;
pub mod fuzzing;
pub mod interp;
pub mod kernel;
pub mod linalg;
pub mod model;
pub mod mutants;
pub mod names;
pub mod output;
pub mod packages;
pub mod policy;
pub mod predicate;
pub mod predicate_corpus;
pub mod rng;
pub mod selftest;
pub mod spans;
pub mod spec;
pub mod targets;

pub use error::{Error, SpecError, SpecErrors};
pub use model::Model;

/// Where the spec lives, relative to the repository root.
pub const SPEC_PATH: &str = "spec/aether.toml";

/// The repository root this crate was built in.
pub fn default_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Reads and builds the model of the spec under `root`.
pub fn load(root: &std::path::Path) -> Result<Model, Error> {
    let path = root.join(SPEC_PATH);
    let bytes = std::fs::read(&path).map_err(|source| Error::Io { path: SPEC_PATH.into(), source })?;
    let spec = spec::parse_bytes(SPEC_PATH, &bytes)?;
    Ok(model(&spec)?)
}

/// The model of a spec that every target can print: `Model::build`, then
/// the checks that evaluate it (`Model::check_probes`, in `kernel`), the
/// spec's per-target tables against the targets' facts
/// (`targets::check_facts`) and each target's own checks
/// (`Target::validate`). These check one built model independently: every
/// error of each is reported.
pub fn model(spec: &spec::Spec) -> Result<Model, SpecErrors> {
    let m = Model::build(spec)?;
    // `[constants]`, after the checks of types and families above.
    crate::constants::check(&m.spec).map_err(|e| SpecErrors::new(vec![e]).expect("one error"))?;
    let mut errors = m.check_probes();
    errors.extend(targets::check_facts(&m).err());
    errors.extend(targets::registry().iter().filter_map(|t| t.validate(&m).err()));
    SpecErrors::check(errors)?;
    Ok(m)
}

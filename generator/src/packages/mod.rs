//! Packages: the routes from the generated cores to their users (the web
//! package for WebGPU and WebGL2 pages, the Python package for numpy). A
//! package is a hand-written folder with one generated subfolder, which the
//! generator owns whole (`--check` names any other file in it as an orphan);
//! what it generates is made from the model and from the cores' own outputs,
//! so no package carries a second copy of a core that could drift.

use crate::error::Error;
use crate::model::Model;
use crate::targets::Output;

pub mod python;
pub mod web;

/// The generated subfolder of every package.
pub fn owned_dirs() -> Vec<&'static str> {
    vec![web::FOLDER, python::FOLDER]
}

/// Every package's generated files; `cores` is every target's outputs.
pub fn render(model: &Model, banner: &str, cores: &[Output]) -> Result<Vec<Output>, Error> {
    let mut out = web::render(model, banner, cores)?;
    out.extend(python::render(model, banner, cores)?);
    Ok(out)
}

//! The CUDA corpus runner and its Makefile (`cuda_core/check/`).

use minijinja::context;

use crate::error::Error;
use crate::model::Model;
use crate::targets::shared::c_family::check::{hash_banner, runner};
use crate::targets::{render as render_template, Output};

const CUDA_MAKEFILE_TEMPLATE: &str = include_str!("../../../../templates/cuda/check/Makefile.j2");

/// The CUDA corpus runner and its Makefile (`cuda_core/check/`); the
/// dispatcher it calls, `cuda_core/check/aether_cuda_flat.cuh`, comes from
/// the CUDA target.
pub fn files(model: &Model, banner: &str) -> Result<Vec<Output>, Error> {
    let ctx = context! { hash_banner => hash_banner(banner) };
    Ok(vec![
        Output::new("cuda_core/check/aether_check.cu", runner(model, banner, true)?),
        Output::new("cuda_core/check/Makefile", render_template("cuda/check/Makefile.j2", CUDA_MAKEFILE_TEMPLATE, &ctx)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cuda_runner_and_its_makefile() {
        let model = crate::load(&crate::default_root()).unwrap();
        let banner = crate::output::banner(&model);
        let files = files(&model, &banner).unwrap();
        let paths: Vec<&str> = files.iter().map(|o| o.path.as_str()).collect();
        assert_eq!(paths, ["cuda_core/check/aether_check.cu", "cuda_core/check/Makefile"]);
    }
}

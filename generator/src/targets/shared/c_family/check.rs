//! The corpus runner of the C family's hosts: one template
//! (`templates/c/check/aether_check.c.j2`) for the C core's runner and the
//! CUDA core's, which runs its batches on the GPU.

use minijinja::context;

use crate::error::Error;
use crate::model::Model;
use crate::targets::render as render_template;
use crate::targets::shared::c_family::flat as c_flat;

const RUNNER_TEMPLATE: &str = include_str!("../../../../../templates/c/check/aether_check.c.j2");

/// `#`-comment form of the banner, for the Makefile and CMake files.
pub fn hash_banner(banner: &str) -> String {
    banner.trim_start_matches("/* ").trim_end_matches(" */").lines().map(|l| format!("# {}", l.trim())).collect::<Vec<_>>().join("\n")
}

/// The corpus runner of a C-family host: C99 on the C core's thunks
/// (`c_core/check/aether_check.c`), or, with `device`, the same runner with
/// its batches on a CUDA device (`cuda_core/check/aether_check.cu`). One
/// template for both.
pub fn runner(model: &Model, banner: &str, device: bool) -> Result<String, Error> {
    let ctx = context! {
        banner,
        device,
        policy => c_flat::policy_function("check_word_ok"),
        specials => c_flat::specials_tables(model, "check_special"),
    };
    render_template("c/check/aether_check.c.j2", RUNNER_TEMPLATE, &ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_runner_template_for_c_and_cuda() {
        let model = crate::load(&crate::default_root()).unwrap();
        let banner = crate::output::banner(&model);
        let c = runner(&model, &banner, false).unwrap();
        let cuda = runner(&model, &banner, true).unwrap();
        let executor =
            "static int check_run_batch(size_t index, const uint64_t *in, const size_t *in_at, const size_t *n_in, size_t count, \
                        uint64_t *out, size_t cap, size_t *n_out)";
        for text in [&c, &cuda] {
            assert!(text.contains(executor), "no batch executor");
            assert!(text.contains("static int check_word_ok(uint64_t expected"), "no policy");
            assert_eq!(text.matches("check_run_batch(").count(), 3, "one executor, called by the corpus and the random mode");
            assert!(!text.contains("e->call("), "a call outside the executor");
        }
        assert!(c.contains("#include \"aether_flat.h\"") && !c.to_lowercase().contains("cuda"));
        assert!(
            cuda.contains("#include \"aether_cuda_flat.cuh\"")
                && cuda.contains("aether_cuda_flat_call(index, in + in_at[k], n_in[k], out + k * cap, cap)")
        );
        assert!(cuda.contains("--host") && cuda.contains("--control-expected") && !c.contains("--host"));
    }
}

//! The runner for API-driven targets: runs a generated check module (WGSL
//! now) on each stack through an [`exec::Executor`], compares every result
//! with the Rust reference under the target's bands, and reports per function
//! and stack.
//!
//! * [`inputs`]: the corpus cases and the random inputs of each entry;
//! * [`exec`]: the executor trait and the dispatch plan of the binding convention;
//! * [`wgpu_stack`]: wgpu on Mesa's lavapipe;
//! * [`dawn`]: Dawn for Node on SwiftShader (`runner/dawn/run.mjs`);
//! * [`opencl_stack`]: the OpenCL C core's check program on an OpenCL device
//!   (`aether-runner opencl`; bit-identical under the policy, not banded);
//! * [`compare`]: the reference's results and the judgement of each case;
//! * [`report`]: the plain-text and Markdown tables.

pub mod compare;
pub mod dawn;
pub mod df64;
pub mod exec;
pub mod gles_stack;
pub mod glsl_draw;
pub mod inputs;
pub mod lang;
pub mod opencl_stack;
pub mod predicates;
pub mod report;
pub mod selftest;
pub mod strict;
pub mod webgl;
pub mod wgpu_stack;

use exec::{Error, Executor};

/// The WebGPU stacks (WGSL), by the names the command line takes.
pub const STACKS: [&str; 2] = ["wgpu", "dawn"];
/// The GL stacks (GLSL ES 3.00): Mesa's GLES 3 on llvmpipe, Chromium's WebGL2
/// on SwiftShader.
pub const GLSL_STACKS: [&str; 2] = ["gles", "webgl"];

/// Opens a stack by name.
pub fn open(stack: &str) -> Result<Box<dyn Executor>, Error> {
    match stack {
        "wgpu" => Ok(Box::new(wgpu_stack::Wgpu::new()?)),
        "dawn" => Ok(Box::new(dawn::Dawn::new(&dawn::default_dir())?)),
        "gles" => Ok(Box::new(gles_stack::Gles::new()?)),
        "webgl" => Ok(Box::new(webgl::WebGl::new()?)),
        other => Err(Error::Failed(format!("no stack `{other}` (stacks: {}, {})", STACKS.join(", "), GLSL_STACKS.join(", ")))),
    }
}

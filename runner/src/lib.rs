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
pub mod inputs;
pub mod opencl_stack;
pub mod predicates;
pub mod report;
pub mod selftest;
pub mod wgpu_stack;

use exec::{Error, Executor};

/// The stacks, by the names the command line takes.
pub const STACKS: [&str; 2] = ["wgpu", "dawn"];

/// Opens a stack by name.
pub fn open(stack: &str) -> Result<Box<dyn Executor>, Error> {
    match stack {
        "wgpu" => Ok(Box::new(wgpu_stack::Wgpu::new()?)),
        "dawn" => Ok(Box::new(dawn::Dawn::new(&dawn::default_dir())?)),
        other => Err(Error::Failed(format!("no stack `{other}` (stacks: {})", STACKS.join(", ")))),
    }
}

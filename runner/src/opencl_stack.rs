//! The OpenCL stack: the OpenCL C core's check program
//! (`aether_generator::targets::opencl::check_program`) on the first OpenCL
//! device (PoCL through the ICD loader), through `aether_opencl`. The
//! module's entries are the program's kernels (`ClEntry::check`); a job's
//! words go to the device as uint (f32 functions) or ulong (f64 functions
//! and the kernels), as the entry says, and come back as 64-bit words.

use aether_generator::targets::opencl::ClEntry;
use aether_generator::targets::shared::check::CheckModule;
use aether_opencl::cl::{self, Device};

use crate::exec::{self, Error, Executor, Job};

/// The words a case gets where the program's thunk refused its inputs (no
/// reference result is all ones in every word).
pub const REFUSED: u64 = u64::MAX;

/// The first OpenCL device, building every module with `options`.
#[derive(Debug)]
pub struct OpenCl {
    device: Device,
    entries: Vec<ClEntry>,
    options: String,
}

impl OpenCl {
    /// The stack for a check program's entries; `options` are the build
    /// options (the caller adds `-cl-fp32-correctly-rounded-divide-sqrt`
    /// where the device reports it: see `correctly_rounded_divide_sqrt`).
    pub fn new(entries: Vec<ClEntry>, options: &str) -> Result<OpenCl, Error> {
        let device = Device::first().map_err(Error::NotInstalled)?;
        Ok(OpenCl { device, entries, options: options.to_string() })
    }

    pub fn correctly_rounded_divide_sqrt(&self) -> bool {
        self.device.correctly_rounded_divide_sqrt()
    }

    pub fn set_options(&mut self, options: &str) {
        self.options = options.to_string();
    }

    pub fn options(&self) -> &str {
        &self.options
    }
}

impl Executor for OpenCl {
    fn stack(&self) -> &'static str {
        "opencl"
    }

    fn adapter(&self) -> String {
        format!(
            "{} ({}; {}; driver {}), built with `{}`",
            self.device.info(cl::CL_DEVICE_NAME),
            self.device.info(cl::CL_DEVICE_VERSION),
            self.device.info(cl::CL_DEVICE_OPENCL_C_VERSION),
            self.device.info(cl::CL_DRIVER_VERSION),
            self.options
        )
    }

    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error> {
        exec::check_jobs(module, jobs)?;
        let prog = self.device.build(&module.source, &self.options).map_err(Error::Failed)?;
        let mut out = Vec::new();
        for j in jobs {
            let e = &module.entries[j.entry];
            let cl_entry = self
                .entries
                .iter()
                .find(|c| c.check.entry == e.entry)
                .ok_or_else(|| Error::Failed(format!("opencl: entry {} is not a kernel of the check program", e.entry)))?;
            let cases: Vec<Vec<u64>> = j.inputs.chunks(e.n_in.max(1)).map(<[u64]>::to_vec).collect();
            let got = aether_opencl::run_entry(&prog, cl_entry, &cases).map_err(Error::Failed)?;
            out.push(got.into_iter().flat_map(|r| r.unwrap_or_else(|| vec![REFUSED; e.n_out])).collect());
        }
        Ok(out)
    }
}

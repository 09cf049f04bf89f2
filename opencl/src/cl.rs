//! The few OpenCL 1.2 entry points the check needs, opened at run time from
//! the ICD loader (`libOpenCL.so.1`), with owned handles released on drop.

use std::ffi::{c_char, c_void, CString};
use std::ptr;

use libloading::Library;

type Handle = *mut c_void;
type Notify = Option<unsafe extern "C" fn()>;

const CL_DEVICE_TYPE_ALL: u64 = 0xffff_ffff;
pub const CL_DEVICE_NAME: u32 = 0x102b;
pub const CL_DEVICE_VERSION: u32 = 0x102f;
pub const CL_DRIVER_VERSION: u32 = 0x102d;
pub const CL_DEVICE_EXTENSIONS: u32 = 0x1030;
pub const CL_DEVICE_OPENCL_C_VERSION: u32 = 0x103d;
const CL_DEVICE_SINGLE_FP_CONFIG: u32 = 0x101b;
const CL_PLATFORM_VERSION: u32 = 0x0901;
const CL_PLATFORM_NAME: u32 = 0x0902;
const CL_PLATFORM_VENDOR: u32 = 0x0903;

/// The variable that picks a platform other than the loader's first: the
/// first platform whose name or vendor contains its value (`NVIDIA` on a
/// machine whose loader lists PoCL first). CI never sets it.
pub const PLATFORM_VARIABLE: &str = "AETHER_OPENCL_PLATFORM";
const CL_PROGRAM_BUILD_LOG: u32 = 0x1183;
const CL_FP_DENORM: u64 = 1;
const CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT: u64 = 1 << 7;
const CL_MEM_READ_WRITE: u64 = 1;
const CL_MEM_READ_ONLY: u64 = 1 << 2;
const CL_MEM_COPY_HOST_PTR: u64 = 1 << 5;

struct Api {
    get_platform_ids: unsafe extern "C" fn(u32, *mut Handle, *mut u32) -> i32,
    get_platform_info: unsafe extern "C" fn(Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    get_device_ids: unsafe extern "C" fn(Handle, u64, u32, *mut Handle, *mut u32) -> i32,
    get_device_info: unsafe extern "C" fn(Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    create_context: unsafe extern "C" fn(*const isize, u32, *const Handle, Notify, Handle, *mut i32) -> Handle,
    create_queue: unsafe extern "C" fn(Handle, Handle, u64, *mut i32) -> Handle,
    create_program: unsafe extern "C" fn(Handle, u32, *const *const c_char, *const usize, *mut i32) -> Handle,
    build_program: unsafe extern "C" fn(Handle, u32, *const Handle, *const c_char, Notify, Handle) -> i32,
    build_info: unsafe extern "C" fn(Handle, Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    create_kernel: unsafe extern "C" fn(Handle, *const c_char, *mut i32) -> Handle,
    create_buffer: unsafe extern "C" fn(Handle, u64, usize, *mut c_void, *mut i32) -> Handle,
    set_arg: unsafe extern "C" fn(Handle, u32, usize, *const c_void) -> i32,
    enqueue: unsafe extern "C" fn(Handle, Handle, u32, *const usize, *const usize, *const usize, u32, *const Handle, *mut Handle) -> i32,
    read: unsafe extern "C" fn(Handle, Handle, u32, usize, usize, *mut c_void, u32, *const Handle, *mut Handle) -> i32,
    finish: unsafe extern "C" fn(Handle) -> i32,
    release_mem: unsafe extern "C" fn(Handle) -> i32,
    release_kernel: unsafe extern "C" fn(Handle) -> i32,
    release_program: unsafe extern "C" fn(Handle) -> i32,
    release_queue: unsafe extern "C" fn(Handle) -> i32,
    release_context: unsafe extern "C" fn(Handle) -> i32,
    _lib: Library,
}

impl Api {
    fn load() -> Result<Api, String> {
        // SAFETY: the ICD loader runs no code of ours when loaded.
        let lib = unsafe { Library::new("libOpenCL.so.1").or_else(|_| Library::new("libOpenCL.so")) }
            .map_err(|e| format!("no OpenCL ICD loader (libOpenCL.so.1): {e}"))?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the type is the OpenCL 1.2 prototype of the symbol.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| format!("{}: {e}", $name))?
            };
        }
        Ok(Api {
            get_platform_ids: sym!("clGetPlatformIDs"),
            get_platform_info: sym!("clGetPlatformInfo"),
            get_device_ids: sym!("clGetDeviceIDs"),
            get_device_info: sym!("clGetDeviceInfo"),
            create_context: sym!("clCreateContext"),
            create_queue: sym!("clCreateCommandQueue"),
            create_program: sym!("clCreateProgramWithSource"),
            build_program: sym!("clBuildProgram"),
            build_info: sym!("clGetProgramBuildInfo"),
            create_kernel: sym!("clCreateKernel"),
            create_buffer: sym!("clCreateBuffer"),
            set_arg: sym!("clSetKernelArg"),
            enqueue: sym!("clEnqueueNDRangeKernel"),
            read: sym!("clEnqueueReadBuffer"),
            finish: sym!("clFinish"),
            release_mem: sym!("clReleaseMemObject"),
            release_kernel: sym!("clReleaseKernel"),
            release_program: sym!("clReleaseProgram"),
            release_queue: sym!("clReleaseCommandQueue"),
            release_context: sym!("clReleaseContext"),
            _lib: lib,
        })
    }
}

fn check(what: &str, code: i32) -> Result<(), String> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{what}: OpenCL error {code}"))
    }
}

/// The first device of the first platform, with a context and an in-order
/// queue.
pub struct Device {
    api: Api,
    platform: Handle,
    device: Handle,
    context: Handle,
    queue: Handle,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("name", &self.info(CL_DEVICE_NAME)).finish()
    }
}

/// A built program.
#[derive(Debug)]
pub struct Program<'d> {
    dev: &'d Device,
    program: Handle,
}

/// `CL_INVALID_BUILD_OPTIONS`: the runtime refused an option before compiling.
pub const CL_INVALID_BUILD_OPTIONS: i32 = -43;

/// A program that did not build: clBuildProgram's code and the build log.
#[derive(Debug, Clone)]
pub struct BuildError {
    pub options: String,
    pub code: i32,
    pub log: String,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "clBuildProgram({}): error {}\n{}", self.options, self.code, self.log)
    }
}

/// A kernel argument.
#[derive(Debug)]
pub enum Arg<'a> {
    /// A read-only buffer of the bytes.
    In(&'a [u8]),
    /// A read-write buffer of that many bytes, read back after the run.
    Out(usize),
    U32(u32),
    U64(u64),
}

impl Device {
    /// The first device of the first platform (or of the platform
    /// [`PLATFORM_VARIABLE`] names), or why there is none.
    pub fn first() -> Result<Device, String> {
        let api = Api::load()?;
        let mut n = 0u32;
        // SAFETY: out-pointers to locals and a vector of the size asked for.
        unsafe {
            check("clGetPlatformIDs", (api.get_platform_ids)(0, ptr::null_mut(), &mut n))?;
            if n == 0 {
                return Err("no OpenCL platform (install pocl-opencl-icd)".into());
            }
            let mut platforms: Vec<Handle> = vec![ptr::null_mut(); n as usize];
            check("clGetPlatformIDs", (api.get_platform_ids)(n, platforms.as_mut_ptr(), &mut n))?;
            platforms.truncate(n as usize);
            let platform = match std::env::var(PLATFORM_VARIABLE).ok().filter(|v| !v.is_empty()) {
                None => platforms[0],
                Some(want) => {
                    let text = |p: Handle, param: u32| {
                        let mut size = 0usize;
                        if (api.get_platform_info)(p, param, 0, ptr::null_mut(), &mut size) != 0 {
                            return String::new();
                        }
                        let mut buf = vec![0u8; size];
                        if (api.get_platform_info)(p, param, size, buf.as_mut_ptr().cast(), ptr::null_mut()) != 0 {
                            return String::new();
                        }
                        String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
                    };
                    let named: Vec<(Handle, String)> = platforms
                        .iter()
                        .map(|&p| (p, format!("{} ({})", text(p, CL_PLATFORM_NAME), text(p, CL_PLATFORM_VENDOR))))
                        .collect();
                    match named.iter().find(|(_, name)| name.contains(&want)) {
                        Some(&(p, _)) => p,
                        None => {
                            let seen: Vec<&str> = named.iter().map(|(_, name)| name.as_str()).collect();
                            return Err(format!(
                                "no OpenCL platform named {want} ({PLATFORM_VARIABLE}); platforms seen: {}",
                                seen.join("; ")
                            ));
                        }
                    }
                }
            };
            let mut device: Handle = ptr::null_mut();
            check("clGetDeviceIDs", (api.get_device_ids)(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, &mut n))?;
            let mut err = 0;
            let context = (api.create_context)(ptr::null(), 1, &device, None, ptr::null_mut(), &mut err);
            check("clCreateContext", err)?;
            let queue = (api.create_queue)(context, device, 0, &mut err);
            check("clCreateCommandQueue", err)?;
            Ok(Device { api, platform, device, context, queue })
        }
    }

    fn raw_info(&self, platform: bool, param: u32) -> Vec<u8> {
        let mut size = 0usize;
        // SAFETY: a size query, then a buffer of that size.
        unsafe {
            let q = |size: usize, v: *mut c_void, ret: *mut usize| {
                if platform {
                    (self.api.get_platform_info)(self.platform, param, size, v, ret)
                } else {
                    (self.api.get_device_info)(self.device, param, size, v, ret)
                }
            };
            if q(0, ptr::null_mut(), &mut size) != 0 {
                return Vec::new();
            }
            let mut buf = vec![0u8; size];
            if q(size, buf.as_mut_ptr().cast(), ptr::null_mut()) != 0 {
                return Vec::new();
            }
            buf
        }
    }

    /// A string of the device (`CL_DEVICE_NAME`, ...).
    pub fn info(&self, param: u32) -> String {
        String::from_utf8_lossy(&self.raw_info(false, param)).trim_end_matches('\0').trim().to_string()
    }

    pub fn platform_version(&self) -> String {
        String::from_utf8_lossy(&self.raw_info(true, CL_PLATFORM_VERSION)).trim_end_matches('\0').trim().to_string()
    }

    fn single_fp_config(&self) -> u64 {
        let b = self.raw_info(false, CL_DEVICE_SINGLE_FP_CONFIG);
        b.get(..8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()))
    }

    /// Whether the device reports correctly rounded f32 division and sqrt
    /// (`CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT`).
    pub fn correctly_rounded_divide_sqrt(&self) -> bool {
        self.single_fp_config() & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT != 0
    }

    /// Whether the device reports f32 denormals (`CL_FP_DENORM`).
    pub fn denormals(&self) -> bool {
        self.single_fp_config() & CL_FP_DENORM != 0
    }

    pub fn has_extension(&self, ext: &str) -> bool {
        self.info(CL_DEVICE_EXTENSIONS).split_whitespace().any(|e| e == ext)
    }

    /// Builds `source` with `options`; the error carries the build log.
    pub fn build(&self, source: &str, options: &str) -> Result<Program<'_>, String> {
        self.try_build(source, options).map_err(|e| e.to_string())
    }

    /// Builds `source` with `options`; the error carries clBuildProgram's
    /// code and the build log.
    pub fn try_build(&self, source: &str, options: &str) -> Result<Program<'_>, BuildError> {
        let failed = |code: i32, log: String| BuildError { options: options.to_string(), code, log };
        let src = CString::new(source).map_err(|e| failed(0, e.to_string()))?;
        let opts = CString::new(options).map_err(|e| failed(0, e.to_string()))?;
        let mut err = 0;
        // SAFETY: one NUL-terminated string; the program is released on drop.
        unsafe {
            let p = src.as_ptr();
            let program = (self.api.create_program)(self.context, 1, &p, ptr::null(), &mut err);
            if err != 0 {
                return Err(failed(err, "clCreateProgramWithSource failed".into()));
            }
            let program = Program { dev: self, program };
            let code = (self.api.build_program)(program.program, 1, &self.device, opts.as_ptr(), None, ptr::null_mut());
            if code != 0 {
                return Err(failed(code, program.log()));
            }
            Ok(program)
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: handles created in `first`, released once.
        unsafe {
            (self.api.release_queue)(self.queue);
            (self.api.release_context)(self.context);
        }
    }
}

impl Program<'_> {
    /// The build log.
    pub fn log(&self) -> String {
        let api = &self.dev.api;
        let mut size = 0usize;
        // SAFETY: a size query, then a buffer of that size.
        unsafe {
            if (api.build_info)(self.program, self.dev.device, CL_PROGRAM_BUILD_LOG, 0, ptr::null_mut(), &mut size) != 0 {
                return String::new();
            }
            let mut buf = vec![0u8; size];
            (api.build_info)(self.program, self.dev.device, CL_PROGRAM_BUILD_LOG, size, buf.as_mut_ptr().cast(), ptr::null_mut());
            String::from_utf8_lossy(&buf).trim_end_matches('\0').trim().to_string()
        }
    }

    /// Whether the program has a kernel of that name.
    pub fn has_kernel(&self, name: &str) -> bool {
        let Ok(n) = CString::new(name) else { return false };
        let mut err = 0;
        // SAFETY: a NUL-terminated name; the kernel is released at once.
        unsafe {
            let k = (self.dev.api.create_kernel)(self.program, n.as_ptr(), &mut err);
            if err == 0 {
                (self.dev.api.release_kernel)(k);
            }
            err == 0
        }
    }

    /// Runs kernel `name` over `global` work items (in work groups of
    /// `local`, or of the runtime's choice) with the arguments, and gives
    /// back the bytes of every `Arg::Out`, in order.
    pub fn run(&self, name: &str, global: usize, local: Option<usize>, args: &[Arg]) -> Result<Vec<Vec<u8>>, String> {
        let api = &self.dev.api;
        let cname = CString::new(name).map_err(|e| e.to_string())?;
        let mut err = 0;
        let mut mems: Vec<(Handle, usize, bool)> = Vec::new();
        // SAFETY: buffers created here from slices that outlive the calls (the
        // copies are made at creation), arguments of the kernel's types, a
        // blocking read into vectors of the buffers' sizes; every handle is
        // released before returning.
        unsafe {
            let kernel = (api.create_kernel)(self.program, cname.as_ptr(), &mut err);
            check(&format!("clCreateKernel({name})"), err)?;
            let result = (|| {
                for (i, a) in args.iter().enumerate() {
                    let i = i as u32;
                    match a {
                        Arg::In(bytes) => {
                            let size = bytes.len().max(8);
                            let mut copy = bytes.to_vec();
                            copy.resize(size, 0);
                            let m = (api.create_buffer)(
                                self.dev.context,
                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                size,
                                copy.as_mut_ptr().cast(),
                                &mut err,
                            );
                            check("clCreateBuffer", err)?;
                            mems.push((m, size, false));
                            check("clSetKernelArg", (api.set_arg)(kernel, i, std::mem::size_of::<Handle>(), (&m as *const Handle).cast()))?;
                        }
                        Arg::Out(size) => {
                            let size = (*size).max(8);
                            let m = (api.create_buffer)(self.dev.context, CL_MEM_READ_WRITE, size, ptr::null_mut(), &mut err);
                            check("clCreateBuffer", err)?;
                            mems.push((m, size, true));
                            check("clSetKernelArg", (api.set_arg)(kernel, i, std::mem::size_of::<Handle>(), (&m as *const Handle).cast()))?;
                        }
                        Arg::U32(v) => check("clSetKernelArg", (api.set_arg)(kernel, i, 4, (v as *const u32).cast()))?,
                        Arg::U64(v) => check("clSetKernelArg", (api.set_arg)(kernel, i, 8, (v as *const u64).cast()))?,
                    }
                }
                let g = global.max(1);
                let l = local.unwrap_or(0);
                let lp = if local.is_some() { &l as *const usize } else { ptr::null() };
                check(
                    &format!("clEnqueueNDRangeKernel({name})"),
                    (api.enqueue)(self.dev.queue, kernel, 1, ptr::null(), &g, lp, 0, ptr::null(), ptr::null_mut()),
                )?;
                let mut outs = Vec::new();
                for (m, size, out) in &mems {
                    if *out {
                        let mut buf = vec![0u8; *size];
                        check(
                            "clEnqueueReadBuffer",
                            (api.read)(self.dev.queue, *m, 1, 0, *size, buf.as_mut_ptr().cast(), 0, ptr::null(), ptr::null_mut()),
                        )?;
                        outs.push(buf);
                    }
                }
                check("clFinish", (api.finish)(self.dev.queue))?;
                Ok(outs)
            })();
            for (m, _, _) in mems {
                (api.release_mem)(m);
            }
            (api.release_kernel)(kernel);
            result
        }
    }
}

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: created in `build`, released once.
        unsafe {
            (self.dev.api.release_program)(self.program);
        }
    }
}

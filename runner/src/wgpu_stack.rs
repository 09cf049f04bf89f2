//! The wgpu stack: wgpu (naga translates the WGSL to SPIR-V) on Mesa's
//! lavapipe (llvmpipe), the CPU Vulkan driver of `mesa-vulkan-drivers`.

use aether_generator::targets::shared::check::CheckModule;

use crate::exec::{self, Error, Executor, Job};

/// wgpu on the llvmpipe adapter.
#[derive(Debug)]
pub struct Wgpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
}

/// The driver name lavapipe reports.
pub const DRIVER: &str = "llvmpipe";

/// The variable that names another Vulkan driver for this stack (a GPU's:
/// `NVIDIA`), matched like [`DRIVER`] against the adapter's driver and name.
/// CI never sets it; the report and every line name the adapter taken.
pub const DRIVER_VARIABLE: &str = "AETHER_WGPU_DRIVER";

impl Wgpu {
    /// Opens the llvmpipe Vulkan adapter (or the one [`DRIVER_VARIABLE`]
    /// names); `NotInstalled` when there is none.
    pub fn new() -> Result<Wgpu, Error> {
        let wanted = std::env::var(DRIVER_VARIABLE).ok().filter(|d| !d.is_empty());
        let driver = wanted.as_deref().unwrap_or(DRIVER);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            flags: wgpu::InstanceFlags::empty(),
            memory_budget_thresholds: Default::default(),
            backend_options: Default::default(),
            display: None,
        });
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let seen: Vec<String> = adapters.iter().map(|a| describe(&a.get_info())).collect();
        let adapter = adapters.into_iter().find(|a| {
            let i = a.get_info();
            i.driver == driver || i.name.contains(driver)
        });
        let Some(adapter) = adapter else {
            let hint = if wanted.is_some() {
                format!("named by {DRIVER_VARIABLE}")
            } else {
                "Mesa's lavapipe: apt-get install mesa-vulkan-drivers".into()
            };
            return Err(Error::NotInstalled(format!(
                "no Vulkan adapter with driver {driver} ({hint}); adapters seen: {}",
                if seen.is_empty() { "none".to_string() } else { seen.join("; ") }
            )));
        };
        let info = adapter.get_info();
        let desc = wgpu::DeviceDescriptor {
            label: Some("aether-runner"),
            required_features: wgpu::Features::empty(),
            // The adapter's own limits: the largest storage buffers it allows.
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| Error::Failed(format!("{}: request_device: {e}", describe(&info))))?;
        let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        // The layout is explicit, so an entry that does not use a binding
        // still takes the same bind group.
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("aether check bindings"),
            entries: &[
                storage(0, true),
                storage(1, false),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("aether check"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        Ok(Wgpu { device, queue, info, layout, pipeline_layout })
    }

    /// Runs `f` in a validation error scope: its value, or the error wgpu
    /// reported (a shader compile error carries naga's messages).
    fn scoped<T>(&self, what: &str, f: impl FnOnce() -> T) -> Result<T, Error> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let v = f();
        match pollster::block_on(scope.pop()) {
            None => Ok(v),
            Some(e) => Err(Error::Failed(format!("wgpu: {what}: {e}"))),
        }
    }

    fn run_job(&self, module: &CheckModule, shader: &wgpu::ShaderModule, job: &Job) -> Result<Vec<u64>, Error> {
        let e = &module.entries[job.entry];
        let n_out = job.count * e.n_out;
        if job.count == 0 || n_out == 0 {
            return Ok(Vec::new());
        }
        let pipeline = self.scoped(&format!("entry point {}", e.entry), || {
            self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&e.entry),
                layout: Some(&self.pipeline_layout),
                module: shader,
                entry_point: Some(&e.entry),
                compilation_options: Default::default(),
                cache: None,
            })
        })?;
        let bytes = |words: usize| (words.max(1) * 4) as u64;
        let input = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("aether_in"),
            size: bytes(job.inputs.len()),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let words: Vec<u32> = job.inputs.iter().map(|&w| w as u32).collect();
        self.queue.write_buffer(&input, 0, &le_bytes(&words));
        let output = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("aether_out"),
            size: bytes(n_out),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes(n_out),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(&e.entry) });
        // One uniform buffer per dispatch: its params.w is the first case.
        let mut uniforms = Vec::new();
        for d in exec::dispatches(e, job.count)? {
            let params = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("aether_params"),
                size: 16,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.queue.write_buffer(&params, 0, &le_bytes(&exec::params(job.count, d.first)));
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 1, resource: output.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: params.as_entire_binding() },
                ],
            });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups(d.workgroups, 1, 1);
            }
            uniforms.push(params);
        }
        encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, bytes(n_out));
        self.scoped(&format!("dispatch of {}", e.entry), || self.queue.submit([encoder.finish()]))?;
        let (tx, rx) = std::sync::mpsc::channel();
        readback.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|err| Error::Failed(format!("wgpu: {}: poll: {err}", e.entry)))?;
        rx.recv()
            .map_err(|_| Error::Failed(format!("wgpu: {}: the readback was never mapped", e.entry)))?
            .map_err(|err| Error::Failed(format!("wgpu: {}: map: {err}", e.entry)))?;
        let view = readback.slice(..).get_mapped_range().map_err(|err| Error::Failed(format!("wgpu: {}: mapped range: {err}", e.entry)))?;
        let words: Vec<u64> = view.chunks_exact(4).take(n_out).map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))).collect();
        drop(view);
        readback.unmap();
        Ok(words)
    }
}

fn le_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// An adapter as the report names it.
pub fn describe(i: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?}; driver {} {})", i.name, i.backend, i.driver, i.driver_info)
}

impl Executor for Wgpu {
    fn stack(&self) -> &'static str {
        "wgpu"
    }

    fn adapter(&self) -> String {
        format!("wgpu 30 on {}", describe(&self.info))
    }

    fn rounds_to_nearest(&self) -> bool {
        self.info.driver == DRIVER || self.info.name.contains(DRIVER)
    }

    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error> {
        exec::check_jobs(module, jobs)?;
        let shader = self.scoped("shader module", || {
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("aether check module"),
                source: wgpu::ShaderSource::Wgsl(module.source.as_str().into()),
            })
        })?;
        jobs.iter().map(|j| self.run_job(module, &shader, j)).collect()
    }
}

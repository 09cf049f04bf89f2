//! The GLES stack: Mesa's OpenGL ES 3 on llvmpipe, its CPU driver
//! (`libgl1-mesa-dri`), reached through EGL with no window and no display
//! server. The check module is a GLSL ES 3.00 one, drawn by the plan of
//! [`crate::glsl_draw`]: one vertex per case, the inputs in an R32UI texture,
//! the results captured by transform feedback.
//!
//! `libEGL.so.1` and `libGLESv2.so.2` (glvnd's, which hand every call to
//! Mesa's `libEGL_mesa.so.0`) are opened at run time, so the runner builds and
//! its tests run on a machine without them; the stack is then not installed
//! (`apt-get install libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri`).
//!
//! The display is Mesa's software EGL device: of the devices that
//! `eglQueryDevicesEXT` lists, the one whose extensions name
//! `EGL_MESA_device_software`, opened on `EGL_PLATFORM_DEVICE_EXT`. Its
//! driver is llvmpipe even on a machine with a GPU, and no variable
//! (`LIBGL_ALWAYS_SOFTWARE`, `EGL_PLATFORM`) has to be set. Where EGL lists no
//! such device, the display is Mesa's surfaceless platform
//! (`EGL_PLATFORM_SURFACELESS_MESA`), else the default display (which needs
//! `EGL_PLATFORM=surfaceless` where no display server runs); those take a
//! GPU's driver where there is one, unless `LIBGL_ALWAYS_SOFTWARE=1` is set.
//! The adapter names the platform taken and the renderer. The context is an
//! OpenGL ES 3.0 one (Mesa gives 3.2), current without a surface
//! (`EGL_KHR_surfaceless_context`), or with a 1x1 pbuffer where that
//! extension is missing.
//!
//! Unlike lavapipe's compute shaders (the wgpu stack), llvmpipe's vertex
//! shaders flush subnormals to zero, keeping the sign: operands and results
//! (Mesa 22.3.6: 0x00800000 + 0x80700000 gives 0x00800000, 0x00000001 + 0
//! gives 0; `limits_and_timings` prints them). They round every operation
//! to nearest and fuse nothing.

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr;
use std::sync::{Mutex, OnceLock};

use aether_generator::targets::shared::check::{CheckEntry, CheckModule};
use libloading::Library;

use crate::exec::{self, Error, Executor, Job};
use crate::glsl_draw;

/// The Debian packages of the stack.
pub const PACKAGES: &str = "libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri";

/// An EGL handle (display, config, context, surface, device).
type Ptr = *mut c_void;

const EGL_SUCCESS: i32 = 0x3000;
const EGL_NONE: i32 = 0x3038;
const EGL_SURFACE_TYPE: i32 = 0x3033;
const EGL_RENDERABLE_TYPE: i32 = 0x3040;
const EGL_VENDOR: i32 = 0x3053;
const EGL_VERSION: i32 = 0x3054;
const EGL_EXTENSIONS: i32 = 0x3055;
const EGL_HEIGHT: i32 = 0x3056;
const EGL_WIDTH: i32 = 0x3057;
const EGL_PBUFFER_BIT: i32 = 0x0001;
const EGL_OPENGL_ES3_BIT: i32 = 0x0040;
const EGL_CONTEXT_MAJOR_VERSION: i32 = 0x3098;
const EGL_CONTEXT_MINOR_VERSION: i32 = 0x30fb;
const EGL_OPENGL_ES_API: u32 = 0x30a0;
const EGL_PLATFORM_DEVICE_EXT: u32 = 0x313f;
const EGL_PLATFORM_SURFACELESS_MESA: u32 = 0x31dd;

const GL_NO_ERROR: u32 = 0;
const GL_POINTS: u32 = 0x0000;
const GL_UNSIGNED_INT: u32 = 0x1405;
const GL_VENDOR: u32 = 0x1f00;
const GL_RENDERER: u32 = 0x1f01;
const GL_VERSION: u32 = 0x1f02;
const GL_SHADING_LANGUAGE_VERSION: u32 = 0x8b8c;
const GL_MAX_TEXTURE_SIZE: u32 = 0x0d33;
const GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS: u32 = 0x8c8a;
const GL_MAX_VERTEX_OUTPUT_COMPONENTS: u32 = 0x9122;
const GL_TEXTURE_2D: u32 = 0x0de1;
const GL_TEXTURE0: u32 = 0x84c0;
const GL_TEXTURE_MAG_FILTER: u32 = 0x2800;
const GL_TEXTURE_MIN_FILTER: u32 = 0x2801;
const GL_TEXTURE_WRAP_S: u32 = 0x2802;
const GL_TEXTURE_WRAP_T: u32 = 0x2803;
const GL_TEXTURE_MAX_LEVEL: u32 = 0x813d;
const GL_NEAREST: i32 = 0x2600;
const GL_CLAMP_TO_EDGE: i32 = 0x812f;
const GL_R32UI: i32 = 0x8236;
const GL_RED_INTEGER: u32 = 0x8d94;
const GL_UNPACK_ALIGNMENT: u32 = 0x0cf5;
const GL_FRAGMENT_SHADER: u32 = 0x8b30;
const GL_VERTEX_SHADER: u32 = 0x8b31;
const GL_COMPILE_STATUS: u32 = 0x8b81;
const GL_LINK_STATUS: u32 = 0x8b82;
const GL_INFO_LOG_LENGTH: u32 = 0x8b84;
const GL_INTERLEAVED_ATTRIBS: u32 = 0x8c8c;
const GL_TRANSFORM_FEEDBACK_BUFFER: u32 = 0x8c8e;
const GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN: u32 = 0x8c88;
const GL_RASTERIZER_DISCARD: u32 = 0x8c89;
const GL_QUERY_RESULT: u32 = 0x8866;
const GL_STREAM_READ: u32 = 0x88e1;
const GL_MAP_READ_BIT: u32 = 0x0001;
const GL_FRAMEBUFFER: u32 = 0x8d40;
const GL_RENDERBUFFER: u32 = 0x8d41;
const GL_RGBA8: u32 = 0x8058;
const GL_COLOR_ATTACHMENT0: u32 = 0x8ce0;
const GL_FRAMEBUFFER_COMPLETE: u32 = 0x8cd5;
const GL_FLOAT: u32 = 0x1406;
const GL_ARRAY_BUFFER: u32 = 0x8892;
const GL_STATIC_DRAW: u32 = 0x88e4;
const GL_UNIFORM_BUFFER: u32 = 0x8a11;
const GL_INVALID_INDEX: u32 = 0xffff_ffff;

/// The EGL 1.5 entry points used (EGL's own prototypes: `EGLint` i32,
/// `EGLBoolean` and `EGLenum` u32, `EGLAttrib` isize).
struct Egl {
    get_proc_address: unsafe extern "C" fn(*const c_char) -> Ptr,
    get_error: unsafe extern "C" fn() -> i32,
    get_display: unsafe extern "C" fn(Ptr) -> Ptr,
    get_platform_display: unsafe extern "C" fn(u32, Ptr, *const isize) -> Ptr,
    initialize: unsafe extern "C" fn(Ptr, *mut i32, *mut i32) -> u32,
    terminate: unsafe extern "C" fn(Ptr) -> u32,
    query_string: unsafe extern "C" fn(Ptr, i32) -> *const c_char,
    bind_api: unsafe extern "C" fn(u32) -> u32,
    choose_config: unsafe extern "C" fn(Ptr, *const i32, *mut Ptr, i32, *mut i32) -> u32,
    create_context: unsafe extern "C" fn(Ptr, Ptr, Ptr, *const i32) -> Ptr,
    destroy_context: unsafe extern "C" fn(Ptr, Ptr) -> u32,
    create_pbuffer_surface: unsafe extern "C" fn(Ptr, Ptr, *const i32) -> Ptr,
    destroy_surface: unsafe extern "C" fn(Ptr, Ptr) -> u32,
    make_current: unsafe extern "C" fn(Ptr, Ptr, Ptr, Ptr) -> u32,
    _lib: Library,
}

/// `eglQueryDevicesEXT` (EGL_EXT_device_enumeration).
type QueryDevices = unsafe extern "C" fn(i32, *mut Ptr, *mut i32) -> u32;
/// `eglQueryDeviceStringEXT` (EGL_EXT_device_query).
type QueryDeviceString = unsafe extern "C" fn(Ptr, i32) -> *const c_char;

/// The OpenGL ES 3.0 entry points used (`GLenum`, `GLuint`, `GLbitfield`
/// u32; `GLint`, `GLsizei` i32; `GLsizeiptr`, `GLintptr` isize; `GLboolean`
/// u8). They call into the context current on the calling thread.
struct Gl {
    get_error: unsafe extern "C" fn() -> u32,
    get_string: unsafe extern "C" fn(u32) -> *const u8,
    get_integerv: unsafe extern "C" fn(u32, *mut i32),
    create_shader: unsafe extern "C" fn(u32) -> u32,
    shader_source: unsafe extern "C" fn(u32, i32, *const *const c_char, *const i32),
    compile_shader: unsafe extern "C" fn(u32),
    get_shaderiv: unsafe extern "C" fn(u32, u32, *mut i32),
    get_shader_info_log: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    delete_shader: unsafe extern "C" fn(u32),
    create_program: unsafe extern "C" fn() -> u32,
    attach_shader: unsafe extern "C" fn(u32, u32),
    transform_feedback_varyings: unsafe extern "C" fn(u32, i32, *const *const c_char, u32),
    link_program: unsafe extern "C" fn(u32),
    get_programiv: unsafe extern "C" fn(u32, u32, *mut i32),
    get_program_info_log: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    delete_program: unsafe extern "C" fn(u32),
    use_program: unsafe extern "C" fn(u32),
    get_uniform_location: unsafe extern "C" fn(u32, *const c_char) -> i32,
    uniform1i: unsafe extern "C" fn(i32, i32),
    uniform1ui: unsafe extern "C" fn(i32, u32),
    uniform4ui: unsafe extern "C" fn(i32, u32, u32, u32, u32),
    gen_textures: unsafe extern "C" fn(i32, *mut u32),
    delete_textures: unsafe extern "C" fn(i32, *const u32),
    active_texture: unsafe extern "C" fn(u32),
    bind_texture: unsafe extern "C" fn(u32, u32),
    tex_parameteri: unsafe extern "C" fn(u32, u32, i32),
    tex_image_2d: unsafe extern "C" fn(u32, i32, i32, i32, i32, i32, u32, u32, *const c_void),
    pixel_storei: unsafe extern "C" fn(u32, i32),
    gen_buffers: unsafe extern "C" fn(i32, *mut u32),
    delete_buffers: unsafe extern "C" fn(i32, *const u32),
    bind_buffer: unsafe extern "C" fn(u32, u32),
    bind_buffer_base: unsafe extern "C" fn(u32, u32, u32),
    buffer_data: unsafe extern "C" fn(u32, isize, *const c_void, u32),
    map_buffer_range: unsafe extern "C" fn(u32, isize, isize, u32) -> *mut c_void,
    unmap_buffer: unsafe extern "C" fn(u32) -> u8,
    gen_vertex_arrays: unsafe extern "C" fn(i32, *mut u32),
    bind_vertex_array: unsafe extern "C" fn(u32),
    delete_vertex_arrays: unsafe extern "C" fn(i32, *const u32),
    gen_queries: unsafe extern "C" fn(i32, *mut u32),
    delete_queries: unsafe extern "C" fn(i32, *const u32),
    begin_query: unsafe extern "C" fn(u32, u32),
    end_query: unsafe extern "C" fn(u32),
    get_query_objectuiv: unsafe extern "C" fn(u32, u32, *mut u32),
    enable: unsafe extern "C" fn(u32),
    begin_transform_feedback: unsafe extern "C" fn(u32),
    end_transform_feedback: unsafe extern "C" fn(),
    draw_arrays: unsafe extern "C" fn(u32, i32, i32),
    gen_framebuffers: unsafe extern "C" fn(i32, *mut u32),
    delete_framebuffers: unsafe extern "C" fn(i32, *const u32),
    bind_framebuffer: unsafe extern "C" fn(u32, u32),
    check_framebuffer_status: unsafe extern "C" fn(u32) -> u32,
    gen_renderbuffers: unsafe extern "C" fn(i32, *mut u32),
    delete_renderbuffers: unsafe extern "C" fn(i32, *const u32),
    bind_renderbuffer: unsafe extern "C" fn(u32, u32),
    renderbuffer_storage: unsafe extern "C" fn(u32, u32, i32, i32),
    framebuffer_renderbuffer: unsafe extern "C" fn(u32, u32, u32, u32),
    get_uniform_block_index: unsafe extern "C" fn(u32, *const c_char) -> u32,
    uniform_block_binding: unsafe extern "C" fn(u32, u32, u32),
    uniform4fv: unsafe extern "C" fn(i32, i32, *const f32),
    get_attrib_location: unsafe extern "C" fn(u32, *const c_char) -> i32,
    vertex_attrib_pointer: unsafe extern "C" fn(u32, i32, u32, u8, i32, *const c_void),
    enable_vertex_attrib_array: unsafe extern "C" fn(u32),
    disable_vertex_attrib_array: unsafe extern "C" fn(u32),
    _lib: Library,
}

/// Both libraries, opened once per process and never closed (closing them
/// under Mesa's threads gains nothing).
struct Api {
    egl: Egl,
    gl: Gl,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

impl Api {
    fn get() -> Result<&'static Api, Error> {
        API.get_or_init(Api::load).as_ref().map_err(|e| Error::NotInstalled(format!("gles: {e} (apt-get install {PACKAGES})")))
    }

    fn load() -> Result<Api, String> {
        // SAFETY: glvnd's loaders run no code of ours when loaded.
        let egl_lib = unsafe { Library::new("libEGL.so.1") }.map_err(|e| format!("no EGL (libEGL.so.1): {e}"))?;
        // SAFETY: as above.
        let gl_lib = unsafe { Library::new("libGLESv2.so.2") }.map_err(|e| format!("no OpenGL ES (libGLESv2.so.2): {e}"))?;
        macro_rules! sym {
            ($lib:ident, $name:literal) => {
                // SAFETY: the field's type is the Khronos prototype of the symbol.
                *unsafe { $lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| format!("{}: {e}", $name))?
            };
        }
        let egl = Egl {
            get_proc_address: sym!(egl_lib, "eglGetProcAddress"),
            get_error: sym!(egl_lib, "eglGetError"),
            get_display: sym!(egl_lib, "eglGetDisplay"),
            get_platform_display: sym!(egl_lib, "eglGetPlatformDisplay"),
            initialize: sym!(egl_lib, "eglInitialize"),
            terminate: sym!(egl_lib, "eglTerminate"),
            query_string: sym!(egl_lib, "eglQueryString"),
            bind_api: sym!(egl_lib, "eglBindAPI"),
            choose_config: sym!(egl_lib, "eglChooseConfig"),
            create_context: sym!(egl_lib, "eglCreateContext"),
            destroy_context: sym!(egl_lib, "eglDestroyContext"),
            create_pbuffer_surface: sym!(egl_lib, "eglCreatePbufferSurface"),
            destroy_surface: sym!(egl_lib, "eglDestroySurface"),
            make_current: sym!(egl_lib, "eglMakeCurrent"),
            _lib: egl_lib,
        };
        let gl = Gl {
            get_error: sym!(gl_lib, "glGetError"),
            get_string: sym!(gl_lib, "glGetString"),
            get_integerv: sym!(gl_lib, "glGetIntegerv"),
            create_shader: sym!(gl_lib, "glCreateShader"),
            shader_source: sym!(gl_lib, "glShaderSource"),
            compile_shader: sym!(gl_lib, "glCompileShader"),
            get_shaderiv: sym!(gl_lib, "glGetShaderiv"),
            get_shader_info_log: sym!(gl_lib, "glGetShaderInfoLog"),
            delete_shader: sym!(gl_lib, "glDeleteShader"),
            create_program: sym!(gl_lib, "glCreateProgram"),
            attach_shader: sym!(gl_lib, "glAttachShader"),
            transform_feedback_varyings: sym!(gl_lib, "glTransformFeedbackVaryings"),
            link_program: sym!(gl_lib, "glLinkProgram"),
            get_programiv: sym!(gl_lib, "glGetProgramiv"),
            get_program_info_log: sym!(gl_lib, "glGetProgramInfoLog"),
            delete_program: sym!(gl_lib, "glDeleteProgram"),
            use_program: sym!(gl_lib, "glUseProgram"),
            get_uniform_location: sym!(gl_lib, "glGetUniformLocation"),
            uniform1i: sym!(gl_lib, "glUniform1i"),
            uniform1ui: sym!(gl_lib, "glUniform1ui"),
            uniform4ui: sym!(gl_lib, "glUniform4ui"),
            gen_textures: sym!(gl_lib, "glGenTextures"),
            delete_textures: sym!(gl_lib, "glDeleteTextures"),
            active_texture: sym!(gl_lib, "glActiveTexture"),
            bind_texture: sym!(gl_lib, "glBindTexture"),
            tex_parameteri: sym!(gl_lib, "glTexParameteri"),
            tex_image_2d: sym!(gl_lib, "glTexImage2D"),
            pixel_storei: sym!(gl_lib, "glPixelStorei"),
            gen_buffers: sym!(gl_lib, "glGenBuffers"),
            delete_buffers: sym!(gl_lib, "glDeleteBuffers"),
            bind_buffer: sym!(gl_lib, "glBindBuffer"),
            bind_buffer_base: sym!(gl_lib, "glBindBufferBase"),
            buffer_data: sym!(gl_lib, "glBufferData"),
            map_buffer_range: sym!(gl_lib, "glMapBufferRange"),
            unmap_buffer: sym!(gl_lib, "glUnmapBuffer"),
            gen_vertex_arrays: sym!(gl_lib, "glGenVertexArrays"),
            bind_vertex_array: sym!(gl_lib, "glBindVertexArray"),
            delete_vertex_arrays: sym!(gl_lib, "glDeleteVertexArrays"),
            gen_queries: sym!(gl_lib, "glGenQueries"),
            delete_queries: sym!(gl_lib, "glDeleteQueries"),
            begin_query: sym!(gl_lib, "glBeginQuery"),
            end_query: sym!(gl_lib, "glEndQuery"),
            get_query_objectuiv: sym!(gl_lib, "glGetQueryObjectuiv"),
            enable: sym!(gl_lib, "glEnable"),
            begin_transform_feedback: sym!(gl_lib, "glBeginTransformFeedback"),
            end_transform_feedback: sym!(gl_lib, "glEndTransformFeedback"),
            draw_arrays: sym!(gl_lib, "glDrawArrays"),
            gen_framebuffers: sym!(gl_lib, "glGenFramebuffers"),
            delete_framebuffers: sym!(gl_lib, "glDeleteFramebuffers"),
            bind_framebuffer: sym!(gl_lib, "glBindFramebuffer"),
            check_framebuffer_status: sym!(gl_lib, "glCheckFramebufferStatus"),
            gen_renderbuffers: sym!(gl_lib, "glGenRenderbuffers"),
            delete_renderbuffers: sym!(gl_lib, "glDeleteRenderbuffers"),
            bind_renderbuffer: sym!(gl_lib, "glBindRenderbuffer"),
            renderbuffer_storage: sym!(gl_lib, "glRenderbufferStorage"),
            framebuffer_renderbuffer: sym!(gl_lib, "glFramebufferRenderbuffer"),
            get_uniform_block_index: sym!(gl_lib, "glGetUniformBlockIndex"),
            uniform_block_binding: sym!(gl_lib, "glUniformBlockBinding"),
            uniform4fv: sym!(gl_lib, "glUniform4fv"),
            get_attrib_location: sym!(gl_lib, "glGetAttribLocation"),
            vertex_attrib_pointer: sym!(gl_lib, "glVertexAttribPointer"),
            enable_vertex_attrib_array: sym!(gl_lib, "glEnableVertexAttribArray"),
            disable_vertex_attrib_array: sym!(gl_lib, "glDisableVertexAttribArray"),
            _lib: gl_lib,
        };
        Ok(Api { egl, gl })
    }
}

impl Egl {
    /// `eglQueryString` of `display` (null: the client extensions), or "".
    fn string(&self, display: Ptr, name: i32) -> String {
        // SAFETY: EGL returns null or a NUL-terminated string it owns.
        unsafe {
            let s = (self.query_string)(display, name);
            if s.is_null() {
                String::new()
            } else {
                CStr::from_ptr(s).to_string_lossy().into_owned()
            }
        }
    }

    /// The last EGL error, as text.
    fn error(&self) -> String {
        // SAFETY: no arguments.
        let code = unsafe { (self.get_error)() };
        if code == EGL_SUCCESS {
            "no EGL error".into()
        } else {
            format!("EGL error 0x{code:04x}")
        }
    }

    /// An extension entry point, or None.
    ///
    /// # Safety
    /// `T` must be the `unsafe extern "C" fn` type of the entry point `name`.
    unsafe fn proc<T: Copy>(&self, name: &CStr) -> Option<T> {
        assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<Ptr>());
        // SAFETY: a NUL-terminated name; a non-null result is the entry point,
        // of type T by the caller's promise.
        unsafe {
            let p = (self.get_proc_address)(name.as_ptr());
            (!p.is_null()).then(|| std::mem::transmute_copy::<Ptr, T>(&p))
        }
    }

    /// Mesa's software device (`EGL_MESA_device_software`), if EGL lists one.
    fn software_device(&self) -> Option<Ptr> {
        // SAFETY: the types are the prototypes of EGL_EXT_device_enumeration
        // and EGL_EXT_device_query.
        let (query, string) =
            unsafe { (self.proc::<QueryDevices>(c"eglQueryDevicesEXT")?, self.proc::<QueryDeviceString>(c"eglQueryDeviceStringEXT")?) };
        let mut devices = [ptr::null_mut(); 32];
        let mut n = 0;
        // SAFETY: room for 32 devices; the strings are EGL's, NUL-terminated.
        unsafe {
            if query(devices.len() as i32, devices.as_mut_ptr(), &mut n) == 0 {
                return None;
            }
            devices[..n.clamp(0, 32) as usize].iter().copied().find(|&d| {
                let s = string(d, EGL_EXTENSIONS);
                !s.is_null() && has(&CStr::from_ptr(s).to_string_lossy(), "EGL_MESA_device_software")
            })
        }
    }
}

/// Whether the space-separated extension list `list` names `ext`.
fn has(list: &str, ext: &str) -> bool {
    list.split_ascii_whitespace().any(|e| e == ext)
}

/// The displays this process has initialised, by address, with how many
/// [`Gles`] hold each: EGL gives one display per platform and device to
/// every caller, and its `eglInitialize` and `eglTerminate` do not count, so
/// the last holder terminates it (tests open several at once).
static DISPLAYS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Initialises `display` for one more holder; false if EGL cannot.
fn acquire(egl: &Egl, display: Ptr) -> bool {
    let mut held = DISPLAYS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(h) = held.iter_mut().find(|h| h.0 == display as usize) {
        h.1 += 1;
        return true;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: a display from eglGetPlatformDisplay or eglGetDisplay; out-pointers to locals.
    if unsafe { (egl.initialize)(display, &mut major, &mut minor) } == 0 {
        return false;
    }
    held.push((display as usize, 1));
    true
}

/// Drops one holder of `display`, terminating it after the last.
fn release(egl: &Egl, display: Ptr) {
    let mut held = DISPLAYS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = held.iter().position(|h| h.0 == display as usize) {
        held[i].1 -= 1;
        if held[i].1 == 0 {
            held.remove(i);
            // SAFETY: initialised by `acquire`; no holder is left.
            unsafe { (egl.terminate)(display) };
        }
    }
}

/// Opens and initialises a display: the software device, else the
/// surfaceless platform, else the default display. The display and the
/// platform's name, or what each attempt gave.
fn open_display(egl: &Egl) -> Result<(Ptr, &'static str), String> {
    let client = egl.string(ptr::null_mut(), EGL_EXTENSIONS);
    let none = [EGL_NONE as isize];
    let mut tried = Vec::new();
    if has(&client, "EGL_EXT_device_enumeration") || has(&client, "EGL_EXT_device_base") {
        match egl.software_device() {
            Some(device) => {
                // SAFETY: a device EGL listed; a terminated attribute list.
                let d = unsafe { (egl.get_platform_display)(EGL_PLATFORM_DEVICE_EXT, device, none.as_ptr()) };
                if !d.is_null() && acquire(egl, d) {
                    return Ok((d, "EGL device EGL_MESA_device_software"));
                }
                tried.push(format!("software device: {}", egl.error()));
            }
            None => tried.push("no EGL_MESA_device_software device".into()),
        }
    }
    if has(&client, "EGL_MESA_platform_surfaceless") {
        // SAFETY: the surfaceless platform takes no native display.
        let d = unsafe { (egl.get_platform_display)(EGL_PLATFORM_SURFACELESS_MESA, ptr::null_mut(), none.as_ptr()) };
        if !d.is_null() && acquire(egl, d) {
            return Ok((d, "EGL_PLATFORM_SURFACELESS_MESA"));
        }
        tried.push(format!("surfaceless platform: {}", egl.error()));
    }
    // SAFETY: EGL_DEFAULT_DISPLAY is null.
    let d = unsafe { (egl.get_display)(ptr::null_mut()) };
    if !d.is_null() && acquire(egl, d) {
        return Ok((d, "EGL default display"));
    }
    tried.push(format!("default display: {}", egl.error()));
    Err(format!("no EGL display ({}; client extensions: {client})", tried.join("; ")))
}

/// The GL limits that bound the draw plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS.
    pub transform_feedback_interleaved_components: i32,
    /// GL_MAX_VERTEX_OUTPUT_COMPONENTS.
    pub vertex_output_components: i32,
    /// GL_MAX_TEXTURE_SIZE.
    pub texture_size: i32,
}

/// Mesa's OpenGL ES 3 on llvmpipe, through EGL.
pub struct Gles {
    api: &'static Api,
    display: Ptr,
    /// Null until made; the surface stays null where the context is surfaceless.
    context: Ptr,
    surface: Ptr,
    adapter: String,
    renderer: String,
    limits: Limits,
    vao: u32,
    /// A 1x1 framebuffer: a surfaceless context's default one is incomplete,
    /// and Mesa refuses a draw on it (GL_INVALID_FRAMEBUFFER_OPERATION) even
    /// with the rasteriser off.
    framebuffer: u32,
    renderbuffer: u32,
    texture: u32,
    feedback: u32,
    query: u32,
    /// The uniform buffer of a job's bound words (the probe block).
    probe_block: u32,
    /// The array buffer of a job's bound words, once per vertex (the probe
    /// attributes).
    probe_vertices: u32,
    /// The module source the programs were built from.
    source: String,
    /// The program of each entry of `source`, by entry name.
    programs: HashMap<String, u32>,
}

impl std::fmt::Debug for Gles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gles")
            .field("adapter", &self.adapter)
            .field("limits", &self.limits)
            .field("programs", &self.programs.len())
            .finish()
    }
}

impl Gles {
    /// Opens the display, makes an ES 3 context current on this thread and
    /// makes the draw's objects; `NotInstalled` when EGL, GLES or Mesa's
    /// driver is missing.
    pub fn new() -> Result<Gles, Error> {
        let api = Api::get()?;
        let egl = &api.egl;
        let not_installed = |m: String| Error::NotInstalled(format!("gles: {m} (apt-get install {PACKAGES})"));
        let (display, platform) = open_display(egl).map_err(not_installed)?;
        // From here on, Drop releases what is made.
        let mut g = Gles {
            api,
            display,
            context: ptr::null_mut(),
            surface: ptr::null_mut(),
            adapter: String::new(),
            renderer: String::new(),
            limits: Limits { transform_feedback_interleaved_components: 0, vertex_output_components: 0, texture_size: 0 },
            vao: 0,
            framebuffer: 0,
            renderbuffer: 0,
            texture: 0,
            feedback: 0,
            query: 0,
            probe_block: 0,
            probe_vertices: 0,
            source: String::new(),
            programs: HashMap::new(),
        };
        let extensions = egl.string(display, EGL_EXTENSIONS);
        let surfaceless = has(&extensions, "EGL_KHR_surfaceless_context");
        let mut attributes = vec![EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT];
        if !surfaceless {
            attributes.extend([EGL_SURFACE_TYPE, EGL_PBUFFER_BIT]);
        }
        attributes.push(EGL_NONE);
        let mut config: Ptr = ptr::null_mut();
        let mut configs = 0;
        // SAFETY: EGL_OPENGL_ES_API is an API enum; a terminated attribute
        // list and room for one config.
        let chosen = unsafe {
            (egl.bind_api)(EGL_OPENGL_ES_API) != 0 && (egl.choose_config)(display, attributes.as_ptr(), &mut config, 1, &mut configs) != 0
        };
        if !chosen || configs < 1 {
            // A surfaceless context needs no config where EGL_KHR_no_config_context is there (EGL_NO_CONFIG_KHR is null).
            if !(surfaceless && has(&extensions, "EGL_KHR_no_config_context")) {
                return Err(not_installed(format!("{platform}: no EGL config for OpenGL ES 3 ({})", egl.error())));
            }
            config = ptr::null_mut();
        }
        let context_attributes = [EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE];
        // SAFETY: the display and config above; a terminated attribute list.
        g.context = unsafe { (egl.create_context)(display, config, ptr::null_mut(), context_attributes.as_ptr()) };
        if g.context.is_null() {
            return Err(not_installed(format!("{platform}: no OpenGL ES 3.0 context ({})", egl.error())));
        }
        if !surfaceless {
            let pbuffer = [EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE];
            // SAFETY: a config with EGL_PBUFFER_BIT; a terminated attribute list.
            g.surface = unsafe { (egl.create_pbuffer_surface)(display, config, pbuffer.as_ptr()) };
            if g.surface.is_null() {
                return Err(Error::Failed(format!("gles: {platform}: no 1x1 pbuffer ({})", egl.error())));
            }
        }
        g.make_current()?;
        let gl = &api.gl;
        let text = |name: u32| {
            // SAFETY: the context is current; GL returns null or a NUL-terminated string it owns.
            unsafe {
                let s = (gl.get_string)(name);
                if s.is_null() {
                    String::from("?")
                } else {
                    CStr::from_ptr(s.cast()).to_string_lossy().into_owned()
                }
            }
        };
        g.renderer = text(GL_RENDERER);
        g.adapter = format!(
            "{} GLES: {}; {}; {}; EGL {} {} ({platform})",
            text(GL_VENDOR),
            g.renderer,
            text(GL_VERSION),
            text(GL_SHADING_LANGUAGE_VERSION),
            egl.string(display, EGL_VERSION),
            egl.string(display, EGL_VENDOR)
        );
        let integer = |name: u32| {
            let mut v = 0;
            // SAFETY: the context is current; a one-value query into a local.
            unsafe { (gl.get_integerv)(name, &mut v) };
            v
        };
        g.limits = Limits {
            transform_feedback_interleaved_components: integer(GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS),
            vertex_output_components: integer(GL_MAX_VERTEX_OUTPUT_COMPONENTS),
            texture_size: integer(GL_MAX_TEXTURE_SIZE),
        };
        let l = g.limits;
        let need = |have: i32, want: usize| usize::try_from(have).is_ok_and(|h| h >= want);
        if !need(l.texture_size, glsl_draw::TEX_WIDTH.max(glsl_draw::TEX_MAX_ROWS))
            || !need(l.transform_feedback_interleaved_components, glsl_draw::PART_WORDS)
            || !need(l.vertex_output_components, glsl_draw::PART_WORDS)
        {
            return Err(Error::Failed(format!(
                "{}: {l:?} below the draw plan's texture of {} x {} and {} captured words",
                g.adapter,
                glsl_draw::TEX_WIDTH,
                glsl_draw::TEX_MAX_ROWS,
                glsl_draw::PART_WORDS
            )));
        }
        // SAFETY: the context is current; out-pointers to fields, one name each.
        unsafe {
            (gl.gen_vertex_arrays)(1, &mut g.vao);
            (gl.bind_vertex_array)(g.vao);
            (gl.gen_buffers)(1, &mut g.feedback);
            (gl.gen_buffers)(1, &mut g.probe_block);
            (gl.gen_buffers)(1, &mut g.probe_vertices);
            (gl.gen_queries)(1, &mut g.query);
            (gl.gen_textures)(1, &mut g.texture);
            (gl.active_texture)(GL_TEXTURE0);
            (gl.bind_texture)(GL_TEXTURE_2D, g.texture);
            (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
            (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
            (gl.tex_parameteri)(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
            (gl.pixel_storei)(GL_UNPACK_ALIGNMENT, 4);
            (gl.enable)(GL_RASTERIZER_DISCARD);
            (gl.gen_renderbuffers)(1, &mut g.renderbuffer);
            (gl.bind_renderbuffer)(GL_RENDERBUFFER, g.renderbuffer);
            (gl.renderbuffer_storage)(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
            (gl.gen_framebuffers)(1, &mut g.framebuffer);
            (gl.bind_framebuffer)(GL_FRAMEBUFFER, g.framebuffer);
            (gl.framebuffer_renderbuffer)(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, g.renderbuffer);
        }
        // SAFETY: the context is current.
        let status = unsafe { (gl.check_framebuffer_status)(GL_FRAMEBUFFER) };
        if status != GL_FRAMEBUFFER_COMPLETE {
            return Err(Error::Failed(format!("gles: {}: the 1x1 framebuffer is incomplete (0x{status:04x})", g.adapter)));
        }
        g.gl_error("setup")?;
        Ok(g)
    }

    /// The limits the stack reports.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Makes the context current on this thread (a [`Gles`] may be used on
    /// another thread than the one that made it, and several may share one).
    fn make_current(&self) -> Result<(), Error> {
        // SAFETY: the display, surface (or none) and context of this Gles.
        if unsafe { (self.api.egl.make_current)(self.display, self.surface, self.surface, self.context) } == 0 {
            return Err(Error::Failed(format!("gles: eglMakeCurrent: {}", self.api.egl.error())));
        }
        Ok(())
    }

    /// Failed with the GL error raised since the last check, if any.
    fn gl_error(&self, what: &str) -> Result<(), Error> {
        // SAFETY: the context is current.
        let code = unsafe { (self.api.gl.get_error)() };
        if code == GL_NO_ERROR {
            return Ok(());
        }
        // SAFETY: as above; glGetError returns each raised error once.
        while unsafe { (self.api.gl.get_error)() } != GL_NO_ERROR {}
        Err(Error::Failed(format!("gles: {what}: GL error 0x{code:04x}")))
    }

    /// Compiles one shader: its name, or the compiler's log.
    fn shader(&self, kind: u32, source: &str) -> Result<u32, String> {
        let gl = &self.api.gl;
        let text = source.as_ptr().cast::<c_char>();
        let length = i32::try_from(source.len()).map_err(|_| format!("a shader of {} bytes", source.len()))?;
        // SAFETY: the context is current; one string of the given length, which
        // GL copies; out-pointer to a local.
        unsafe {
            let s = (gl.create_shader)(kind);
            (gl.shader_source)(s, 1, &text, &length);
            (gl.compile_shader)(s);
            let mut ok = 0;
            (gl.get_shaderiv)(s, GL_COMPILE_STATUS, &mut ok);
            if ok != 0 {
                return Ok(s);
            }
            let log = self.log(s, gl.get_shaderiv, gl.get_shader_info_log);
            (gl.delete_shader)(s);
            Err(log)
        }
    }

    /// The info log of a shader or program.
    fn log(
        &self,
        object: u32,
        get: unsafe extern "C" fn(u32, u32, *mut i32),
        info: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    ) -> String {
        let mut size = 0;
        // SAFETY: the context is current; a size query, then a buffer of that size.
        unsafe {
            get(object, GL_INFO_LOG_LENGTH, &mut size);
            let mut buf = vec![0u8; size.max(1) as usize];
            let mut written = 0;
            info(object, buf.len() as i32, &mut written, buf.as_mut_ptr().cast());
            buf.truncate(written.clamp(0, size.max(0)) as usize);
            String::from_utf8_lossy(&buf).trim_end().to_string()
        }
    }

    /// Compiles and links the program of entry `name` from its vertex
    /// shader: the program, or Failed with the log.
    fn build(&self, name: &str, vertex: &str) -> Result<u32, Error> {
        let gl = &self.api.gl;
        let vs = self
            .shader(GL_VERTEX_SHADER, vertex)
            .map_err(|log| Error::Failed(format!("gles: entry {name}: the vertex shader does not compile:\n{log}")))?;
        let fs = match self.shader(GL_FRAGMENT_SHADER, glsl_draw::FRAGMENT) {
            Ok(fs) => fs,
            Err(log) => {
                // SAFETY: the context is current; a shader made above.
                unsafe { (gl.delete_shader)(vs) };
                return Err(Error::Failed(format!("gles: entry {name}: the fragment shader does not compile:\n{log}")));
            }
        };
        let varyings: Vec<CString> = glsl_draw::VARYINGS.iter().map(|v| CString::new(*v).unwrap()).collect();
        let names: Vec<*const c_char> = varyings.iter().map(|v| v.as_ptr()).collect();
        // SAFETY: the context is current; shaders made above (deleted once the
        // program holds them); NUL-terminated names that outlive the call.
        unsafe {
            let p = (gl.create_program)();
            (gl.attach_shader)(p, vs);
            (gl.attach_shader)(p, fs);
            (gl.delete_shader)(vs);
            (gl.delete_shader)(fs);
            (gl.transform_feedback_varyings)(p, names.len() as i32, names.as_ptr(), GL_INTERLEAVED_ATTRIBS);
            (gl.link_program)(p);
            let mut ok = 0;
            (gl.get_programiv)(p, GL_LINK_STATUS, &mut ok);
            if ok != 0 {
                return Ok(p);
            }
            let log = self.log(p, gl.get_programiv, gl.get_program_info_log);
            (gl.delete_program)(p);
            Err(Error::Failed(format!("gles: entry {name}: the program does not link:\n{log}")))
        }
    }

    /// The program of entry `entry` of `module`, built on first use.
    fn program(&mut self, module: &CheckModule, entry: usize) -> Result<u32, Error> {
        if self.source != module.source {
            self.delete_programs();
            self.source.clone_from(&module.source);
        }
        let name = &module.entries[entry].entry;
        if let Some(&p) = self.programs.get(name) {
            return Ok(p);
        }
        let p = self.build(name, &glsl_draw::vertex_source(module, entry))?;
        self.programs.insert(name.clone(), p);
        Ok(p)
    }

    fn delete_programs(&mut self) {
        for (_, p) in self.programs.drain() {
            // SAFETY: the context is current; a program made by `build`, deleted once.
            unsafe { (self.api.gl.delete_program)(p) };
        }
    }

    fn uniform(&self, program: u32, name: &CStr) -> i32 {
        // SAFETY: the context is current; a NUL-terminated name. A uniform the
        // shader does not use is -1, which glUniform* ignore.
        unsafe { (self.api.gl.get_uniform_location)(program, name.as_ptr()) }
    }

    /// Binds a job's bound words to what `program` has active of the probe
    /// block, uniform and attributes ([`crate::glsl_draw`]); the program is
    /// in use and the VAO bound. An active block is bound for every job (to
    /// zeros where the job has no bound words); the uniform and attributes
    /// only for a job with bound words. The attribute locations enabled,
    /// which [`Gles::run_job`] disables after the draws; Failed where a job
    /// has bound words and the program none of the three.
    fn bind_probe(&self, program: u32, job: &Job, entry: &CheckEntry) -> Result<Vec<u32>, Error> {
        let gl = &self.api.gl;
        let words = glsl_draw::padded_bound(&job.bound);
        let block_name = CString::new(glsl_draw::PROBE_BLOCK).unwrap();
        // SAFETY: the context is current; a NUL-terminated name.
        let block = unsafe { (gl.get_uniform_block_index)(program, block_name.as_ptr()) };
        if block != GL_INVALID_INDEX {
            // SAFETY: the context is current; `words` holds BOUND_BYTES, which
            // GL copies; a block index of the program.
            unsafe {
                (gl.bind_buffer)(GL_UNIFORM_BUFFER, self.probe_block);
                (gl.buffer_data)(GL_UNIFORM_BUFFER, glsl_draw::BOUND_BYTES as isize, words.as_ptr().cast(), GL_STATIC_DRAW);
                (gl.uniform_block_binding)(program, block, glsl_draw::PROBE_BLOCK_BINDING);
                (gl.bind_buffer_base)(GL_UNIFORM_BUFFER, glsl_draw::PROBE_BLOCK_BINDING, self.probe_block);
            }
        }
        if job.bound.is_empty() {
            return Ok(Vec::new());
        }
        let uniform_name = CString::new(format!("{}[0]", glsl_draw::PROBE_UNIFORM)).unwrap();
        let attribute_names: Vec<CString> = glsl_draw::PROBE_ATTRIBUTES.iter().map(|a| CString::new(*a).unwrap()).collect();
        // SAFETY: the context is current; NUL-terminated names.
        let (uniform, attributes) = unsafe {
            (
                (gl.get_uniform_location)(program, uniform_name.as_ptr()),
                attribute_names.iter().map(|a| (gl.get_attrib_location)(program, a.as_ptr())).collect::<Vec<i32>>(),
            )
        };
        if block == GL_INVALID_INDEX && uniform < 0 && attributes.iter().all(|&a| a < 0) {
            return Err(Error::Failed(format!(
                "gles: entry {}: bound words but the program declares no aether_probe_* binding",
                entry.entry
            )));
        }
        let mut enabled = Vec::new();
        // SAFETY: the context is current; `words` holds BOUND_WORDS words,
        // `vertices` the words of `most` vertices, both copied by GL; the
        // locations are the program's.
        unsafe {
            if uniform >= 0 {
                let floats = words.map(f32::from_bits);
                (gl.uniform4fv)(uniform, (glsl_draw::BOUND_WORDS / 4) as i32, floats.as_ptr());
            }
            if attributes.iter().any(|&a| a >= 0) {
                let most = glsl_draw::chunks(entry.n_in, job.count).iter().map(|c| c.1).max().unwrap_or(0);
                let vertices = glsl_draw::bound_vertices(&job.bound, most);
                (gl.bind_buffer)(GL_ARRAY_BUFFER, self.probe_vertices);
                (gl.buffer_data)(GL_ARRAY_BUFFER, (vertices.len() * 4) as isize, vertices.as_ptr().cast(), GL_STATIC_DRAW);
                for (i, &a) in attributes.iter().enumerate() {
                    if let Ok(a) = u32::try_from(a) {
                        // The offset of aether_probe_a{i} in a vertex's words, as GL's pointer argument.
                        let offset = (16 * i) as *const c_void;
                        (gl.vertex_attrib_pointer)(a, 4, GL_FLOAT, 0, glsl_draw::BOUND_BYTES as i32, offset);
                        (gl.enable_vertex_attrib_array)(a);
                        enabled.push(a);
                    }
                }
                (gl.bind_buffer)(GL_ARRAY_BUFFER, 0);
            }
        }
        Ok(enabled)
    }

    fn run_job(&mut self, module: &CheckModule, job: &Job) -> Result<Vec<u64>, Error> {
        let e = &module.entries[job.entry];
        if job.count * e.n_out == 0 {
            return Ok(Vec::new());
        }
        let program = self.program(module, job.entry)?;
        // SAFETY: the context is current; a program of this Gles, the VAO made in `new`.
        unsafe {
            (self.api.gl.use_program)(program);
            (self.api.gl.bind_vertex_array)(self.vao);
        }
        let enabled = self.bind_probe(program, job, e)?;
        let out = self.gl_error(&format!("entry {}: binding the bound words", e.entry)).and_then(|()| self.draw_job(module, job, program));
        for a in enabled {
            // SAFETY: the context is current; a location enabled by bind_probe on the bound VAO.
            unsafe { (self.api.gl.disable_vertex_attrib_array)(a) };
        }
        out
    }

    /// The draws of a job on `program`, which is in use with the job's bound
    /// words bound.
    fn draw_job(&self, module: &CheckModule, job: &Job, program: u32) -> Result<Vec<u64>, Error> {
        let e = &module.entries[job.entry];
        let (n_in, n_out) = (e.n_in, e.n_out);
        let mut out = vec![0u64; job.count * n_out];
        let gl = &self.api.gl;
        let (input, params, part_at) =
            (self.uniform(program, c"aether_in"), self.uniform(program, c"aether_params"), self.uniform(program, c"aether_part"));
        // SAFETY: the context is current; a program and objects of this Gles.
        unsafe {
            (gl.uniform1i)(input, 0);
            (gl.bind_framebuffer)(GL_FRAMEBUFFER, self.framebuffer);
            (gl.active_texture)(GL_TEXTURE0);
            (gl.bind_texture)(GL_TEXTURE_2D, self.texture);
            (gl.bind_buffer)(GL_TRANSFORM_FEEDBACK_BUFFER, self.feedback);
        }
        for (first, cases) in glsl_draw::chunks(n_in, job.count) {
            let words: Vec<u32> = job.inputs[first * n_in..(first + cases) * n_in].iter().map(|&w| w as u32).collect();
            let (rows, texels) = glsl_draw::texture(&words);
            let p = glsl_draw::params(cases);
            // SAFETY: the context is current; `texels` holds TEX_WIDTH x rows
            // words, which GL copies.
            unsafe {
                (gl.tex_image_2d)(
                    GL_TEXTURE_2D,
                    0,
                    GL_R32UI,
                    glsl_draw::TEX_WIDTH as i32,
                    rows as i32,
                    0,
                    GL_RED_INTEGER,
                    GL_UNSIGNED_INT,
                    texels.as_ptr().cast(),
                );
                (gl.uniform4ui)(params, p[0], p[1], p[2], p[3]);
            }
            let words = cases * glsl_draw::PART_WORDS;
            let bytes = (words * 4) as isize;
            let mut captured = vec![0u32; words];
            for part in 0..glsl_draw::parts(n_out) {
                let what = format!("entry {}: draw of cases {first}..{} (part {part})", e.entry, first + cases);
                let mut written = 0u32;
                // SAFETY: the context is current; a buffer of `bytes` bound as
                // the capture, a query into a local.
                unsafe {
                    (gl.uniform1ui)(part_at, part as u32);
                    (gl.buffer_data)(GL_TRANSFORM_FEEDBACK_BUFFER, bytes, ptr::null(), GL_STREAM_READ);
                    (gl.bind_buffer_base)(GL_TRANSFORM_FEEDBACK_BUFFER, 0, self.feedback);
                    (gl.enable)(GL_RASTERIZER_DISCARD);
                    (gl.begin_query)(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, self.query);
                    (gl.begin_transform_feedback)(GL_POINTS);
                    (gl.draw_arrays)(GL_POINTS, 0, cases as i32);
                    (gl.end_transform_feedback)();
                    (gl.end_query)(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
                    (gl.get_query_objectuiv)(self.query, GL_QUERY_RESULT, &mut written);
                }
                self.gl_error(&what)?;
                if written as usize != cases {
                    return Err(Error::Failed(format!("gles: {what}: {written} vertices captured, not {cases}")));
                }
                // SAFETY: the context is current; the map covers `bytes`, which
                // is the size of `captured`; unmapped at once.
                unsafe {
                    let map = (gl.map_buffer_range)(GL_TRANSFORM_FEEDBACK_BUFFER, 0, bytes, GL_MAP_READ_BIT);
                    if map.is_null() {
                        return Err(self
                            .gl_error(&format!("{what}: glMapBufferRange"))
                            .err()
                            .unwrap_or_else(|| Error::Failed(format!("gles: {what}: glMapBufferRange gave null"))));
                    }
                    ptr::copy_nonoverlapping(map.cast::<u8>(), captured.as_mut_ptr().cast::<u8>(), words * 4);
                    (gl.unmap_buffer)(GL_TRANSFORM_FEEDBACK_BUFFER);
                }
                self.gl_error(&format!("{what}: readback"))?;
                glsl_draw::scatter(&captured, first, cases, n_out, part, &mut out);
            }
        }
        Ok(out)
    }
}

impl Executor for Gles {
    fn stack(&self) -> &'static str {
        "gles"
    }

    fn adapter(&self) -> String {
        self.adapter.clone()
    }

    /// True on Mesa's CPU drivers (llvmpipe, softpipe): they round every
    /// operation to nearest and fuse nothing.
    fn rounds_to_nearest(&self) -> bool {
        self.renderer.contains("llvmpipe") || self.renderer.contains("softpipe")
    }

    fn run(&mut self, module: &CheckModule, jobs: &[Job]) -> Result<Vec<Vec<u64>>, Error> {
        exec::check_jobs(module, jobs)?;
        self.make_current()?;
        // Errors left by an earlier failed run are not this run's.
        let _ = self.gl_error("before the run");
        jobs.iter().map(|j| self.run_job(module, j)).collect()
    }
}

impl Drop for Gles {
    fn drop(&mut self) {
        let egl = &self.api.egl;
        if !self.context.is_null() && self.make_current().is_ok() {
            self.delete_programs();
            let gl = &self.api.gl;
            // SAFETY: the context is current; objects made in `new` (0 where
            // not made, which the deletes ignore), deleted once.
            unsafe {
                (gl.delete_vertex_arrays)(1, &self.vao);
                (gl.delete_framebuffers)(1, &self.framebuffer);
                (gl.delete_renderbuffers)(1, &self.renderbuffer);
                (gl.delete_textures)(1, &self.texture);
                (gl.delete_buffers)(1, &self.feedback);
                (gl.delete_buffers)(1, &self.probe_block);
                (gl.delete_buffers)(1, &self.probe_vertices);
                (gl.delete_queries)(1, &self.query);
            }
        }
        // SAFETY: the display, context and surface of this Gles, released
        // once; the context is made not current first.
        unsafe {
            (egl.make_current)(self.display, ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
            if !self.context.is_null() {
                (egl.destroy_context)(self.display, self.context);
            }
            if !self.surface.is_null() {
                (egl.destroy_surface)(self.display, self.surface);
            }
        }
        release(egl, self.display);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// The stack, or None (printed) where it is not installed.
    fn open() -> Option<Gles> {
        match Gles::new() {
            Ok(g) => Some(g),
            Err(Error::NotInstalled(m)) => {
                println!("skipped: {m}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// `n` pseudo-random words (xorshift), as the low 32 bits of u64s.
    fn words(n: usize, seed: u64) -> Vec<u64> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s & 0xffff_ffff
            })
            .collect()
    }

    /// f32 bits whose sums are never subnormal (exponents 2^-63 to 2^63,
    /// with zeros, 1, the largest finite and infinity mixed in): the toy
    /// checks the plumbing, and llvmpipe flushes subnormal results to zero
    /// (printed by `limits_and_timings`).
    fn floats(n: usize, seed: u64) -> Vec<u64> {
        let special = [0u64, 0x8000_0000, 0x7f80_0000, 0x3f80_0000, 0x7f7f_ffff];
        words(n, seed)
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                if i % 17 == 0 {
                    special[i / 17 % special.len()]
                } else {
                    let exp = 64 + ((w >> 23) & 0xff) % 127;
                    (w & 0x807f_ffff) | (exp << 23)
                }
            })
            .collect()
    }

    #[test]
    fn the_toy_entries_match_their_expected_words() {
        let Some(mut g) = open() else { return };
        println!("adapter: {}", g.adapter());
        assert!(g.rounds_to_nearest(), "{}", g.adapter());
        let m = glsl_draw::toy_module();
        // t_add over 2 chunks (65536 + 300 cases), t_wide in 2 parts, t_bits.
        let jobs = vec![
            Job::new(&m, 0, floats(2 * 300, 1)),
            Job::new(&m, 1, words(257, 2)),
            Job::new(&m, 2, words(2 * 301, 3)),
            Job::new(&m, 0, floats(2 * (glsl_draw::MAX_DRAW_CASES + 300), 4)),
            Job::without_inputs(2, 0),
        ];
        let got = g.run(&m, &jobs).unwrap();
        assert_eq!(got.len(), jobs.len());
        for (j, r) in jobs.iter().zip(&got) {
            let want = glsl_draw::toy_expected(j);
            assert_eq!(r.len(), want.len(), "entry {}", j.entry);
            if let Some(i) = r.iter().zip(&want).position(|(a, b)| a != b) {
                panic!("entry {}: word {i}: {:#x}, expected {:#x}", m.entries[j.entry].entry, r[i], want[i]);
            }
        }
        // A second run reuses the programs.
        assert_eq!(g.programs.len(), 3);
        let again = g.run(&m, &jobs[1..2]).unwrap();
        assert_eq!(again[0], got[1]);
        assert_eq!(g.programs.len(), 3);
    }

    #[test]
    fn a_shader_that_does_not_compile_fails_with_the_log() {
        let Some(mut g) = open() else { return };
        let mut m = glsl_draw::toy_module();
        m.source.push_str("void t_broken() { aether_put(0u, no_such_function(1u)); }\n");
        m.entries[0].entry = "t_broken".into();
        let err = g.run(&m, &[Job::new(&m, 0, vec![1, 2])]).unwrap_err();
        let Error::Failed(msg) = err else { panic!("{err:?}") };
        println!("{msg}");
        assert!(msg.contains("t_broken") && msg.contains("no_such_function") && msg.contains("error"), "{msg}");
        // The stack still runs a good module afterwards.
        let good = glsl_draw::toy_module();
        let job = Job::new(&good, 2, words(2 * 10, 5));
        let r = g.run(&good, std::slice::from_ref(&job)).unwrap();
        assert_eq!(r[0], glsl_draw::toy_expected(&job));
    }

    /// 16 distinct f32 values, none NaN or subnormal (a GPU may canonicalise
    /// a NaN, llvmpipe flushes subnormals), as bits.
    fn bound_words() -> Vec<u32> {
        let v: [f32; 16] = [
            1e8,
            0.5,
            -0.0,
            3.0e-5,
            1.0e30,
            0.0,
            -2.5,
            f32::MAX,
            f32::MIN_POSITIVE,
            -1.0e-30,
            0.1,
            -123456.79,
            f32::INFINITY,
            1.0 / 3.0,
            -7.0,
            1.0,
        ];
        v.map(f32::to_bits).to_vec()
    }

    #[test]
    fn bound_words_reach_the_block_the_uniform_and_the_attributes() {
        let Some(mut g) = open() else { return };
        let m = glsl_draw::toy_module();
        let bound = bound_words();
        let mut distinct = bound.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), glsl_draw::BOUND_WORDS);
        // Each provenance, an ordinary job between them (nothing bound, the
        // attribute arrays disabled again), and a short list, padded with zeros.
        let jobs = vec![
            Job::without_inputs(3, 3).with_bound(bound.clone()),
            Job::new(&m, 2, words(2 * 5, 7)),
            Job::without_inputs(4, 3).with_bound(bound.clone()),
            Job::without_inputs(5, 3).with_bound(bound.clone()),
            Job::new(&m, 0, floats(2 * 5, 8)),
            Job::without_inputs(5, 2).with_bound(bound[..5].to_vec()),
            Job::without_inputs(4, 2).with_bound(bound[11..].to_vec()),
        ];
        let got = g.run(&m, &jobs).unwrap();
        for (j, r) in jobs.iter().zip(&got) {
            let name = &m.entries[j.entry].entry;
            assert_eq!(r, &glsl_draw::toy_expected(j), "{name}");
            if j.bound.len() == glsl_draw::BOUND_WORDS {
                assert_eq!(r.len(), 3 * glsl_draw::BOUND_WORDS, "{name}");
                for (case, words) in r.chunks(glsl_draw::BOUND_WORDS).enumerate() {
                    let words: Vec<u32> = words.iter().map(|&w| w as u32).collect();
                    assert_eq!(words, bound, "{name}: case {case}");
                }
            }
        }
        // Jobs without bound words: the attribute arrays were disabled after
        // the last job, so the attributes read the generic value (0, 0, 0,
        // 1), not the last job's words; the block is bound to zeros.
        let r = g.run(&m, &[Job::without_inputs(5, 2), Job::without_inputs(3, 2)]).unwrap();
        let generic: Vec<u64> = [0, 0, 0, 0x3f80_0000].repeat(2 * 4);
        assert_eq!(r[0], generic);
        assert_eq!(r[1], vec![0; 2 * glsl_draw::BOUND_WORDS]);
    }

    #[test]
    fn bound_words_without_a_probe_binding_fail() {
        let Some(mut g) = open() else { return };
        // t_add reaches neither the probe uniform nor the attributes, which
        // the linker drops; without the block in the source it has none.
        let m = glsl_draw::toy_module_without_block();
        let err = g.run(&m, &[Job::new(&m, 0, vec![1, 2]).with_bound(bound_words())]).unwrap_err();
        let Error::Failed(msg) = err else { panic!("{err:?}") };
        assert!(msg.contains("entry t_add: bound words but the program declares no aether_probe_* binding"), "{msg}");
        // The stack still runs afterwards, the attribute entry of that module too.
        let job = Job::without_inputs(5, 2).with_bound(bound_words());
        assert_eq!(g.run(&m, std::slice::from_ref(&job)).unwrap()[0], glsl_draw::toy_expected(&job));
        // A std140 block is active in every program whose source declares
        // it (GLES 3.0.6 2.12.6), used or not: in the toy module, t_add has
        // the block and runs with bound words.
        let m = glsl_draw::toy_module();
        let job = Job::new(&m, 0, floats(2 * 4, 3)).with_bound(bound_words());
        assert_eq!(g.run(&m, std::slice::from_ref(&job)).unwrap()[0], glsl_draw::toy_expected(&job));
    }

    /// Prints the limits and the time of a program build and of a full draw
    /// (`--nocapture`), and what the stack does with subnormals and NaNs.
    #[test]
    fn limits_and_timings() {
        let Some(mut g) = open() else { return };
        println!("adapter: {}", g.adapter());
        println!("limits: {:?}", g.limits());
        let m = glsl_draw::toy_module();
        g.make_current().unwrap();
        for e in 0..m.entries.len() {
            let t = Instant::now();
            let p = g.build(&m.entries[e].entry, &glsl_draw::vertex_source(&m, e)).unwrap();
            println!("compile+link of {}: {:.2} ms", m.entries[e].entry, t.elapsed().as_secs_f64() * 1e3);
            // SAFETY: the context is current; a program made just above.
            unsafe { (g.api.gl.delete_program)(p) };
        }
        let n = glsl_draw::MAX_DRAW_CASES;
        let job = Job::new(&m, 0, floats(2 * n, 9));
        let want = glsl_draw::toy_expected(&job);
        for round in 0..3 {
            let t = Instant::now();
            let r = g.run(&m, std::slice::from_ref(&job)).unwrap();
            println!(
                "t_add, {n} cases in one draw (upload, draw, readback{}): {:.2} ms",
                if round == 0 { ", with the build" } else { "" },
                t.elapsed().as_secs_f64() * 1e3
            );
            let bad: Vec<String> = (0..n)
                .filter(|&i| r[0][i] != want[i])
                .map(|i| {
                    format!("{:#010x} + {:#010x} = {:#010x} (Rust {:#010x})", job.inputs[2 * i], job.inputs[2 * i + 1], r[0][i], want[i])
                })
                .collect();
            assert!(bad.is_empty(), "{} differ: {:?}", bad.len(), &bad[..bad.len().min(10)]);
        }
        let job = Job::new(&m, 1, words(n, 10));
        let t = Instant::now();
        g.run(&m, std::slice::from_ref(&job)).unwrap();
        println!("t_wide, {n} cases in 2 parts (with the build): {:.2} ms", t.elapsed().as_secs_f64() * 1e3);
        // Subnormals and NaNs through an f32 add: printed, not judged (a
        // subnormal plus 0; a subnormal result of normals; a subnormal plus
        // the least normal, whose sum is normal; NaN payloads, quiet and
        // signalling, first or second).
        let probe: Vec<u64> = vec![
            0x0000_0001,
            0,
            0x0080_0000,
            0x8070_0000,
            0x0040_0000,
            0x0080_0000,
            0x7fc0_0001,
            0x3f80_0000,
            0x3f80_0000,
            0xffc0_0002,
            0x7f80_0001,
            0,
            0xffc0_0003,
            0x7fc0_0004,
        ];
        let job = Job::new(&m, 0, probe.clone());
        let r = g.run(&m, std::slice::from_ref(&job)).unwrap();
        let want = glsl_draw::toy_expected(&job);
        for (i, w) in probe.chunks(2).enumerate() {
            println!("{:#010x} + {:#010x} = {:#010x} (Rust {:#010x})", w[0], w[1], r[0][i], want[i]);
        }
        // The draw ran on this thread: its floating-point mode is unchanged.
        let tiny = std::hint::black_box(f32::from_bits(0x0080_0000)) / std::hint::black_box(2.0f32);
        assert_eq!(tiny.to_bits(), 0x0040_0000, "subnormals are flushed on the calling thread after a draw");
    }
}

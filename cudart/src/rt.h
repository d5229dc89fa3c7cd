/*
 * The runtime behind the exported CUDA API: registered modules, kernels and
 * variables, device memory, streams, events, texture objects, the error
 * state and the per-launch profiling.
 *
 * The CUDA runtime API has one implicit context per process, so the API
 * layer holds exactly one mb_rt (rt_enter()); everything below it takes the
 * instance as a parameter. Every API call holds the instance's lock.
 */
#ifndef MB_CUDART_RT_H
#define MB_CUDART_RT_H

#include "cuda_abi.h"

#include <minibench/cudart.h>
#include <minibench/profiler.h>

#include <pthread.h>

/* Exported symbols: everything else in the shared library stays hidden. */
#define MB_API __attribute__((visibility("default")))

/* A function whose body was replaced by a trap because the executor cannot run it. */
typedef struct rt_disabled {
    char *name;
    char *reason; /* the executor's message: file:line, the instruction */
} rt_disabled;

typedef struct rt_module {
    const void *fatbin;   /* the wrapper nvcc registered */
    rt_disabled *disabled;
    size_t ndisabled, cap_disabled;
    int state;            /* 0 not loaded yet, 1 loaded, -1 failed */
    cudaError_t load_error;
    mb_module *module;    /* owned unless shared with the --ptx override */
    mb_program *program;
    int owns;
} rt_module;

typedef struct rt_kernel {
    rt_module *mod;
    const void *host_fun; /* the host stub nvcc launches through */
    char *name;           /* the PTX entry name */
    const mb_function *fn;  /* resolved when the module loads */
    const mb_program *program;
    mb_param_slot *slots;
    uint32_t param_bytes;
    int max_dynamic_shared; /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    int reported;           /* its reason for not running was printed */
    void *aggregate;        /* profile.c: the aggregated profile of this kernel */
} rt_kernel;

typedef struct rt_var {
    rt_module *mod;
    const void *host_var; /* the host shadow the program names the symbol by */
    char *name;
    size_t size;
    int constant;
    void **managed_ptr;   /* __managed__: where the program reads its pointer */
    uint64_t addr;        /* device address once the module loaded */
} rt_var;

typedef enum rt_alloc_kind { RT_DEVICE, RT_PINNED, RT_REGISTERED, RT_MANAGED } rt_alloc_kind;

typedef struct rt_alloc {
    uint64_t addr;
    size_t size;
    rt_alloc_kind kind;
    void *host; /* owned host memory of pinned and managed allocations */
    unsigned flags;
} rt_alloc;

struct mb_stream {
    unsigned flags;
    int priority;
};

struct mb_event {
    unsigned flags;
    int recorded;
    double ms; /* the device clock when recorded */
};

/* A CUDA array (cudaArray_t): row-major device memory. */
struct mb_array {
    uint64_t addr;
    size_t width, height; /* elements; height 0 for a 1D array */
    size_t elem, pitch;   /* bytes per element and per row */
    struct cudaChannelFormatDesc desc;
};

typedef struct rt_texture {
    uint64_t handle;
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
} rt_texture;

typedef struct rt_config {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
} rt_config;

/* The device's figures that depend on the machine simulated (sim.c fills
 * them from the simulator configuration under MINIBENCH_CUDART_MODE=sim). */
typedef struct rt_device {
    int sms;
    int threads_per_sm;
    int blocks_per_sm;
    int regs_per_sm;
    int shared_per_sm;
    int clock_khz;
} rt_device;

typedef struct mb_rt {
    pthread_mutex_t lock;
    rt_device dev;
    mb_cudart_options opt;
    mb_memory *mem;
    rt_module **modules;
    size_t nmodules, cap_modules;
    rt_kernel **kernels; /* stable addresses: cudaKernel_t handles point at them */
    size_t nkernels, cap_kernels;
    rt_var *vars;
    size_t nvars, cap_vars;
    rt_alloc *allocs;
    size_t nallocs, cap_allocs;
    rt_texture *textures;
    size_t ntextures, cap_textures;
    struct mb_array **arrays;
    size_t narrays, cap_arrays;
    uint64_t next_texture;
    rt_config *configs; /* pushed by <<<>>>, popped by the launch stub */
    size_t nconfigs, cap_configs;
    rt_module override;   /* the MINIBENCH_CUDART_PTX module, when given */
    cudaError_t last_error;
    cudaError_t sticky_error;
    uint64_t launches;    /* launches so far: the <n> of <kernel>.<n> */
    uint64_t profiled;
    double device_ms;     /* the device clock: wall time, or simulated time under sim */
    double start_wall;
    uint32_t stack_bytes; /* cudaLimitStackSize */
    void *profile_state;  /* profile.c */
    void *sim_state;      /* sim.c */
    int cache_config;
    int warned_cooperative;
} mb_rt;

/* The defaults of the functional device (api_device.c). */
void rt_device_defaults(rt_device *dev);

/* ------------------------------------------------------------ api layer */

/* Whether the process's runtime was created (by any API call). */
int rt_exists(void);
/* The process's runtime, locked. Never NULL: creation failure aborts with a message. */
mb_rt *rt_enter(void);
/* Records `e` as the last error (when not success), unlocks, returns the
 * sticky error when the context is corrupted, else `e`. */
cudaError_t rt_leave(mb_rt *rt, cudaError_t e);
/* Prints "minibench cudart: <message>" on standard error. */
void rt_warn(const char *fmt, ...) MB_PRINTF(1, 2);

/* --------------------------------------------------------------- core */

mb_status rt_init(mb_rt *rt, mb_error *err);
/* Frees allocations, streams, events and textures, and clears the error
 * state (cudaDeviceReset); modules reload on their next use. */
void rt_reset(mb_rt *rt);
rt_module *rt_module_add(mb_rt *rt, const void *fatbin);
/* Loads the module's PTX (once); returns the CUDA error to report on failure. */
cudaError_t rt_module_load(mb_rt *rt, rt_module *mod);
rt_kernel *rt_kernel_find(mb_rt *rt, const void *host_fun);
/* Resolves the kernel's PTX function and parameter layout. */
cudaError_t rt_kernel_resolve(mb_rt *rt, rt_kernel *k);
rt_var *rt_var_find(mb_rt *rt, const void *host_var);
cudaError_t rt_var_resolve(mb_rt *rt, rt_var *v);
cudaError_t rt_launch(mb_rt *rt, rt_kernel *k, dim3 grid, dim3 block, void **args, size_t shared,
                      cudaStream_t stream);
/* The CUDA error a fault report stands for (fault_errors.def). */
cudaError_t rt_fault_error(const char *message);

/* Memory bookkeeping. */
rt_alloc *rt_alloc_find(mb_rt *rt, uint64_t addr); /* the allocation starting at addr */
rt_alloc *rt_alloc_containing(mb_rt *rt, uint64_t addr);
cudaError_t rt_alloc_add(mb_rt *rt, rt_alloc a);
/* Host view of [ptr, ptr+bytes): device memory through the executor's
 * memory, or `ptr` itself for host memory when `device_required` is 0. */
void *rt_view(mb_rt *rt, const void *ptr, size_t bytes, int device_required);

/* Wall-clock milliseconds since the runtime started. */
double rt_wall_ms(const mb_rt *rt);

/* ------------------------------------------------------------ profile */

/* Whether launch `index` of kernel `k` is profiled under the options. */
int rt_profile_selected(mb_rt *rt, const rt_kernel *k, uint64_t index);
/* Runs the launch with a profile attached and writes it (profile.c). */
mb_status rt_profile_launch(mb_rt *rt, rt_kernel *k, const mb_launch_config *cfg,
                            const mb_exec_options *opt, uint64_t index, mb_exec_stats *stats,
                            mb_error *err);
/* Writes aggregated profiles and the index at exit. */
void rt_profile_finish(mb_rt *rt);

/* ------------------------------------------------------ PTX loading */

/* Parses and decodes PTX into mod; functions the executor cannot decode get
 * a trapping body and are listed in mod->disabled (ptx_disable.c). */
mb_status rt_ptx_load_tolerant(mb_rt *rt, rt_module *mod, const char *text, size_t len,
                               const char *name, mb_error *err);
/* Why function `name` of the module cannot run, or NULL. */
const char *rt_disabled_reason(const rt_module *mod, const char *name);

/* ------------------------------------------------------------- printf */

/* When the PTX calls vprintf, the same PTX with a vprintf that writes a FIFO
 * (printf.c) in *out (malloc'd); *out stays NULL otherwise. */
mb_status rt_printf_augment(const char *ptx, size_t len, const char *name, char **out,
                            size_t *out_len, mb_error *err);
/* Prints the module's device printf records on standard output (failed
 * assertions on standard error), empties the FIFO and returns how many
 * assertions failed. */
int rt_printf_flush(mb_rt *rt, rt_module *mod);

/* ---------------------------------------------------------------- sim */

/* Creates the simulator of MINIBENCH_CUDART_CONFIG and sets rt->dev from it. */
mb_status rt_sim_init(mb_rt *rt, mb_error *err);
/* Whether launch `index` of `k` is timed on the simulator (selected, or every
 * launch unless fast-forwarding). */
int rt_sim_timed(mb_rt *rt, const rt_kernel *k, uint64_t index);
/* Simulates one launch, advances the device clock and records its statistics. */
mb_status rt_sim_launch(mb_rt *rt, rt_kernel *k, const mb_launch_config *cfg,
                        const mb_exec_options *opt, uint64_t index, mb_exec_stats *stats,
                        mb_error *err);
/* Writes the totals (at exit). */
void rt_sim_finish(mb_rt *rt);

/* ----------------------------------------------------------- textures */

rt_texture *rt_texture_find(mb_rt *rt, uint64_t handle);
struct mb_array *rt_array_find(mb_rt *rt, const void *array);
void rt_array_free(mb_rt *rt, struct mb_array *a);

#endif

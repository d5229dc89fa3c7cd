/* The runtime core: modules, kernels, variables, launches and memory bookkeeping. */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rt_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("minibench cudart: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
}

static double monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double rt_wall_ms(const mb_rt *rt)
{
    return monotonic_ms() - rt->start_wall;
}

mb_status rt_init(mb_rt *rt, mb_error *err)
{
    memset(rt, 0, sizeof(*rt));
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rt->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    rt->start_wall = monotonic_ms();
    rt->next_texture = 1;
    rt_device_defaults(&rt->dev);
    return mb_memory_new(&rt->mem, err);
}

cudaError_t rt_fault_error(const char *message)
{
#define MB_FAULT_ERROR(text, error)                                                                \
    if (strstr(message, text))                                                                     \
        return error;
#include "fault_errors.def"
#undef MB_FAULT_ERROR
    return cudaErrorLaunchFailure;
}

/* ------------------------------------------------------------ modules */

rt_module *rt_module_add(mb_rt *rt, const void *fatbin)
{
    rt_module *mod = calloc(1, sizeof(*mod));
    if (!mod || MB_GROW(rt->modules, rt->cap_modules, rt->nmodules + 1) != MB_OK) {
        free(mod);
        return NULL;
    }
    mod->fatbin = fatbin;
    rt->modules[rt->nmodules++] = mod;
    return mod;
}

static cudaError_t load_error_of(mb_status st)
{
    switch (st) {
    case MB_ERR_NOMEM: return cudaErrorMemoryAllocation;
    case MB_ERR_UNSUPPORTED: return cudaErrorInvalidPtx;
    default: return cudaErrorInvalidKernelImage;
    }
}

/* Parses PTX text and decodes it for the executor into `mod`. */
static mb_status load_ptx(mb_rt *rt, rt_module *mod, const char *text, size_t len, const char *name,
                          mb_error *err)
{
    char *with_printf = NULL;
    size_t with_len = 0;
    mb_status st = MB_OK;
    if (strstr(text, "vprintf") || strstr(text, "__assertfail"))
        st = rt_printf_augment(text, len, name, &with_printf, &with_len, err);
    if (with_printf) {
        text = with_printf;
        len = with_len;
    }
    if (st == MB_OK)
        st = rt_ptx_load_tolerant(rt, mod, text, len, name, err);
    free(with_printf);
    if (st != MB_OK) {
        mb_program_free(mod->program);
        mb_module_free(mod->module);
        mod->program = NULL;
        mod->module = NULL;
    }
    mod->owns = 1;
    return st;
}

static void report_load_failure(const mb_error *err, const char *what)
{
    char msg[1700];
    mb_error_format(err, msg, sizeof(msg));
    rt_warn("cannot load %s: %s", what, msg);
}

cudaError_t rt_module_load(mb_rt *rt, rt_module *mod)
{
    if (mod->state == 1)
        return cudaSuccess;
    if (mod->state == -1)
        return mod->load_error;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = MB_OK;
    if (rt->opt.ptx) {
        rt_module *o = &rt->override;
        if (o->state == 0) {
            char *text = NULL;
            size_t len = 0;
            st = mb_read_file(rt->opt.ptx, MB_PTX_MAX_FILE_BYTES, &text, &len, &err);
            if (st == MB_OK)
                st = load_ptx(rt, o, text, len, rt->opt.ptx, &err);
            free(text);
            o->state = st == MB_OK ? 1 : -1;
            o->load_error = load_error_of(st);
            if (st != MB_OK)
                report_load_failure(&err, "the PTX file given in " "MINIBENCH_CUDART_PTX");
        }
        mod->module = o->module;
        mod->program = o->program;
        mod->owns = 0;
        mod->state = o->state;
        mod->load_error = o->load_error;
    } else {
        char *text = NULL;
        size_t len = 0;
        unsigned sm = 0;
        st = mb_fatbin_extract_ptx(mod->fatbin, SIZE_MAX, &text, &len, &sm, &err);
        if (st == MB_OK) {
            /* Fault reports name the PTX as <program>.fatbin<k>.sm_<arch>.ptx. */
            char exe[256] = "program", name[400];
            ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
            exe[n > 0 ? n : 7] = '\0';
            const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
            size_t k = 0;
            while (k < rt->nmodules && rt->modules[k] != mod)
                k++;
            snprintf(name, sizeof(name), "%s.fatbin%zu.sm_%u.ptx", base, k, sm);
            st = load_ptx(rt, mod, text, len, name, &err);
        }
        free(text);
        mod->state = st == MB_OK ? 1 : -1;
        mod->load_error = st == MB_ERR_UNSUPPORTED && !mod->module && strstr(err.msg, "no PTX")
                              ? cudaErrorNoKernelImageForDevice
                              : load_error_of(st);
        if (st != MB_OK)
            report_load_failure(&err, "the program's device code");
    }
    if (mod->state != 1)
        return mod->load_error;
    /* Variables of this module now have device addresses; managed ones get their host pointer. */
    for (size_t i = 0; i < rt->nvars; i++)
        if (rt->vars[i].mod == mod)
            rt_var_resolve(rt, &rt->vars[i]);
    return cudaSuccess;
}

/* ------------------------------------------------------------ kernels */

rt_kernel *rt_kernel_find(mb_rt *rt, const void *host_fun)
{
    for (size_t i = 0; i < rt->nkernels; i++)
        if (rt->kernels[i]->host_fun == host_fun || (const void *)rt->kernels[i] == host_fun)
            return rt->kernels[i];
    return NULL;
}

cudaError_t rt_kernel_resolve(mb_rt *rt, rt_kernel *k)
{
    if (k->fn && k->program == k->mod->program)
        return cudaSuccess;
    cudaError_t e = rt_module_load(rt, k->mod);
    if (e != cudaSuccess)
        return e;
    const char *why = rt_disabled_reason(rt->opt.ptx ? &rt->override : k->mod, k->name);
    if (why) {
        if (!k->reported)
            rt_warn("kernel %s cannot run on minibench: %s", k->name, why);
        k->reported = 1;
        return cudaErrorInvalidPtx;
    }
    const mb_function *fn = mb_module_find_function(k->mod->module, k->name);
    if (!fn || !fn->is_entry || !fn->has_body) {
        rt_warn("kernel '%s' is not an .entry with a body in the device code%s", k->name,
                rt->opt.ptx ? " (MINIBENCH_CUDART_PTX)" : "");
        return cudaErrorInvalidDeviceFunction;
    }
    mb_param_slot *slots = calloc(fn->nparams ? fn->nparams : 1, sizeof(*slots));
    uint32_t total = 0;
    mb_error err;
    if (!slots)
        return cudaErrorMemoryAllocation;
    if (mb_kernel_param_layout(fn, slots, &total, &err) != MB_OK) {
        report_load_failure(&err, k->name);
        free(slots);
        return cudaErrorInvalidDeviceFunction;
    }
    free(k->slots);
    k->slots = slots;
    k->param_bytes = total;
    k->fn = fn;
    k->program = k->mod->program;
    return cudaSuccess;
}

/* ---------------------------------------------------------- variables */

rt_var *rt_var_find(mb_rt *rt, const void *host_var)
{
    for (size_t i = 0; i < rt->nvars; i++)
        if (rt->vars[i].host_var == host_var)
            return &rt->vars[i];
    return NULL;
}

cudaError_t rt_var_resolve(mb_rt *rt, rt_var *v)
{
    if (v->addr)
        return cudaSuccess;
    if (v->mod->state != 1) {
        cudaError_t e = rt_module_load(rt, v->mod);
        if (e != cudaSuccess)
            return e;
        if (v->addr)
            return cudaSuccess;
    }
    const mb_module *m = v->mod->module;
    for (uint32_t i = 0; i < m->nvars; i++) {
        if (strcmp(m->vars[i].name, v->name) != 0)
            continue;
        uint64_t addr = mb_program_var_address(v->mod->program, i);
        if (!addr)
            break;
        v->addr = addr;
        if (v->managed_ptr)
            *v->managed_ptr = mb_memory_host(rt->mem, addr, v->size ? v->size : 1);
        return cudaSuccess;
    }
    rt_warn("device variable '%s' is not in the device code", v->name);
    return cudaErrorInvalidSymbol;
}

/* ------------------------------------------------------------- memory */

rt_alloc *rt_alloc_find(mb_rt *rt, uint64_t addr)
{
    for (size_t i = 0; i < rt->nallocs; i++)
        if (rt->allocs[i].addr == addr)
            return &rt->allocs[i];
    return NULL;
}

rt_alloc *rt_alloc_containing(mb_rt *rt, uint64_t addr)
{
    for (size_t i = 0; i < rt->nallocs; i++)
        if (addr - rt->allocs[i].addr < (rt->allocs[i].size ? rt->allocs[i].size : 1))
            return &rt->allocs[i];
    return NULL;
}

cudaError_t rt_alloc_add(mb_rt *rt, rt_alloc a)
{
    if (MB_GROW(rt->allocs, rt->cap_allocs, rt->nallocs + 1) != MB_OK)
        return cudaErrorMemoryAllocation;
    rt->allocs[rt->nallocs++] = a;
    return cudaSuccess;
}

void *rt_view(mb_rt *rt, const void *ptr, size_t bytes, int device_required)
{
    void *view = mb_memory_host(rt->mem, (uint64_t)(uintptr_t)ptr, bytes);
    if (view || device_required)
        return view;
    /* Host memory: but never hand out the simulated device range as a host pointer. */
    if (mb_memory_allocation(rt->mem, (uint64_t)(uintptr_t)ptr, NULL, NULL))
        return NULL;
    return (void *)(uintptr_t)ptr;
}

rt_texture *rt_texture_find(mb_rt *rt, uint64_t handle)
{
    for (size_t i = 0; i < rt->ntextures; i++)
        if (rt->textures[i].handle == handle)
            return &rt->textures[i];
    return NULL;
}

void rt_reset(mb_rt *rt)
{
    for (size_t i = 0; i < rt->nallocs; i++) {
        rt_alloc *a = &rt->allocs[i];
        mb_memory_release(rt->mem, a->addr, NULL);
        if (a->kind == RT_PINNED || a->kind == RT_MANAGED)
            free(a->host);
    }
    rt->nallocs = 0;
    for (size_t i = 0; i < rt->ntextures; i++)
        mb_memory_unbind_texture(rt->mem, rt->textures[i].handle);
    rt->ntextures = 0;
    while (rt->narrays)
        rt_array_free(rt, rt->arrays[0]);
    rt->nconfigs = 0;
    rt->last_error = cudaSuccess;
    rt->sticky_error = cudaSuccess;
}

/* ------------------------------------------------------------ launches */

static int config_valid(dim3 grid, dim3 block)
{
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    return grid.x && grid.y && grid.z && block.x && block.y && block.z && threads <= 1024 &&
           block.z <= 64 && grid.x < (1u << 31) && grid.y <= 65535 && grid.z <= 65535;
}

cudaError_t rt_launch(mb_rt *rt, rt_kernel *k, dim3 grid, dim3 block, void **args, size_t shared,
                      cudaStream_t stream)
{
    (void)stream; /* streams are in order: everything runs now */
    cudaError_t e = rt_kernel_resolve(rt, k);
    if (e != cudaSuccess)
        return e;
    if (!config_valid(grid, block))
        return cudaErrorInvalidConfiguration;
    uint64_t limit = k->max_dynamic_shared > 48 * 1024 ? (uint64_t)k->max_dynamic_shared : 48 * 1024;
    if (shared > limit)
        return cudaErrorInvalidValue;
    if (k->fn->nparams && !args)
        return cudaErrorInvalidValue;
    unsigned char *params = calloc(k->param_bytes ? k->param_bytes : 1, 1);
    if (!params)
        return cudaErrorMemoryAllocation;
    for (uint32_t i = 0; i < k->fn->nparams; i++)
        memcpy(params + k->slots[i].offset, args[i], k->slots[i].size);
    mb_launch_config cfg = {k->fn, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                            (uint32_t)shared, params, k->param_bytes};
    mb_exec_options opt = {rt->opt.threads, rt->opt.max_insts, rt->stack_bytes, NULL};
    mb_exec_stats stats;
    memset(&stats, 0, sizeof(stats));
    mb_error err;
    mb_error_clear(&err);
    uint64_t index = rt->launches++;
    double t0 = monotonic_ms();
    mb_status st;
    if (rt->opt.mode == MB_CUDART_PROFILE && rt_profile_selected(rt, k, index))
        st = rt_profile_launch(rt, k, &cfg, &opt, index, &stats, &err);
    else if (rt->opt.mode == MB_CUDART_SIM && rt_sim_timed(rt, k, index))
        st = rt_sim_launch(rt, k, &cfg, &opt, index, &stats, &err);
    else
        st = mb_launch(k->mod->program, rt->mem, &cfg, &opt, &stats, &err);
    double dt = monotonic_ms() - t0;
    free(params);
    int failed_asserts = rt_printf_flush(rt, k->mod);
    if (rt->opt.verbose)
        rt_warn("launch %" PRIu64 ": %s grid (%u,%u,%u) block (%u,%u,%u) shared %zu: %" PRIu64
                " thread instructions, %.3f ms",
                index, k->name, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
                stats.thread_insts, dt);
    if (st == MB_OK)
        return cudaSuccess;
    char msg[1700];
    mb_error_format(&err, msg, sizeof(msg));
    if (st != MB_ERR_FAULT) {
        rt_warn("launch %" PRIu64 " of %s failed: %s", index, k->name, msg);
        return st == MB_ERR_NOMEM ? cudaErrorMemoryAllocation : cudaErrorLaunchFailure;
    }
    /* A fault corrupts the context, as on hardware: every later call reports it. */
    rt->sticky_error = failed_asserts ? cudaErrorAssert : rt_fault_error(err.msg);
    rt_warn("kernel fault in launch %" PRIu64 ": %s", index, msg);
    return cudaSuccess;
}

/* ------------------------------------------------------------ options */

static mb_status parse_count(const char *name, const char *text, uint64_t *out, mb_error *err)
{
    char *end = NULL;
    if (!text[0] || text[0] == '-')
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: '%s' is not a count", name, text);
    unsigned long long v = strtoull(text, &end, 10);
    if (*end)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: '%s' is not a count", name, text);
    *out = v;
    return MB_OK;
}

mb_status mb_cudart_options_read(const char *(*get)(void *ctx, const char *name), void *ctx,
                                 mb_cudart_options *opt, mb_error *err)
{
    memset(opt, 0, sizeof(*opt));
    opt->launch_index = UINT64_MAX;
    opt->max_profiles = UINT64_MAX;
    struct {
#define FIELD(field, var, meaning) const char *field;
        MB_CUDART_ENV_LIST(FIELD)
#undef FIELD
    } v;
#define READ(field, var, meaning) v.field = get(ctx, var);
    MB_CUDART_ENV_LIST(READ)
#undef READ
    mb_status st = MB_OK;
    if (v.mode && v.mode[0]) {
        if (strcmp(v.mode, "run") == 0)
            opt->mode = MB_CUDART_RUN;
        else if (strcmp(v.mode, "profile") == 0)
            opt->mode = MB_CUDART_PROFILE;
        else if (strcmp(v.mode, "sim") == 0)
            opt->mode = MB_CUDART_SIM;
        else
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                "MINIBENCH_CUDART_MODE: '%s' is not run, profile or sim", v.mode);
    }
    opt->ptx = v.ptx && v.ptx[0] ? v.ptx : NULL;
    opt->output = v.output && v.output[0] ? v.output : NULL;
    opt->kernel = v.kernel && v.kernel[0] ? v.kernel : NULL;
    uint64_t n = 0;
    if (st == MB_OK && v.launch_index && v.launch_index[0])
        st = parse_count("MINIBENCH_CUDART_LAUNCH_INDEX", v.launch_index, &opt->launch_index, err);
    if (st == MB_OK && v.max_profiles && v.max_profiles[0])
        st = parse_count("MINIBENCH_CUDART_MAX_PROFILES", v.max_profiles, &opt->max_profiles, err);
    if (st == MB_OK && v.aggregate && v.aggregate[0] && (st = parse_count(
        "MINIBENCH_CUDART_AGGREGATE", v.aggregate, &n, err)) == MB_OK)
        opt->aggregate = n != 0;
    if (st == MB_OK && v.threads && v.threads[0] &&
        (st = parse_count("MINIBENCH_CUDART_THREADS", v.threads, &n, err)) == MB_OK) {
        if (n < 1 || n > 1024)
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                "MINIBENCH_CUDART_THREADS: %" PRIu64 " is not in 1..1024", n);
        opt->threads = (unsigned)n;
    }
    if (st == MB_OK && v.max_insts && v.max_insts[0])
        st = parse_count("MINIBENCH_CUDART_MAX_INSTS", v.max_insts, &opt->max_insts, err);
    if (st == MB_OK && v.verbose && v.verbose[0] &&
        (st = parse_count("MINIBENCH_CUDART_VERBOSE", v.verbose, &n, err)) == MB_OK)
        opt->verbose = n != 0;
    opt->config = v.config && v.config[0] ? v.config : NULL;
    opt->stats = v.stats && v.stats[0] ? v.stats : NULL;
    opt->stats_json = v.stats_json && v.stats_json[0] ? v.stats_json : NULL;
    if (st == MB_OK && v.fast_forward && v.fast_forward[0] &&
        (st = parse_count("MINIBENCH_CUDART_FAST_FORWARD", v.fast_forward, &n, err)) == MB_OK)
        opt->fast_forward = n != 0;
    if (st == MB_OK && opt->mode == MB_CUDART_PROFILE && !opt->output)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "MINIBENCH_CUDART_MODE=profile needs MINIBENCH_CUDART_OUTPUT (the "
                            "profile directory)");
    return st;
}

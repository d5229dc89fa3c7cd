/* Test helper: run a PTX kernel on the executor with a few buffers and
 * scalar arguments, and read the buffers back. Header-only, for tests. */
#ifndef MB_EXEC_HARNESS_H
#define MB_EXEC_HARNESS_H

#include <minibench/profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kernel argument, in parameter order: a buffer (its device address is
 * passed) or a scalar (its low bytes are passed, as many as the parameter
 * declares). */
typedef struct harness_arg {
    void *buf;          /* host copy: uploaded before, downloaded after the launch */
    size_t bytes;       /* buffer size */
    uint64_t scalar;    /* when buf is NULL */
} harness_arg;

#define HBUF(ptr, n) ((harness_arg){(ptr), (n), 0})
#define HVAL(v) ((harness_arg){NULL, 0, (uint64_t)(v)})

typedef struct harness_opts {
    mb_dim3 grid, block;
    uint32_t dynamic_shared;
    unsigned threads;
    uint64_t max_warp_insts;
    mb_exec_stats stats;  /* out */
    char message[2048];   /* out: formatted error, "" on success */
} harness_opts;

/* Parses `ptx`, runs kernel `kernel` and copies buffers back (also after a
 * fault, so tests can inspect partial results). Returns the status. */
static inline mb_status harness_run(const char *ptx, const char *kernel, harness_opts *o,
                                    harness_arg *args, unsigned nargs)
{
    mb_error err;
    mb_error_clear(&err);
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    uint8_t *params = NULL;
    mb_param_slot *slots = NULL;
    uint64_t *addrs = calloc(nargs + 1, sizeof(uint64_t));
    o->message[0] = '\0';
    memset(&o->stats, 0, sizeof(o->stats));
    mb_status st = mb_ptx_parse(ptx, strlen(ptx), "test.ptx", &m, &err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, &err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &prog, &err);
    const mb_function *fn = NULL;
    if (st == MB_OK) {
        fn = mb_module_find_function(m, kernel);
        if (!fn)
            st = mb_error_set(&err, MB_ERR_INVALID, "test.ptx", 0, 0, "no kernel %s", kernel);
        else if (fn->nparams != nargs)
            st = mb_error_set(&err, MB_ERR_INVALID, "test.ptx", 0, 0, "kernel %s takes %u params, test gives %u",
                              kernel, fn->nparams, nargs);
    }
    uint32_t total = 0;
    if (st == MB_OK) {
        slots = calloc(fn->nparams + 1, sizeof(mb_param_slot));
        st = mb_kernel_param_layout(fn, slots, &total, &err);
    }
    if (st == MB_OK) {
        params = calloc(total + 8, 1);
        for (unsigned i = 0; i < nargs && st == MB_OK; i++) {
            uint64_t v = args[i].scalar;
            if (args[i].buf) {
                char name[32];
                snprintf(name, sizeof(name), "arg%u", i);
                st = mb_memory_alloc(mem, args[i].bytes, name, &addrs[i], &err);
                if (st == MB_OK)
                    memcpy(mb_memory_host(mem, addrs[i], args[i].bytes), args[i].buf, args[i].bytes);
                v = addrs[i];
            }
            memcpy(params + slots[i].offset, &v, slots[i].size < 8 ? slots[i].size : 8);
        }
    }
    if (st == MB_OK) {
        mb_launch_config cfg = {fn, o->grid, o->block, o->dynamic_shared, params, total};
        mb_exec_options opt = {o->threads, o->max_warp_insts, 0, NULL};
        st = mb_launch(prog, mem, &cfg, &opt, &o->stats, &err);
        for (unsigned i = 0; i < nargs; i++)
            if (args[i].buf && addrs[i])
                memcpy(args[i].buf, mb_memory_host(mem, addrs[i], args[i].bytes), args[i].bytes);
    }
    if (st != MB_OK)
        mb_error_format(&err, o->message, sizeof(o->message));
    free(params);
    free(slots);
    free(addrs);
    mb_program_free(prog);
    mb_memory_free(mem);
    mb_module_free(m);
    return st;
}

/* Options for a single CTA of `threads` threads. */
static inline harness_opts harness_one_cta(uint32_t threads)
{
    harness_opts o;
    memset(&o, 0, sizeof(o));
    o.grid = (mb_dim3){1, 1, 1};
    o.block = (mb_dim3){threads, 1, 1};
    return o;
}

#endif

/* The launch's input: the buffers its pointer parameters point into, copied
 * before the launch runs, so a clone can be run on the values the original
 * read (a launch may overwrite its own input). */
#define _POSIX_C_SOURCE 200809L
#include "prof.h"
#include "prof_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int prof_input_of(const mb_profile *p, uint64_t address)
{
    for (uint32_t k = 0; k < p->ninputs; k++)
        if (address >= p->inputs[k].address && address - p->inputs[k].address < p->inputs[k].bytes)
            return (int)k;
    return -1;
}

/* The allocations the parameters point into, once each, in parameter order. */
static mb_status find_inputs(mb_profile *p, uint64_t *total, mb_error *err)
{
    const mb_function *k = p->cfg->kernel;
    mb_param_slot *slots = calloc((size_t)k->nparams + 1, sizeof(mb_param_slot));
    uint32_t layout_bytes = 0;
    p->inputs = calloc((size_t)k->nparams + 1, sizeof(mb_profile_input));
    if (!slots || !p->inputs) {
        free(slots);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    *total = 0;
    if (mb_kernel_param_layout(k, slots, &layout_bytes, NULL) != MB_OK) {
        free(slots);
        return MB_OK; /* mb_launch() reports the bad layout */
    }
    for (uint32_t i = 0; i < k->nparams; i++) {
        if (slots[i].size != 8 || k->params[i].ndims || slots[i].offset + 8 > p->cfg->param_bytes)
            continue;
        uint64_t v, size;
        const char *name;
        memcpy(&v, (const uint8_t *)p->cfg->params + slots[i].offset, 8);
        uint64_t base = mb_memory_allocation(p->mem, v, &size, &name);
        if (!base || prof_input_of(p, v) >= 0)
            continue;
        mb_profile_input *in = &p->inputs[p->ninputs++];
        in->buffer = name;
        in->address = base;
        in->bytes = size;
        *total += size;
    }
    free(slots);
    return MB_OK;
}

mb_status prof_inputs_record(mb_profile *p, mb_error *err)
{
    uint64_t total = 0;
    mb_status st = find_inputs(p, &total, err);
    if (st != MB_OK)
        return st;
    int viewable = 1;
    for (uint32_t k = 0; k < p->ninputs; k++)
        viewable &= mb_memory_host(p->mem, p->inputs[k].address, p->inputs[k].bytes) != NULL;
    if (total > MB_PROFILE_INPUT_LIMIT || !viewable) {
        /* the launch is profiled all the same; its clones get seeded bytes
         * (every allocation has a host view: the second test only guards) */
        p->inputs_omitted = total;
        p->ninputs = 0;
        return MB_OK;
    }
    for (uint32_t k = 0; k < p->ninputs; k++) {
        mb_profile_input *in = &p->inputs[k];
        const void *host = mb_memory_host(p->mem, in->address, in->bytes);
        char *name = strdup(in->buffer ? in->buffer : "");
        uint8_t *copy = malloc(in->bytes ? in->bytes : 1);
        if (!name || !copy) {
            free(name);
            free(copy);
            for (uint32_t j = 0; j < k; j++) {
                free((void *)p->inputs[j].buffer);
                free((void *)p->inputs[j].data);
            }
            p->ninputs = 0;
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
        memcpy(copy, host, in->bytes);
        in->buffer = name;
        in->data = copy;
        in->fnv1a64 = mb_fnv1a64(MB_FNV1A64_INIT, copy, in->bytes);
    }
    return MB_OK;
}

void prof_inputs_free(mb_profile *p)
{
    for (uint32_t k = 0; k < p->ninputs; k++) {
        free((void *)p->inputs[k].buffer);
        free((void *)p->inputs[k].data);
    }
    free(p->inputs);
    p->inputs = NULL;
    p->ninputs = 0;
}

uint32_t mb_profile_ninputs(const mb_profile *p)
{
    return p->ninputs;
}

const mb_profile_input *mb_profile_get_input(const mb_profile *p, uint32_t k)
{
    return k < p->ninputs ? &p->inputs[k] : NULL;
}

uint64_t mb_profile_inputs_omitted(const mb_profile *p)
{
    return p->inputs_omitted;
}

int mb_profile_inputs_warning(const mb_profile *p, const char *kernel, uint64_t n, char *buf, size_t size)
{
    if (!p->inputs_omitted)
        return 0;
    snprintf(buf, size,
             "launch %" PRIu64 " (%s): its input buffers total %" PRIu64 " bytes, over the %" PRIu64
             " MiB a profile records; clones of it get seeded bytes",
             n, kernel, p->inputs_omitted, MB_PROFILE_INPUT_LIMIT >> 20);
    return 1;
}

int mb_profile_input_file(const char *kernel, uint64_t n, uint32_t k, char *buf, size_t size)
{
    int len = snprintf(buf, size, "%s.%" PRIu64 ".input%" PRIu32 ".bin", kernel, n, k);
    return len >= 0 && (size_t)len < size;
}

mb_status mb_profile_write_inputs(const mb_profile *p, const char *dir, const char *kernel, uint64_t n,
                                  mb_error *err)
{
    for (uint32_t k = 0; k < p->ninputs; k++) {
        char name[1024], path[4096];
        if (!mb_profile_input_file(kernel, n, k, name, sizeof(name)) ||
            snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
            return mb_error_set(err, MB_ERR_INVALID, dir, 0, 0,
                                "the input file name of kernel %s is too long", kernel);
        mb_status st = mb_write_file_atomic(path, p->inputs[k].data, p->inputs[k].bytes, err);
        if (st != MB_OK)
            return st;
    }
    return MB_OK;
}

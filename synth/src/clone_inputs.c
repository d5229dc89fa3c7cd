/* The clone's input: the original's, as the profile recorded it beside
 * itself. A clone that reads the original's values draws data-dependent
 * addresses (indexed tables, PLAN_INDEX) from the same values. */
#define _XOPEN_SOURCE 700
#include "clone_ctx.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's size and FNV-1a 64, read in chunks (inputs reach hundreds of MiB). */
static mb_status checksum_file(const char *path, uint64_t *bytes, uint64_t *sum, mb_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot open the profile's input: %s",
                            strerror(errno));
    unsigned char chunk[1 << 16];
    size_t got;
    *bytes = 0;
    *sum = MB_FNV1A64_INIT;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        *sum = mb_fnv1a64(*sum, chunk, got);
        *bytes += got;
    }
    int failed = ferror(fp);
    fclose(fp);
    if (failed)
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot read the profile's input");
    return MB_OK;
}

mb_status cx_model_inputs(ctx *c)
{
    const mb_sprof *p = c->p;
    mb_clone_model *m = c->m;
    m->inputs = mb_arena_alloc(c->A, (p->ninputs + 1) * sizeof(*m->inputs));
    if (!m->inputs)
        return cx_nomem(c);
    for (size_t k = 0; k < p->ninputs; k++) {
        const mb_sprof_input *in = &p->inputs[k];
        if (!in->path)
            return MB_OK; /* parsed from text: nothing beside it to read */
        uint64_t bytes, sum;
        mb_status st = checksum_file(in->path, &bytes, &sum, c->err);
        if (st != MB_OK)
            return st;
        if (bytes != in->bytes || sum != in->fnv1a64)
            return mb_error_set(c->err, MB_ERR_INVALID, in->path, 0, 0,
                                "%" PRIu64 " bytes with FNV-1a 0x%016" PRIx64 ", but the profile "
                                "lists buffer '%s' as %" PRIu64 " bytes with 0x%016" PRIx64
                                " (a file from another profile?)",
                                bytes, sum, in->buffer, in->bytes, in->fnv1a64);
        char *abs = realpath(in->path, NULL);
        if (!abs)
            return mb_error_set(c->err, MB_ERR_IO, in->path, 0, 0, "cannot resolve the path: %s",
                                strerror(errno));
        char file[48];
        snprintf(file, sizeof file, "input%zu.bin", k);
        mb_clone_input *out = &m->inputs[k];
        out->buffer = mb_arena_strdup(c->A, in->buffer);
        out->file = mb_arena_strdup(c->A, file);
        out->source = mb_arena_strdup(c->A, abs);
        out->bytes = in->bytes;
        out->fnv1a64 = in->fnv1a64;
        free(abs);
        if (!out->buffer || !out->file || !out->source)
            return cx_nomem(c);
    }
    m->ninputs = p->ninputs;
    for (size_t i = 0; i < p->nparams; i++)
        if (p->params[i].input)
            m->params[i].input = &m->inputs[p->params[i].input - p->inputs];
    return MB_OK;
}

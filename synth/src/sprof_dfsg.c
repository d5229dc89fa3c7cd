/* Loading a profile from disk and checking it against its DFSG. */
#include "synth_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Profiles are small; refuse absurd files rather than exhausting memory. */
#define MB_PROFILE_MAX_BYTES (UINT64_C(256) << 20)

mb_status mb_sprof_check_dfsg(const mb_sprof *p, const mb_dfsg_graph *g, const char *name,
                              mb_error *err)
{
    const mb_sprof_func *f = mb_sprof_kernel(p);
    if (g->nnodes != f->nblocks)
        return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                            "the DFSG has %zu kernel blocks but the profile JSON has %zu",
                            g->nnodes, f->nblocks);
    for (size_t i = 0; i < g->nnodes; i++) {
        const mb_dfsg_node *n = &g->nodes[i];
        if (n->block < 0 || (size_t)n->block >= f->nblocks)
            return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                                "node '%s': block %d is not in the profile", n->name, n->block);
        const mb_sprof_block *b = &f->blocks[n->block];
        if (strcmp(n->name, b->name) != 0 || n->ecount != b->ecount || n->lcount != b->lcount ||
            n->scount != b->scount || n->loop != b->loop)
            return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                                "node '%s' (block %d) disagrees with the profile JSON (name, "
                                "ECount, LCount, SCount or loop)",
                                n->name, n->block);
        size_t len = 0;
        for (size_t k = 0; k < b->nchain; k++)
            len += strlen(b->chain[k]) + (k > 0);
        int same = strlen(n->chain) == len;
        const char *c = n->chain;
        for (size_t k = 0; same && k < b->nchain; k++) {
            size_t l = strlen(b->chain[k]);
            same = strncmp(c, b->chain[k], l) == 0;
            c += l + (k + 1 < b->nchain);
        }
        if (!same)
            return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                                "node '%s': its opcode chain differs from the profile JSON", n->name);
    }
    for (size_t i = 0; i < g->nedges; i++) {
        const mb_dfsg_edge *e = &g->edges[i];
        int found = 0;
        for (size_t k = 0; k < f->nedges && !found; k++) {
            const mb_sprof_edge *q = &f->edges[k];
            if (q->from == e->from && q->to == e->to) {
                found = 1;
                if (q->count != e->count || q->threads != e->threads)
                    return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                                        "edge %d -> %d: counts %llu/%llu in the DFSG, %llu/%llu in "
                                        "the profile JSON",
                                        e->from, e->to, (unsigned long long)e->count,
                                        (unsigned long long)e->threads,
                                        (unsigned long long)q->count,
                                        (unsigned long long)q->threads);
            }
        }
        if (!found)
            return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                                "edge %d -> %d is in the DFSG but not in the profile JSON", e->from,
                                e->to);
    }
    if (g->nedges != f->nedges)
        return mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                            "the DFSG has %zu edges but the profile JSON has %zu", g->nedges,
                            f->nedges);
    return MB_OK;
}

static char *with_suffix(const char *prefix, size_t len, const char *suffix)
{
    size_t sl = strlen(suffix);
    char *s = malloc(len + sl + 1);
    if (s) {
        memcpy(s, prefix, len);
        memcpy(s + len, suffix, sl + 1);
    }
    return s;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t sl = strlen(suffix);
    return len >= sl && memcmp(s + len - sl, suffix, sl) == 0;
}

mb_status mb_sprof_load(const char *prefix, mb_sprof **out, mb_error *err)
{
    *out = NULL;
    size_t len = strlen(prefix);
    while (len > 1 && prefix[len - 1] == '/')
        len--;
    if (ends_with(prefix, len, ".profile.json"))
        len -= strlen(".profile.json");
    else if (ends_with(prefix, len, ".dfsg.dot"))
        len -= strlen(".dfsg.dot");
    char *json_path = with_suffix(prefix, len, ".profile.json");
    char *dot_path = with_suffix(prefix, len, ".dfsg.dot");
    char *json_text = NULL, *dot_text = NULL;
    size_t json_len = 0, dot_len = 0;
    mb_sprof *p = NULL;
    mb_dfsg_graph *g = NULL;
    mb_status st = json_path && dot_path ? MB_OK
                                         : mb_error_set(err, MB_ERR_NOMEM, prefix, 0, 0, "out of memory");
    if (st == MB_OK)
        st = mb_read_file(json_path, MB_PROFILE_MAX_BYTES, &json_text, &json_len, err);
    if (st == MB_OK)
        st = mb_sprof_parse_json(json_text, json_len, json_path, &p, err);
    if (st == MB_OK)
        st = mb_read_file(dot_path, MB_PROFILE_MAX_BYTES, &dot_text, &dot_len, err);
    if (st == MB_OK)
        st = mb_dfsg_read_dot(dot_text, dot_len, dot_path, &g, err);
    if (st == MB_OK)
        st = mb_sprof_check_dfsg(p, g, dot_path, err);
    if (st == MB_OK) {
        char *path = mb_arena_strndup(p->arena, prefix, len);
        if (path)
            p->path = path;
        else
            st = mb_error_set(err, MB_ERR_NOMEM, prefix, 0, 0, "out of memory");
    }
    for (size_t k = 0; st == MB_OK && k < p->ninputs; k++) {
        /* beside the profile, as the profiler names it (mb_profile_input_file) */
        size_t n = len + 32;
        char *in = mb_arena_alloc(p->arena, n);
        if (in)
            snprintf(in, n, "%s.input%zu.bin", p->path, k);
        else
            st = mb_error_set(err, MB_ERR_NOMEM, prefix, 0, 0, "out of memory");
        p->inputs[k].path = in;
    }
    mb_dfsg_graph_free(g);
    free(json_text);
    free(dot_text);
    free(json_path);
    free(dot_path);
    if (st != MB_OK) {
        mb_sprof_free(p);
        return st;
    }
    *out = p;
    return MB_OK;
}

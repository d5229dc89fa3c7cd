/* launch.json, Makefile, README.md and the clone directory. */
#define _POSIX_C_SOURCE 200809L
#include "emit_internal.h"

#include <minibench/inspect.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

mb_status mb_emit_launch(const mb_clone_model *m, mb_emit_inputs where, mb_buf *out, mb_error *err)
{
    json_t *root = json_object(), *buffers = json_object(), *launches = json_array(),
           *launch = json_object(), *args = json_array();
    char red[32];
    emit_reduction(m, red, sizeof red);
    char desc[512];
    snprintf(desc, sizeof desc, "clone of %s (reduction %s, seed %" PRIu64 ")", m->kernel, red,
             m->seed);
    json_object_set_new(root, "description", json_string(desc));
    for (size_t i = 0; i < m->nparams; i++) {
        const mb_clone_param *p = &m->params[i];
        if (p->is_pointer) {
            const char *path = !p->input ? NULL
                               : where == MB_INPUTS_AT_PROFILE ? p->input->source
                                                               : p->input->file;
            /* the input file where the profile recorded one, seeded bytes otherwise */
            json_t *init = path ? json_pack("{s:s, s:s}", "kind", "file", "path", path)
                                : json_pack("{s:s, s:i, s:i, s:i}", "kind", "random", "seed",
                                            (int)(m->seed % 1000000 + 1), "min", 0, "max", 255);
            if (!json_object_get(buffers, p->buffer))
                json_object_set_new(buffers, p->buffer,
                                    json_pack("{s:s, s:I, s:o}", "type", "b8", "bytes",
                                              (json_int_t)p->buffer_bytes, "init", init));
            else
                json_decref(init);
            json_array_append_new(args, p->offset ? json_pack("{s:s, s:I}", "buffer", p->buffer,
                                                              "offset", (json_int_t)p->offset)
                                                  : json_string(p->buffer));
        } else {
            json_t *v = p->value ? json_loads(p->value, JSON_DECODE_ANY, NULL) : NULL;
            if (!v)
                v = json_integer(0);
            if (p->bytes > 8 || !strcmp(p->type, "b8")) {
                json_t *bytes = json_array();
                for (uint32_t k = 0; k < p->bytes; k++)
                    json_array_append_new(bytes, json_integer(0));
                json_decref(v);
                v = json_pack("{s:o}", "bytes", bytes);
            }
            json_array_append_new(args, v);
        }
    }
    json_object_set_new(launch, "kernel", json_string(m->kernel));
    json_object_set_new(launch, "grid", json_pack("[I,I,I]", (json_int_t)m->grid[0],
                                                  (json_int_t)m->grid[1], (json_int_t)m->grid[2]));
    json_object_set_new(launch, "block", json_pack("[I,I,I]", (json_int_t)m->block[0],
                                                   (json_int_t)m->block[1], (json_int_t)m->block[2]));
    if (m->dynamic_shared)
        json_object_set_new(launch, "dynamic_shared", json_integer((json_int_t)m->dynamic_shared));
    json_object_set_new(launch, "args", args);
    json_array_append_new(launches, launch);
    json_object_set_new(root, "buffers", buffers);
    json_object_set_new(root, "launches", launches);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return mb_error_set(err, MB_ERR_NOMEM, "launch.json", 0, 0, "out of memory");
    mb_buf_puts(out, s);
    mb_buf_putc(out, '\n');
    free(s);
    return out->failed ? mb_error_set(err, MB_ERR_NOMEM, "launch.json", 0, 0, "out of memory") : MB_OK;
}

mb_status mb_emit_makefile(const mb_clone_model *m, mb_buf *out, mb_error *err)
{
    emit_vars v;
    memset(&v, 0, sizeof(v));
    mb_status st = emit_fill(m, "Makefile", &v, out, err);
    emit_vars_free(&v);
    return st;
}

static void readme_cases(const mb_clone_model *m, const char *prefix, mb_buf *cases)
{
    for (size_t i = 0; i < m->nbranches; i++) {
        const mb_clone_branch *b = &m->branches[i];
        mb_buf_printf(cases, "| %s%d | %d | %s | %s", prefix, b->block, b->line,
                      mb_clone_case_name(b->kind), mb_clone_rule_name(b->rule));
        if (b->rule == MB_RULE_KEY)
            mb_buf_printf(cases, " (lane period %u%s, threshold %u%s)", b->lane_period,
                          b->reversed ? " bit-reversed" : "", b->threshold,
                          b->halving ? " halved every iteration" : "");
        if (b->rule == MB_RULE_BOX)
            mb_buf_printf(cases, " (X %u, Y %u)", b->box_x, b->box_y);
        if ((b->rule == MB_RULE_LOOP_BACK || b->rule == MB_RULE_LOOP_EXIT) && b->loop >= 0 &&
            (size_t)b->loop < m->nloops && m->loops[b->loop].stairs) {
            const mb_clone_loop *l = &m->loops[b->loop];
            char warps[48];
            if (l->lane_period > 1)
                snprintf(warps, sizeof warps, "one warp in %u", l->lane_period);
            else
                snprintf(warps, sizeof warps, "every warp");
            uint32_t width = 1u << l->stair_shift, lanes = l->stairs * width;
            if (lanes == 1)
                mb_buf_printf(cases, " (stairs: lane 0 of %s runs an iteration more)", warps);
            else if (l->stairs == 1)
                mb_buf_printf(cases, " (stairs: lanes 0 to %u of %s run an iteration more)", lanes - 1, warps);
            else
                mb_buf_printf(cases, " (stairs: lanes 0 to %u of %s run %u to 1 iterations more, %u lane%s a step)",
                              lanes - 1, warps, l->stairs, width, width > 1 ? "s" : "");
        }
        if ((b->rule == MB_RULE_LOOP_BACK || b->rule == MB_RULE_LOOP_EXIT) && b->loop >= 0 &&
            (size_t)b->loop < m->nloops && m->loops[b->loop].cycle && m->loops[b->loop].cycle_bits) {
            const mb_clone_loop *l = &m->loops[b->loop];
            mb_buf_printf(cases, " (trips by thread index mod %u:", l->cycle);
            for (uint32_t at = 0; at < l->cycle; at++)
                mb_buf_printf(cases, " %u", mb_clone_cycle_trip(l, at));
            mb_buf_puts(cases, ")");
        }
        if (b->rule == MB_RULE_COMPARE) {
            mb_buf_puts(cases, ": `");
            mb_cond_format(b->cond, cases);
            mb_buf_putc(cases, '`');
        }
        mb_buf_puts(cases, " |\n");
    }
}

mb_status mb_emit_readme(const mb_clone_model *m, mb_buf *out, mb_error *err)
{
    emit_vars v;
    memset(&v, 0, sizeof(v));
    char insts[32], orig[32], chain[32], synth[32], dropped[32];
    snprintf(insts, sizeof insts, "%" PRIu64, m->expected_thread_insts);
    snprintf(orig, sizeof orig, "%" PRIu64, m->original_thread_insts);
    snprintf(chain, sizeof chain, "%zu", m->chain_insns);
    snprintf(synth, sizeof synth, "%zu", m->synthetic_insns);
    snprintf(dropped, sizeof dropped, "%zu", m->dropped_fillers);
    emit_var(&v, "EXPECTED_INSTS", insts);
    emit_var(&v, "ORIGINAL_INSTS", orig);
    emit_var(&v, "CHAIN_INSNS", chain);
    emit_var(&v, "SYNTHETIC_INSNS", synth);
    emit_var(&v, "DROPPED_FILLERS", dropped);
    mb_buf *inputs = emit_var_buf(&v, "INPUTS");
    for (size_t k = 0; k < m->ninputs; k++)
        mb_buf_printf(inputs, "- `%s`: the original's input for buffer '%s' (%" PRIu64 " bytes, FNV-1a 64 0x%016" PRIx64
                              "), as it was when the original was launched; launch.json and clone.cu load it.\n",
                      m->inputs[k].file, m->inputs[k].buffer, m->inputs[k].bytes, m->inputs[k].fnv1a64);
    for (size_t i = 0; i < m->nparams; i++)
        if (m->params[i].is_pointer && !m->params[i].input) {
            mb_buf_puts(inputs, "- The profile recorded no input for some buffers: they hold seeded bytes "
                                "(0 to 255), so values the original read from them are not the clone's.\n");
            break;
        }
    for (size_t k = 0; k < m->nwindows; k++)
        mb_buf_printf(inputs,
                      "- The load at line %d reads buffer '%s' %" PRIu64 " bytes (%" PRIu64 " lines of 128) further on "
                      "than the original's threads did at the same iterations: the values there give the shared "
                      "accesses they index bank conflicts within %.2f%% (total variation) of the original's, "
                      "where the first values the fewer iterations reach would not.\n",
                      m->windows[k].line, m->windows[k].buffer, m->windows[k].shift, m->windows[k].shift / 128,
                      100 * m->windows[k].tv);
    mb_buf *blocks = emit_var_buf(&v, "EXPECTED_BLOCKS");
    mb_buf_puts(blocks, "| block | label | expected ECount |\n|---|---|---|\n");
    mb_buf *cases = emit_var_buf(&v, "BRANCH_CASES");
    mb_buf_puts(cases, "| block | original line | case | rule |\n|---|---|---|---|\n");
    /* the kernel's, then each called function's, named function:block as the DFSG does */
    for (size_t f = 0; f <= m->nfuncs; f++) {
        const mb_clone_model *fm = f ? &m->funcs[f - 1] : m;
        char prefix[300] = "";
        if (f)
            snprintf(prefix, sizeof prefix, "%s:", fm->kernel);
        for (size_t k = 0; k < fm->nblocks; k++)
            mb_buf_printf(blocks, "| %s%zu | `%s` | %.0f |\n", prefix, k, fm->blocks[k].label,
                          fm->expected_ecount[k]);
        readme_cases(fm, prefix, cases);
    }
    mb_status st = emit_fill(m, "README.md", &v, out, err);
    emit_vars_free(&v);
    return st;
}

/* mkdir -p: each missing component in turn */
static mb_status ensure_dir(const char *dir, mb_error *err)
{
    size_t n = strlen(dir);
    char *path = malloc(n + 1);
    if (!path)
        return mb_error_set(err, MB_ERR_NOMEM, dir, 0, 0, "out of memory");
    memcpy(path, dir, n + 1);
    int ok = 1;
    for (size_t i = 1; i <= n && ok; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            ok = 0;
        path[i] = saved;
    }
    free(path);
    struct stat sb;
    if (ok && stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
        return MB_OK;
    return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot create the output directory: %s",
                        strerror(errno ? errno : ENOTDIR));
}

/* dir/name, malloc'd (NULL when out of memory) */
static char *in_dir(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s", dir, name);
    return path;
}

/* Copies input k from the profile to dir/input<k>.bin, checking that the
 * bytes are still the ones the model was built from. */
static mb_status copy_input(const mb_clone_input *in, const char *dir, mb_error *err)
{
    char *path = in_dir(dir, in->file);
    if (!path)
        return mb_error_set(err, MB_ERR_NOMEM, dir, 0, 0, "out of memory");
    FILE *src = fopen(in->source, "rb");
    mb_atomic_file af;
    mb_status st = src ? mb_atomic_open(&af, path, err)
                       : mb_error_set(err, MB_ERR_IO, in->source, 0, 0, "cannot open: %s", strerror(errno));
    if (st == MB_OK) {
        unsigned char chunk[1 << 16];
        size_t got;
        uint64_t bytes = 0, sum = MB_FNV1A64_INIT;
        while ((got = fread(chunk, 1, sizeof chunk, src)) > 0 && fwrite(chunk, 1, got, af.fp) == got) {
            sum = mb_fnv1a64(sum, chunk, got);
            bytes += got;
        }
        if (ferror(src) || ferror(af.fp))
            st = mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot copy the input from %s", in->source);
        else if (bytes != in->bytes || sum != in->fnv1a64)
            st = mb_error_set(err, MB_ERR_INVALID, in->source, 0, 0,
                              "changed since the clone was built (%" PRIu64 " bytes, expected %" PRIu64
                              " with FNV-1a 0x%016" PRIx64 ")",
                              bytes, in->bytes, in->fnv1a64);
        if (st == MB_OK)
            st = mb_atomic_commit(&af, err);
        else
            mb_atomic_abort(&af);
    }
    if (src)
        fclose(src);
    free(path);
    return st;
}

/* An input<k>.bin of an earlier clone written to dir whose k is not one of
 * this clone's inputs: launch.json would not read it, but a user copying
 * the directory would take it for the clone's data. */
static mb_status remove_stale_inputs(const mb_clone_model *m, const char *dir, mb_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot list the output directory: %s", strerror(errno));
    mb_status st = MB_OK;
    struct dirent *e;
    while (st == MB_OK && (e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strncmp(name, "input", 5) != 0)
            continue;
        const char *digits = name + 5;
        size_t n = strspn(digits, "0123456789");
        if (n == 0 || n > 9 || strcmp(digits + n, ".bin") != 0)
            continue;
        if (strtoul(digits, NULL, 10) < m->ninputs)
            continue;
        char *path = in_dir(dir, name);
        if (!path)
            st = mb_error_set(err, MB_ERR_NOMEM, dir, 0, 0, "out of memory");
        else if (remove(path) != 0 && errno != ENOENT)
            st = mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot remove an earlier clone's input: %s",
                              strerror(errno));
        free(path);
    }
    closedir(d);
    return st;
}

mb_status mb_emit_clone_dir(const mb_clone_model *m, const char *dir, mb_error *err)
{
    static const char *const names[] = {"clone.ptx", "clone.cu", "launch.json", "Makefile",
                                        "README.md"};
    mb_buf text[5] = {MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT};
    mb_status st = mb_emit_ptx(m, &text[0], err);
    if (st == MB_OK)
        st = mb_emit_cuda(m, &text[1], err);
    if (st == MB_OK)
        st = mb_cuda_check_syntax("clone.cu", text[1].data, text[1].len, err);
    if (st == MB_OK)
        st = mb_emit_launch(m, MB_INPUTS_IN_CLONE_DIR, &text[2], err);
    if (st == MB_OK)
        st = mb_emit_makefile(m, &text[3], err);
    if (st == MB_OK)
        st = mb_emit_readme(m, &text[4], err);
    if (st == MB_OK)
        st = ensure_dir(dir, err);
    size_t copied = 0;
    while (st == MB_OK && copied < m->ninputs && (st = copy_input(&m->inputs[copied], dir, err)) == MB_OK)
        copied++;
    for (int i = 0; i < 5 && st == MB_OK; i++) {
        char *path = in_dir(dir, names[i]);
        st = path ? mb_write_file_atomic(path, text[i].data ? text[i].data : "", text[i].len, err)
                  : mb_error_set(err, MB_ERR_NOMEM, dir, 0, 0, "out of memory");
        free(path);
    }
    for (int i = 0; i < 5; i++)
        mb_buf_free(&text[i]);
    /* no half-made clone: the inputs copied go when the rest failed */
    for (size_t k = 0; st != MB_OK && k < copied; k++) {
        char *path = in_dir(dir, m->inputs[k].file);
        if (path)
            remove(path);
        free(path);
    }
    /* the clone is whole by now: a stale file that stays is reported, not undone */
    return st == MB_OK ? remove_stale_inputs(m, dir, err) : st;
}

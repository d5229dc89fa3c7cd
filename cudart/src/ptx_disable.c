/*
 * Loading a module whose PTX uses an instruction the executor does not
 * implement. The executor decodes every function of a module, so one
 * tensor-core kernel the program never launches would make all its kernels
 * unavailable. Instead the runtime replaces the body of each function that
 * fails to decode with a trap and remembers why: the other kernels run, and
 * launching a disabled kernel fails with that reason.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_DISABLED = 256 };

/* Offset of the start of 1-based `line` in text, or len. */
static size_t line_offset(const char *text, size_t len, int line)
{
    size_t off = 0;
    for (int l = 1; l < line && off < len; off++)
        if (text[off] == '\n')
            l++;
    return off;
}

/* The [open, close] offsets of the body braces of the function whose header
 * starts at `from`: the first '{' after it and its match (comments skipped). */
static int body_span(const char *text, size_t len, size_t from, size_t *open, size_t *close)
{
    int depth = 0;
    for (size_t i = from; i < len; i++) {
        if (text[i] == '/' && i + 1 < len && text[i + 1] == '/') {
            while (i < len && text[i] != '\n')
                i++;
            continue;
        }
        if (text[i] == '/' && i + 1 < len && text[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'))
                i++;
            i++;
            continue;
        }
        if (text[i] == ';' && depth == 0)
            return 0; /* a prototype: no body */
        if (text[i] == '{') {
            if (depth++ == 0)
                *open = i;
        } else if (text[i] == '}' && depth > 0 && --depth == 0) {
            *close = i;
            return 1;
        }
    }
    return 0;
}

/* The function an executor message names ("... in function 'F'"), copied into buf. */
static int named_function(const char *msg, char *buf, size_t size)
{
    const char *p = strstr(msg, "in function '");
    if (!p)
        return 0;
    p += strlen("in function '");
    const char *q = strchr(p, '\'');
    if (!q || (size_t)(q - p) >= size)
        return 0;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    return 1;
}

mb_status rt_ptx_load_tolerant(mb_rt *rt, rt_module *mod, const char *text, size_t len,
                               const char *name, mb_error *err)
{
    char *work = NULL;
    mb_status st = MB_OK;
    for (int round = 0; round <= MAX_DISABLED; round++) {
        st = mb_ptx_parse(text, len, name, &mod->module, err);
        if (st == MB_OK)
            st = mb_program_new(mod->module, rt->mem, &mod->program, err);
        if (st == MB_OK)
            break;
        char fname[512];
        const mb_function *fn = NULL;
        if (st == MB_ERR_UNSUPPORTED && mod->module && named_function(err->msg, fname, sizeof(fname)))
            fn = mb_module_find_function(mod->module, fname);
        size_t open = 0, close = 0;
        int ok = fn && fn->has_body && fn->line > 0 &&
                 body_span(text, len, line_offset(text, len, fn->line), &open, &close);
        if (!ok)
            break;
        /* Keep the reason, then retry with the function's body a trap. */
        char reason[1700];
        mb_error_format(err, reason, sizeof(reason));
        rt_disabled *d = NULL;
        if (MB_GROW(mod->disabled, mod->cap_disabled, mod->ndisabled + 1) == MB_OK) {
            d = &mod->disabled[mod->ndisabled++];
            d->name = strdup(fname);
            d->reason = strdup(reason);
        }
        if (!d || !d->name || !d->reason) {
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            break;
        }
        if (rt->opt.verbose)
            rt_warn("%s cannot run on minibench (%s); the rest of the module can", fname, reason);
        static const char trap_body[] = "{\n\ttrap;\n}";
        size_t n = open + sizeof(trap_body) - 1 + (len - close - 1);
        char *next = malloc(n + 1);
        if (!next) {
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            break;
        }
        memcpy(next, text, open);
        memcpy(next + open, trap_body, sizeof(trap_body) - 1);
        memcpy(next + open + sizeof(trap_body) - 1, text + close + 1, len - close - 1);
        next[n] = '\0';
        free(work);
        work = next;
        text = work;
        len = n;
        mb_program_free(mod->program);
        mb_module_free(mod->module);
        mod->program = NULL;
        mod->module = NULL;
    }
    free(work);
    return st;
}

const char *rt_disabled_reason(const rt_module *mod, const char *name)
{
    for (size_t i = 0; i < mod->ndisabled; i++)
        if (strcmp(mod->disabled[i].name, name) == 0)
            return mod->disabled[i].reason;
    return NULL;
}

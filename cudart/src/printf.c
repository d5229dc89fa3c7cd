/*
 * Device-side printf. nvcc turns printf into a call of the external
 * function vprintf(format, args), `args` pointing at the arguments packed in
 * the thread's local memory, each aligned to its size. The executor runs
 * PTX only, so the runtime gives each module a PTX vprintf: it appends
 * (format, argument bytes) to a FIFO in device memory, as the hardware's
 * printf buffer does, and the runtime prints the records after the launch.
 *
 * The argument bytes' length is not passed to vprintf; it follows from the
 * format. The format strings are the module's `$str` constants, so the
 * runtime parses each one here and the generated vprintf picks the length
 * by comparing the format pointer with each string's address.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FIFO_BYTES = 1 << 20, RECORD_HEADER = 16 };
#define FIFO_VAR "__minibench_printf_fifo"
#define HEAD_VAR "__minibench_printf_head"

/* A failed assert() is a record whose format pointer is this tag, holding the
 * message, file, line, function and the thread's block and thread indices;
 * then the thread traps, as on hardware, and the launch fails with cudaErrorAssert. */
enum { ASSERT_TAG = 1, ASSERT_ARGS = 56 };
static const char ASSERT_PTX[] =
    "// minibench: assert() records its failure in the printf FIFO, then traps\n"
    ".func __assertfail(.param .b64 __assertfail_param_0, .param .b64 __assertfail_param_1, "
    ".param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, "
    ".param .b64 __assertfail_param_4)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<12>;\n"
    "\tmov.u64 %rd1, 72;\n"
    "\tatom.global.add.u64 %rd2, [" HEAD_VAR "], %rd1;\n"
    "\tadd.u64 %rd3, %rd2, %rd1;\n\tsetp.gt.u64 %p1, %rd3, 1048576;\n"
    "\t@%p1 bra $MB_TRAP;\n"
    "\tmov.u64 %rd4, " FIFO_VAR ";\n\tadd.u64 %rd5, %rd4, %rd2;\n"
    "\tmov.u64 %rd6, 1;\n\tst.global.u64 [%rd5], %rd6;\n"
    "\tmov.u64 %rd6, 56;\n\tst.global.u64 [%rd5+8], %rd6;\n"
    "\tld.param.u64 %rd7, [__assertfail_param_0];\n\tst.global.u64 [%rd5+16], %rd7;\n"
    "\tld.param.u64 %rd8, [__assertfail_param_1];\n\tst.global.u64 [%rd5+24], %rd8;\n"
    "\tld.param.u32 %r1, [__assertfail_param_2];\n\tst.global.u32 [%rd5+32], %r1;\n"
    "\tld.param.u64 %rd9, [__assertfail_param_3];\n\tst.global.u64 [%rd5+40], %rd9;\n"
    "\tmov.u32 %r2, %ctaid.x;\n\tst.global.u32 [%rd5+48], %r2;\n"
    "\tmov.u32 %r3, %ctaid.y;\n\tst.global.u32 [%rd5+52], %r3;\n"
    "\tmov.u32 %r4, %ctaid.z;\n\tst.global.u32 [%rd5+56], %r4;\n"
    "\tmov.u32 %r5, %tid.x;\n\tst.global.u32 [%rd5+60], %r5;\n"
    "\tmov.u32 %r6, %tid.y;\n\tst.global.u32 [%rd5+64], %r6;\n"
    "\tmov.u32 %r7, %tid.z;\n\tst.global.u32 [%rd5+68], %r7;\n"
    "$MB_TRAP:\n\ttrap;\n\tret;\n}\n";
_Static_assert(RECORD_HEADER + ASSERT_ARGS == 72, "assert record size");

/* One conversion of a format: its argument size (0 for %%), or -1 when malformed. */
typedef struct conversion {
    const char *start; /* the '%' */
    size_t len;        /* through the conversion character */
    int star_width, star_precision;
    int arg_bytes;     /* 4 or 8; 0 for %% */
    char kind;         /* 'i' integer, 'f' floating, 's' string, 'p' pointer, 'c', '%' */
} conversion;

/* Parses the conversion at s ('%'); returns 0 when it is not one printf knows. */
static int parse_conversion(const char *s, conversion *c)
{
    memset(c, 0, sizeof(*c));
    c->start = s;
    const char *p = s + 1;
    while (*p && strchr("-+ #0", *p))
        p++;
    if (*p == '*') {
        c->star_width = 1;
        p++;
    } else {
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == '.') {
        p++;
        if (*p == '*') {
            c->star_precision = 1;
            p++;
        } else {
            while (*p >= '0' && *p <= '9')
                p++;
        }
    }
    int longs = 0, wide = 0;
    while (*p && strchr("hlLqjzt", *p)) {
        if (*p == 'l' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'L')
            longs++;
        if (*p == 'j' || *p == 'z' || *p == 't' || *p == 'q')
            wide = 1;
        p++;
    }
    char conv = *p;
    if (!conv)
        return 0;
    c->len = (size_t)(p - s) + 1;
    switch (conv) {
    case '%': c->kind = '%'; c->arg_bytes = 0; return 1;
    case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
        c->kind = 'i';
        c->arg_bytes = longs || wide ? 8 : 4;
        return 1;
    case 'c': c->kind = 'c'; c->arg_bytes = 4; return 1;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        c->kind = 'f';
        c->arg_bytes = 8;
        return 1;
    case 's': c->kind = 's'; c->arg_bytes = 8; return 1;
    case 'p': c->kind = 'p'; c->arg_bytes = 8; return 1;
    default: return 0;
    }
}

/* Bytes of packed arguments a format needs. */
static size_t args_bytes(const char *fmt)
{
    size_t off = 0;
    for (const char *s = fmt; *s; s++) {
        if (*s != '%')
            continue;
        conversion c;
        if (!parse_conversion(s, &c))
            break;
        off = (off + 3) / 4 * 4 + 4 * (size_t)(c.star_width + c.star_precision);
        if (c.arg_bytes)
            off = (off + (size_t)c.arg_bytes - 1) / (size_t)c.arg_bytes * (size_t)c.arg_bytes +
                  (size_t)c.arg_bytes;
        s += c.len - 1;
    }
    return off;
}

/* The text of a module variable's initialiser as a C string (NULL unless bytes). */
static char *var_string(const mb_var *v)
{
    if (!v->init || v->ninit == 0 || mb_type_size(v->type) != 1)
        return NULL;
    char *s = malloc(v->ninit + 1);
    if (!s)
        return NULL;
    for (uint32_t i = 0; i < v->ninit; i++)
        s[i] = (char)v->init[i].bits;
    s[v->ninit] = '\0';
    return s;
}

mb_status rt_printf_augment(const char *ptx, size_t len, const char *name, char **out,
                            size_t *out_len, mb_error *err)
{
    *out = NULL;
    *out_len = 0;
    mb_module *m = NULL;
    mb_status st = mb_ptx_parse(ptx, len, name, &m, err);
    if (st != MB_OK)
        return st;
    const mb_function *vp = mb_module_find_function(m, "vprintf");
    const mb_function *af = mb_module_find_function(m, "__assertfail");
    int with_printf = vp && !vp->has_body && vp->nparams == 2 && vp->nrets == 1;
    int with_assert = af && !af->has_body && af->nparams == 5;
    if (!with_printf && !with_assert) {
        mb_module_free(m);
        return MB_OK;
    }
    mb_buf b = MB_BUF_INIT;
    /* The extern declarations become plain prototypes of the definitions appended below. */
    const char *at = ptx;
    for (const char *d = strstr(ptx, ".extern .func"); d; d = strstr(d + 1, ".extern .func")) {
        const char *semi = strchr(d, ';');
        const char *vpn = strstr(d, "vprintf"), *afn = strstr(d, "__assertfail");
        if (!semi || !((with_printf && vpn && vpn < semi) || (with_assert && afn && afn < semi)))
            continue;
        mb_buf_append(&b, at, (size_t)(d - at));
        at = d + strlen(".extern ");
    }
    mb_buf_append(&b, at, len - (size_t)(at - ptx));
    mb_buf_printf(&b,
                  "\n// minibench: device printf into a FIFO the runtime prints after each launch\n"
                  ".global .align 8 .b8 " FIFO_VAR "[%d];\n"
                  ".global .align 8 .u64 " HEAD_VAR ";\n"
                  ".func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, "
                  ".param .b64 vprintf_param_1)\n{\n"
                  "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<3>;\n\t.reg .b64 %%rd<16>;\n"
                  "\tld.param.u64 %%rd1, [vprintf_param_0];\n"
                  "\tld.param.u64 %%rd2, [vprintf_param_1];\n"
                  "\tmov.u64 %%rd3, 0;\n",
                  FIFO_BYTES);
    for (uint32_t i = 0; i < m->nvars; i++) {
        const mb_var *v = &m->vars[i];
        if (strncmp(v->name, "$str", 4) != 0 || v->space != MB_SPACE_GLOBAL)
            continue;
        char *fmt = var_string(v);
        if (!fmt)
            continue;
        mb_buf_printf(&b,
                      "\tmov.u64 %%rd4, %s;\n\tsetp.eq.u64 %%p1, %%rd1, %%rd4;\n"
                      "\t@%%p1 mov.u64 %%rd3, %zu;\n",
                      v->name, args_bytes(fmt));
        free(fmt);
    }
    mb_buf_printf(&b,
                  "\tadd.u64 %%rd5, %%rd3, %d;\n\tand.b64 %%rd5, %%rd5, -8;\n"
                  "\tatom.global.add.u64 %%rd6, [" HEAD_VAR "], %%rd5;\n"
                  "\tadd.u64 %%rd7, %%rd6, %%rd5;\n\tsetp.gt.u64 %%p2, %%rd7, %d;\n"
                  "\t@%%p2 bra $MB_DONE;\n"
                  "\tmov.u64 %%rd8, " FIFO_VAR ";\n\tadd.u64 %%rd9, %%rd8, %%rd6;\n"
                  "\tst.global.u64 [%%rd9], %%rd1;\n\tst.global.u64 [%%rd9+8], %%rd3;\n"
                  "\tmov.u64 %%rd10, 0;\n"
                  "$MB_COPY:\n\tsetp.ge.u64 %%p3, %%rd10, %%rd3;\n\t@%%p3 bra $MB_DONE;\n"
                  "\tadd.u64 %%rd11, %%rd2, %%rd10;\n\tld.u32 %%r1, [%%rd11];\n"
                  "\tadd.u64 %%rd12, %%rd9, %%rd10;\n\tst.global.u32 [%%rd12+16], %%r1;\n"
                  "\tadd.u64 %%rd10, %%rd10, 4;\n\tbra $MB_COPY;\n"
                  "$MB_DONE:\n\tmov.u32 %%r2, 0;\n\tst.param.b32 [func_retval0], %%r2;\n\tret;\n}\n",
                  RECORD_HEADER + 7, FIFO_BYTES);
    if (with_assert)
        mb_buf_puts(&b, ASSERT_PTX);
    mb_module_free(m);
    if (b.failed) {
        mb_buf_free(&b);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    *out = b.data;
    *out_len = b.len;
    return MB_OK;
}

/* ---------------------------------------------------------------- host */

static uint64_t var_address(const rt_module *mod, const char *name)
{
    const mb_module *m = mod->module;
    for (uint32_t i = 0; i < m->nvars; i++)
        if (strcmp(m->vars[i].name, name) == 0)
            return mb_program_var_address(mod->program, i);
    return 0;
}

/* A device string for %s: up to its NUL, inside one allocation. */
static void device_string(mb_rt *rt, uint64_t addr, mb_buf *out)
{
    if (!addr) {
        mb_buf_puts(out, "(null)");
        return;
    }
    uint64_t size = 0;
    uint64_t base = mb_memory_allocation(rt->mem, addr, &size, NULL);
    const char *s = base ? mb_memory_host(rt->mem, addr, 1) : NULL;
    if (!s) {
        mb_buf_printf(out, "<bad string pointer 0x%llx>", (unsigned long long)addr);
        return;
    }
    size_t max = (size_t)(base + size - addr);
    mb_buf_append(out, s, strnlen(s, max));
}

/* Formats one record: the format text with its arguments from `args`. */
static void format_record(mb_rt *rt, const char *fmt, const unsigned char *args, size_t nargs,
                          mb_buf *out)
{
    size_t off = 0;
    for (const char *s = fmt; *s; s++) {
        conversion c;
        if (*s != '%' || !parse_conversion(s, &c)) {
            mb_buf_putc(out, *s);
            continue;
        }
        char spec[64];
        size_t n = c.len < sizeof(spec) ? c.len : sizeof(spec) - 1;
        memcpy(spec, s, n);
        spec[n] = '\0';
        s += c.len - 1;
        if (c.kind == '%') {
            mb_buf_putc(out, '%');
            continue;
        }
        int stars[2] = {0, 0}, nstars = 0;
        for (int k = 0; k < c.star_width + c.star_precision; k++) {
            off = (off + 3) / 4 * 4;
            if (off + 4 <= nargs)
                memcpy(&stars[nstars], args + off, 4);
            nstars++;
            off += 4;
        }
        off = (off + (size_t)c.arg_bytes - 1) / (size_t)c.arg_bytes * (size_t)c.arg_bytes;
        uint64_t bits = 0;
        if (off + (size_t)c.arg_bytes <= nargs)
            memcpy(&bits, args + off, (size_t)c.arg_bytes);
        off += (size_t)c.arg_bytes;
        char text[512];
        text[0] = '\0';
        if (c.kind == 's') {
            mb_buf str = MB_BUF_INIT;
            device_string(rt, bits, &str);
            /* the precision and width apply to the host copy */
            spec[n - 1] = 's';
            if (nstars == 2)
                snprintf(text, sizeof(text), spec, stars[0], stars[1], str.data ? str.data : "");
            else if (nstars == 1)
                snprintf(text, sizeof(text), spec, stars[0], str.data ? str.data : "");
            else
                snprintf(text, sizeof(text), spec, str.data ? str.data : "");
            mb_buf_free(&str);
        } else if (c.kind == 'f') {
            double d;
            memcpy(&d, &bits, 8);
            if (nstars == 2)
                snprintf(text, sizeof(text), spec, stars[0], stars[1], d);
            else if (nstars == 1)
                snprintf(text, sizeof(text), spec, stars[0], d);
            else
                snprintf(text, sizeof(text), spec, d);
        } else {
            /* integers, chars and pointers: print through the widest C type of the spec */
            unsigned long long u = c.arg_bytes == 4 ? (unsigned long long)(uint32_t)bits : bits;
            long long v = c.arg_bytes == 4 ? (long long)(int32_t)bits : (long long)bits;
            char conv = spec[n - 1];
            char wide[80];
            /* rebuild the spec with an ll length so one call serves every size */
            size_t k = 0;
            for (size_t i = 0; i + 1 < n && k < sizeof(wide) - 4; i++)
                if (!strchr("hlLqjzt", spec[i]))
                    wide[k++] = spec[i];
            if (conv == 'c' || conv == 'p') {
                wide[k++] = conv;
                wide[k] = '\0';
                if (conv == 'c')
                    snprintf(text, sizeof(text), wide, (int)v);
                else
                    snprintf(text, sizeof(text), wide, (void *)(uintptr_t)u);
            } else {
                wide[k++] = 'l';
                wide[k++] = 'l';
                wide[k++] = conv;
                wide[k] = '\0';
                int is_signed = conv == 'd' || conv == 'i';
                if (nstars == 2)
                    snprintf(text, sizeof(text), wide, stars[0], stars[1], is_signed ? v : (long long)u);
                else if (nstars == 1)
                    snprintf(text, sizeof(text), wide, stars[0], is_signed ? v : (long long)u);
                else if (is_signed)
                    snprintf(text, sizeof(text), wide, v);
                else
                    snprintf(text, sizeof(text), wide, u);
            }
        }
        mb_buf_puts(out, text);
    }
}

/* The line the hardware prints for a failed assert(). */
static void format_assert(mb_rt *rt, const unsigned char *a, mb_buf *out)
{
    uint64_t msg, file, fn;
    uint32_t line, ids[6];
    memcpy(&msg, a, 8);
    memcpy(&file, a + 8, 8);
    memcpy(&line, a + 16, 4);
    memcpy(&fn, a + 24, 8);
    memcpy(ids, a + 32, sizeof(ids));
    device_string(rt, file, out);
    mb_buf_printf(out, ":%u: ", line);
    device_string(rt, fn, out);
    mb_buf_printf(out, ": block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `", ids[0], ids[1], ids[2],
                  ids[3], ids[4], ids[5]);
    device_string(rt, msg, out);
    mb_buf_puts(out, "` failed.\n");
}

int rt_printf_flush(mb_rt *rt, rt_module *mod)
{
    if (!mod || mod->state != 1 || !mod->module)
        return 0;
    uint64_t head_addr = var_address(mod, HEAD_VAR), fifo = var_address(mod, FIFO_VAR);
    if (!head_addr || !fifo)
        return 0;
    uint64_t *head = mb_memory_host(rt->mem, head_addr, 8);
    const unsigned char *buf = mb_memory_host(rt->mem, fifo, FIFO_BYTES);
    if (!head || !buf || *head == 0)
        return 0;
    int asserts = 0;
    mb_buf failed = MB_BUF_INIT;
    uint64_t used = *head < FIFO_BYTES ? *head : FIFO_BYTES;
    mb_buf out = MB_BUF_INIT;
    for (uint64_t off = 0; off + RECORD_HEADER <= used;) {
        uint64_t fmt_addr, nargs;
        memcpy(&fmt_addr, buf + off, 8);
        memcpy(&nargs, buf + off + 8, 8);
        uint64_t record = (RECORD_HEADER + nargs + 7) / 8 * 8;
        if (off + record > used)
            break;
        if (fmt_addr == ASSERT_TAG && nargs == ASSERT_ARGS) {
            format_assert(rt, buf + off + RECORD_HEADER, &failed);
            asserts++;
            off += record;
            continue;
        }
        mb_buf fmt = MB_BUF_INIT;
        device_string(rt, fmt_addr, &fmt);
        format_record(rt, fmt.data ? fmt.data : "", buf + off + RECORD_HEADER, (size_t)nargs, &out);
        mb_buf_free(&fmt);
        off += record;
    }
    if (*head > FIFO_BYTES)
        rt_warn("device printf buffer full: output of some threads was dropped");
    *head = 0;
    if (out.len) {
        fwrite(out.data, 1, out.len, stdout);
        fflush(stdout);
    }
    if (failed.len) {
        fwrite(failed.data, 1, failed.len, stderr);
        fflush(stderr);
    }
    mb_buf_free(&out);
    mb_buf_free(&failed);
    return asserts;
}

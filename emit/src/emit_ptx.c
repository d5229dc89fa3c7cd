/* clone.ptx: the clone kernel as a PTX module. */
#include "emit_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

mb_buf *emit_var_buf(emit_vars *v, const char *key)
{
    size_t i = v->n++;
    v->keys[i] = key;
    v->owned[i] = (mb_buf)MB_BUF_INIT;
    v->values[i] = NULL;
    return &v->owned[i];
}

void emit_var(emit_vars *v, const char *key, const char *value)
{
    size_t i = v->n++;
    v->keys[i] = key;
    v->owned[i] = (mb_buf)MB_BUF_INIT;
    v->values[i] = value;
}

void emit_vars_free(emit_vars *v)
{
    for (size_t i = 0; i < v->n; i++)
        mb_buf_free(&v->owned[i]);
    v->n = 0;
}

void emit_reduction(const mb_clone_model *m, char *buf, size_t size)
{
    if (m->reduction == 0)
        snprintf(buf, size, "max");
    else
        snprintf(buf, size, "%.0f", m->reduction);
}

mb_status emit_fill(const mb_clone_model *m, const char *name, emit_vars *v, mb_buf *out,
                    mb_error *err)
{
    char red[32], seed[32], grid[64], block[64], dyn[32];
    emit_reduction(m, red, sizeof red);
    snprintf(seed, sizeof seed, "%" PRIu64, m->seed);
    snprintf(grid, sizeof grid, "%u, %u, %u", m->grid[0], m->grid[1], m->grid[2]);
    snprintf(block, sizeof block, "%u, %u, %u", m->block[0], m->block[1], m->block[2]);
    snprintf(dyn, sizeof dyn, "%" PRIu64, m->dynamic_shared);
    emit_var(v, "KERNEL", m->kernel);
    emit_var(v, "SOURCE", m->source);
    emit_var(v, "REDUCTION", red);
    emit_var(v, "SEED", seed);
    emit_var(v, "GRID", grid);
    emit_var(v, "BLOCK", block);
    emit_var(v, "DYNAMIC_SHARED", dyn);
    for (size_t i = 0; i < v->n; i++)
        if (v->values[i] == NULL)
            v->values[i] = v->owned[i].data ? v->owned[i].data : "";
    size_t len;
    const char *tpl = mb_template_text(name, &len);
    if (!tpl)
        return mb_error_set(err, MB_ERR_INVALID, name, 0, 0, "no such template");
    for (size_t i = 0; i < v->n; i++)
        if (v->owned[i].failed)
            return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    mb_status st = mb_template_fill(name, tpl, len, v->keys, v->values, v->n, out, err);
    return st;
}

static const char *const reg_decl[MB_REG_CLASSES][2] = {
    {".pred", "%p"}, {".b16", "%rs"}, {".b32", "%r"}, {".b64", "%rd"}, {".f32", "%f"}, {".f64", "%fd"}};

void emit_ptx_registers(const mb_clone_model *m, mb_buf *out, const char *indent)
{
    for (int k = 0; k < MB_REG_CLASSES; k++) {
        mb_buf_printf(out, "%s.reg %s %s_in;\n", indent, reg_decl[k][0], reg_decl[k][1]);
        if (m->nregs[k])
            mb_buf_printf(out, "%s.reg %s %s<%u>;\n", indent, reg_decl[k][0], reg_decl[k][1],
                          m->nregs[k] + 1);
    }
}

const char *emit_array_align(const mb_clone_array *a)
{
    static const char *const al[] = {"1", "2", "4", "8", "16"};
    uint32_t x = a->align;
    int k = x >= 16 ? 4 : x >= 8 ? 3 : x >= 4 ? 2 : x >= 2 ? 1 : 0;
    return al[k];
}

static void module_arrays(const mb_clone_model *m, mb_buf *out)
{
    for (size_t i = 0; i < m->narrays; i++) {
        const mb_clone_array *a = &m->arrays[i];
        if (!strcmp(a->space, "local"))
            continue;
        if (a->is_extern)
            mb_buf_printf(out, ".extern .%s .align %s .b8 %s[];\n", a->space, emit_array_align(a),
                          a->name);
        else
            mb_buf_printf(out, ".%s .align %s .b8 %s[%" PRIu64 "];\n", a->space,
                          emit_array_align(a), a->name, a->bytes ? a->bytes : 1);
    }
}

static void params(const mb_clone_model *m, mb_buf *out)
{
    for (size_t i = 0; i < m->nparams; i++) {
        const mb_clone_param *p = &m->params[i];
        if (p->bytes > 8 || !strcmp(p->type, "b8"))
            mb_buf_printf(out, "\t.param .align 8 .b8 %s[%u]%s\n", p->name, p->bytes,
                          i + 1 < m->nparams ? "," : "");
        else
            mb_buf_printf(out, "\t.param .%s %s%s\n", p->type, p->name,
                          i + 1 < m->nparams ? "," : "");
    }
}

/* In an asm string '%' introduces operands: registers need '%%'. */
static void put_asm(mb_buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '%')
            mb_buf_putc(out, '%');
        if (*s == '"' || *s == '\\')
            mb_buf_putc(out, '\\');
        mb_buf_putc(out, *s);
    }
}

void emit_ptx_body(const mb_clone_model *m, mb_buf *out, int for_asm)
{
    for (size_t k = 0; k < m->nblocks; k++) {
        const mb_clone_block *b = &m->blocks[k];
        if (for_asm) {
            mb_buf_puts(out, "        \"");
            put_asm(out, b->label);
            mb_buf_puts(out, ":\\n\\t\"\n");
        } else {
            mb_buf_printf(out, "%s:\n", b->label);
        }
        for (size_t i = 0; i < b->ninsns; i++) {
            const mb_clone_insn *x = &b->insns[i];
            mb_buf line = MB_BUF_INIT;
            mb_buf_printf(&line, "%s%s%s%s%s;", x->guard ? x->guard : "", x->guard ? " " : "",
                          x->op, x->operands[0] ? " " : "", x->operands);
            if (for_asm) {
                mb_buf_puts(out, "        \"");
                put_asm(out, line.data);
                mb_buf_puts(out, "\\n\\t\"\n");
            } else {
                mb_buf_printf(out, "\t%s\n", line.data);
            }
            mb_buf_free(&line);
        }
    }
}

/* A called function: the .func the kernel's call sites call, its body
 * printed like the kernel's. */
static void funcs(const mb_clone_model *m, mb_buf *out)
{
    for (size_t i = 0; i < m->nfuncs; i++) {
        const mb_clone_model *f = &m->funcs[i];
        mb_buf_puts(out, ".func ");
        if (f->ret_type)
            mb_buf_printf(out, "(.param .%s func_retval0) ", f->ret_type);
        mb_buf_printf(out, "%s(\n", f->kernel);
        params(f, out);
        mb_buf_puts(out, ")\n{\n");
        emit_ptx_registers(f, out, "\t");
        emit_ptx_body(f, out, 0);
        mb_buf_puts(out, "}\n");
    }
}

void emit_call_params(const mb_clone_model *m, mb_buf *out, const char *indent)
{
    for (size_t i = 0; i < m->ncall_params; i++)
        mb_buf_printf(out, "%s.param .%s %s;\n", indent, m->call_params[i].type,
                      m->call_params[i].name);
}

mb_status mb_emit_ptx(const mb_clone_model *m, mb_buf *out, mb_error *err)
{
    emit_vars v;
    memset(&v, 0, sizeof(v));
    emit_var(&v, "PTX_VERSION", "6.4");
    module_arrays(m, emit_var_buf(&v, "MODULE_ARRAYS"));
    funcs(m, emit_var_buf(&v, "FUNCS"));
    params(m, emit_var_buf(&v, "PARAMS"));
    emit_ptx_registers(m, emit_var_buf(&v, "REGISTERS"), "\t");
    mb_buf *loc = emit_var_buf(&v, "LOCAL_ARRAYS");
    for (size_t i = 0; i < m->narrays; i++)
        if (!strcmp(m->arrays[i].space, "local"))
            mb_buf_printf(loc, "\t.local .align %s .b8 %s[%" PRIu64 "];\n",
                          emit_array_align(&m->arrays[i]), m->arrays[i].name, m->arrays[i].bytes);
    emit_call_params(m, loc, "\t");
    emit_ptx_body(m, emit_var_buf(&v, "BODY"), 0);
    mb_status st = emit_fill(m, "clone.ptx", &v, out, err);
    emit_vars_free(&v);
    return st;
}

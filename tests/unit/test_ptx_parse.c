/* The PTX parser on small hand-written snippets: every construct nvcc
 * writes, checked field by field in the IR, and each snippet printed,
 * re-parsed and printed again to the same text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n\n"

/* ------------------------------------------------------------ helpers */

static mb_module *parse_ok(const char *text)
{
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    if (mb_ptx_parse(text, strlen(text), "snippet.ptx", &m, &err) != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    assert_non_null(m);
    return m;
}

static char *print_module(const mb_module *m)
{
    mb_buf b = MB_BUF_INIT;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_print(m, &b, &err), MB_OK);
    assert_non_null(b.data);
    return b.data; /* caller frees */
}

/* print -> parse -> print must be a fixpoint. Returns the printed text
 * (free it); the module re-parsed from it is checked for the same counts. */
static char *roundtrip(const mb_module *m)
{
    char *t1 = print_module(m);
    mb_module *m2 = NULL;
    mb_error err;
    mb_error_clear(&err);
    if (mb_ptx_parse(t1, strlen(t1), "printed.ptx", &m2, &err) != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("printed text does not parse: %s\n%s", msg, t1);
    }
    char *t2 = print_module(m2);
    if (strcmp(t1, t2) != 0)
        fail_msg("print is not a fixpoint:\n--- first\n%s\n--- second\n%s", t1, t2);
    assert_int_equal(m2->nvars, m->nvars);
    assert_int_equal(m2->nfuncs, m->nfuncs);
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        assert_int_equal(m2->funcs[f].ninsns, m->funcs[f].ninsns);
        assert_int_equal(m2->funcs[f].nregs, m->funcs[f].nregs);
        assert_int_equal(m2->funcs[f].noperands, m->funcs[f].noperands);
        assert_int_equal(m2->funcs[f].nvars, m->funcs[f].nvars);
        assert_int_equal(m2->funcs[f].nlabels, m->funcs[f].nlabels);
        for (uint32_t k = 0; k < m->funcs[f].ninsns; k++) {
            mb_buf a = MB_BUF_INIT, b = MB_BUF_INIT;
            mb_ptx_print_insn(m, &m->funcs[f], &m->funcs[f].insns[k], &a);
            mb_ptx_print_insn(m2, &m2->funcs[f], &m2->funcs[f].insns[k], &b);
            assert_string_equal(a.data, b.data);
            mb_buf_free(&a);
            mb_buf_free(&b);
        }
    }
    mb_module_free(m2);
    free(t2);
    return t1;
}

/* Parses, checks the round trip, returns the module. */
static mb_module *parse_rt(const char *text)
{
    mb_module *m = parse_ok(text);
    free(roundtrip(m));
    return m;
}

static const mb_function *func(const mb_module *m, const char *name)
{
    const mb_function *fn = mb_module_find_function(m, name);
    if (!fn)
        fail_msg("no function '%s'", name);
    return fn;
}

static const mb_var *gvar(const mb_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->nvars; i++)
        if (strcmp(m->vars[i].name, name) == 0)
            return &m->vars[i];
    fail_msg("no module variable '%s'", name);
    return NULL;
}

static int gvar_index(const mb_module *m, const char *name)
{
    return (int)(gvar(m, name) - m->vars);
}

static const mb_operand *opnd(const mb_function *fn, uint32_t insn, unsigned i)
{
    assert_true(insn < fn->ninsns);
    assert_true(i < fn->insns[insn].noperands);
    return mb_insn_operand(fn, &fn->insns[insn], i);
}

static const mb_operand *list_item(const mb_function *fn, const mb_operand *o, unsigned i)
{
    assert_true(i < o->u.list.count);
    return &fn->operands[o->u.list.first + i];
}

static const char *reg_of(const mb_function *fn, const mb_operand *o)
{
    assert_int_equal(o->kind, MB_OPND_REG);
    return fn->regs[o->u.reg].name;
}

/* The instruction as PTX text (static buffer). */
static const char *insn_text(const mb_module *m, const mb_function *fn, uint32_t i)
{
    static char text[1024];
    mb_buf b = MB_BUF_INIT;
    mb_ptx_print_insn(m, fn, &fn->insns[i], &b);
    snprintf(text, sizeof(text), "%s", b.data ? b.data : "");
    mb_buf_free(&b);
    return text;
}

/* ".global.nc.v4.f32": the suffixes in order, rebuilt from the IR. */
static const char *suffixes(const mb_insn *insn)
{
    static char text[256];
    size_t n = 0;
    text[0] = '\0';
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        const char *name = (s & MB_SUFFIX_TYPE) ? mb_type_name((mb_ptx_type)(s & ~MB_SUFFIX_TYPE))
                                                : mb_mod_name((mb_ptx_mod)s);
        n += (size_t)snprintf(text + n, sizeof(text) - n, ".%s", name);
    }
    return text;
}

static int find_reg(const mb_function *fn, const char *name)
{
    return mb_strmap_get(fn->reg_names, name, strlen(name));
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

/* ------------------------------------------------------ module level */

static void test_module_header(void **state)
{
    (void)state;
    mb_module *m = parse_rt(".version 8.7\n.target sm_80, texmode_independent\n.address_size 32\n"
                           ".entry k() { ret; }\n");
    assert_int_equal(m->version_major, 8);
    assert_int_equal(m->version_minor, 7);
    assert_int_equal(m->ntargets, 2);
    assert_string_equal(m->targets[0], "sm_80");
    assert_string_equal(m->targets[1], "texmode_independent");
    assert_int_equal(m->address_size, 32);
    assert_string_equal(m->filename, "snippet.ptx");
    assert_int_equal(m->nfuncs, 1);
    mb_module_free(m);

    /* .address_size is optional; 9.0 is the newest accepted version. */
    m = parse_rt(".version 9.0\n.target sm_90a\n.entry k() { ret; }\n");
    assert_int_equal(m->version_major, 9);
    assert_int_equal(m->version_minor, 0);
    assert_int_equal(m->address_size, 0);
    assert_string_equal(m->targets[0], "sm_90a");
    char *text = print_module(m);
    assert_non_null(strstr(text, ".version 9.0\n.target sm_90a\n"));
    assert_null(strstr(text, ".address_size"));
    free(text);
    mb_module_free(m);
}

static void test_module_variables_spaces(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".global .align 4 .u32 g_u32;\n"
                            ".const .align 8 .f64 c_f64;\n"
                            ".shared .align 16 .b8 s_buf[64];\n"
                            ".tex .u32 t_legacy;\n"
                            ".global .texref my_tex;\n"
                            ".global .v2 .u32 g_vec;\n"
                            ".global .s16 g_a, g_b;\n"
                            ".entry k() { ret; }\n");
    assert_int_equal(m->nvars, 8);
    const mb_var *v = gvar(m, "g_u32");
    assert_int_equal(v->space, MB_SPACE_GLOBAL);
    assert_int_equal(v->type, MB_TYPE_U32);
    assert_int_equal(v->align, 4);
    assert_int_equal(v->vec, 1);
    assert_int_equal(v->ndims, 0);
    assert_int_equal(v->size, 4);
    assert_int_equal(v->linkage, MB_LINK_NONE);
    assert_int_equal(v->scope, -1);
    assert_null(v->init);
    assert_int_equal(v->line, 5);
    assert_int_equal(v->col, 23);

    v = gvar(m, "c_f64");
    assert_int_equal(v->space, MB_SPACE_CONST);
    assert_int_equal(v->type, MB_TYPE_F64);
    assert_int_equal(v->align, 8);
    assert_int_equal(v->size, 8);

    v = gvar(m, "s_buf");
    assert_int_equal(v->space, MB_SPACE_SHARED);
    assert_int_equal(v->type, MB_TYPE_B8);
    assert_int_equal(v->align, 16);
    assert_int_equal(v->ndims, 1);
    assert_int_equal(v->dims[0], 64);
    assert_int_equal(v->nelems, 64);
    assert_int_equal(v->size, 64);

    v = gvar(m, "t_legacy");
    assert_int_equal(v->space, MB_SPACE_TEX);
    assert_int_equal(v->align, 0);

    v = gvar(m, "my_tex");
    assert_int_equal(v->type, MB_TYPE_TEXREF);
    assert_int_equal(v->size, 0);

    v = gvar(m, "g_vec");
    assert_int_equal(v->vec, 2);
    assert_int_equal(v->size, 8);

    /* One declaration, two variables with the same attributes. */
    assert_int_equal(gvar(m, "g_a")->type, MB_TYPE_S16);
    assert_int_equal(gvar(m, "g_b")->type, MB_TYPE_S16);
    assert_int_equal(gvar(m, "g_b")->size, 2);

    /* Items keep source order: 8 variables then the kernel. */
    assert_int_equal(m->nitems, 9);
    assert_int_equal(m->items[0].kind, MB_ITEM_VAR);
    assert_int_equal(m->items[8].kind, MB_ITEM_FUNC);
    mb_module_free(m);
}

static void test_module_variable_arrays(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".global .align 4 .f32 grid[4][8];\n"
                            ".global .u16 cube[2][3][4];\n"
                            ".const .align 4 .u32 table[] = {1, 2, 3, 4, 5};\n"
                            ".const .u16 rows[][2] = {{1, 2}, {3, 4}, {5, 6}};\n"
                            ".extern .shared .align 16 .b8 dyn_smem[];\n"
                            ".global .v4 .f32 vecs[3];\n"
                            ".entry k() { ret; }\n");
    const mb_var *v = gvar(m, "grid");
    assert_int_equal(v->ndims, 2);
    assert_int_equal(v->dims[0], 4);
    assert_int_equal(v->dims[1], 8);
    assert_int_equal(v->nelems, 32);
    assert_int_equal(v->size, 128);

    v = gvar(m, "cube");
    assert_int_equal(v->ndims, 3);
    assert_int_equal(v->nelems, 24);
    assert_int_equal(v->size, 48);

    /* Unsized with an initialiser: the size comes from the initialiser. */
    v = gvar(m, "table");
    assert_int_equal(v->ndims, 1);
    assert_int_equal(v->dims[0], 5);
    assert_int_equal(v->nelems, 5);
    assert_int_equal(v->size, 20);
    assert_int_equal(v->ninit, 5);
    assert_int_equal(v->init[4].bits, 5);

    v = gvar(m, "rows");
    assert_int_equal(v->ndims, 2);
    assert_int_equal(v->dims[0], 3);
    assert_int_equal(v->dims[1], 2);
    assert_int_equal(v->nelems, 6);
    assert_int_equal(v->size, 12);
    assert_int_equal(v->ninit, 6);
    assert_int_equal(v->init[5].bits, 6);

    /* Unsized extern: no elements, no bytes. */
    v = gvar(m, "dyn_smem");
    assert_int_equal(v->linkage, MB_LINK_EXTERN);
    assert_int_equal(v->ndims, 1);
    assert_int_equal(v->dims[0], 0);
    assert_int_equal(v->nelems, 0);
    assert_int_equal(v->size, 0);

    v = gvar(m, "vecs");
    assert_int_equal(v->vec, 4);
    assert_int_equal(v->nelems, 3);
    assert_int_equal(v->size, 48);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".global .align 4 .f32 grid[4][8];\n"));
    assert_non_null(strstr(text, ".const .align 4 .u32 table[5] = {1, 2, 3, 4, 5};\n"));
    assert_non_null(strstr(text, ".const .u16 rows[3][2] = {{1, 2}, {3, 4}, {5, 6}};\n"));
    assert_non_null(strstr(text, ".extern .shared .align 16 .b8 dyn_smem[];\n"));
    free(text);
    mb_module_free(m);
}

static void test_module_variable_initialisers(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".global .s32 ints[5] = {1, -2, 0x10, 0, 017};\n"
                            ".global .f32 floats[4] = {0f3F800000, -0f40000000, 1.5, -2.5e-1};\n"
                            ".global .f64 pi = 0d400921FB54442D18;\n"
                            ".global .u64 big = 0xFFFFFFFFFFFFFFFF;\n"
                            ".global .u64 addrs[3] = {ints, floats+4, generic(pi)+8};\n"
                            ".global .v2 .u32 pair = {7, 9};\n"
                            ".global .u32 partial[4] = {1, 2};\n"
                            ".global .u32 rows[2][3] = {{1}, {2, 3}};\n"
                            ".global .f32 frows[2][2] = {{0f3F800000}, {0f40000000, 0f40400000}};\n"
                            ".global .v2 .u16 vrows[2] = {{5}, {6, 7}};\n"
                            ".entry k() { ret; }\n");
    const mb_var *v = gvar(m, "ints");
    assert_int_equal(v->ninit, 5);
    assert_int_equal(v->init[0].kind, MB_INIT_INT);
    assert_int_equal(v->init[0].bits, 1);
    assert_int_equal(v->init[0].negative, 0);
    assert_int_equal(v->init[1].kind, MB_INIT_INT);
    assert_int_equal(v->init[1].bits, (uint64_t)-2);
    assert_int_equal(v->init[1].negative, 1);
    assert_int_equal(v->init[2].bits, 16);
    assert_int_equal(v->init[3].bits, 0);
    assert_int_equal(v->init[4].bits, 15);

    v = gvar(m, "floats");
    assert_int_equal(v->ninit, 4);
    assert_int_equal(v->init[0].kind, MB_INIT_F32);
    assert_int_equal(v->init[0].bits, 0x3F800000);
    assert_int_equal(v->init[1].kind, MB_INIT_F32);
    assert_int_equal(v->init[1].bits, 0xC0000000);
    assert_int_equal(v->init[2].kind, MB_INIT_F64);
    assert_int_equal(v->init[2].bits, dbits(1.5));
    assert_int_equal(v->init[3].kind, MB_INIT_F64);
    assert_int_equal(v->init[3].bits, dbits(-0.25));

    v = gvar(m, "pi");
    assert_int_equal(v->ninit, 1);
    assert_int_equal(v->init[0].kind, MB_INIT_F64);
    assert_int_equal(v->init[0].bits, UINT64_C(0x400921FB54442D18));

    v = gvar(m, "big");
    assert_int_equal(v->init[0].bits, UINT64_MAX);
    assert_int_equal(v->init[0].negative, 0);

    v = gvar(m, "addrs");
    assert_int_equal(v->ninit, 3);
    assert_int_equal(v->init[0].kind, MB_INIT_ADDR);
    assert_int_equal(v->init[0].symkind, MB_SYM_GLOBAL_VAR);
    assert_int_equal(v->init[0].sym, gvar_index(m, "ints"));
    assert_int_equal(v->init[0].bits, 0);
    assert_int_equal(v->init[1].kind, MB_INIT_ADDR);
    assert_int_equal(v->init[1].sym, gvar_index(m, "floats"));
    assert_int_equal(v->init[1].bits, 4);
    assert_int_equal(v->init[2].kind, MB_INIT_GENERIC_ADDR);
    assert_int_equal(v->init[2].sym, gvar_index(m, "pi"));
    assert_int_equal(v->init[2].bits, 8);

    v = gvar(m, "pair");
    assert_int_equal(v->ninit, 2);
    assert_int_equal(v->init[1].bits, 9);

    v = gvar(m, "partial");
    assert_int_equal(v->ninit, 2);
    assert_int_equal(v->size, 16);

    /* A short inner list leaves the rest of its row zero (ptxas semantics):
     * elements keep their positions. */
    v = gvar(m, "rows");
    assert_int_equal(v->ninit, 6);
    static const uint64_t rows[6] = {1, 0, 0, 2, 3, 0};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(v->init[i].kind, MB_INIT_INT);
        assert_int_equal(v->init[i].bits, rows[i]);
    }
    v = gvar(m, "frows");
    assert_int_equal(v->ninit, 4);
    assert_int_equal(v->init[1].kind, MB_INIT_F64); /* a float zero, not an integer */
    assert_int_equal(v->init[1].bits, 0);
    assert_int_equal(v->init[3].bits, 0x40400000);
    v = gvar(m, "vrows");
    assert_int_equal(v->ninit, 4);
    assert_int_equal(v->init[1].bits, 0);
    assert_int_equal(v->init[2].bits, 6);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".global .u32 rows[2][3] = {{1, 0, 0}, {2, 3, 0}};\n"));
    assert_non_null(strstr(text, ".global .f32 frows[2][2] = {{0f3F800000, 0d0000000000000000}, "
                                 "{0f40000000, 0f40400000}};\n"));
    assert_non_null(strstr(text, ".global .v2 .u16 vrows[2] = {{5, 0}, {6, 7}};\n"));
    assert_non_null(strstr(text, ".global .s32 ints[5] = {1, -2, 16, 0, 15};\n"));
    assert_non_null(strstr(text, ".global .f32 floats[4] = {0f3F800000, 0fC0000000, "
                                 "0d3FF8000000000000, 0dBFD0000000000000};\n"));
    assert_non_null(strstr(text, ".global .f64 pi = 0d400921FB54442D18;\n"));
    assert_non_null(strstr(text, ".global .u64 big = 0xFFFFFFFFFFFFFFFF;\n"));
    assert_non_null(strstr(text, ".global .u64 addrs[3] = {ints, floats+4, generic(pi)+8};\n"));
    assert_non_null(strstr(text, ".global .v2 .u32 pair = {7, 9};\n"));
    assert_non_null(strstr(text, ".global .u32 partial[4] = {1, 2};\n"));
    free(text);
    mb_module_free(m);
}

static void test_module_linkage_and_attributes(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".extern .global .align 4 .u32 e_var;\n"
                            ".weak .global .align 4 .u32 w_var = 7;\n"
                            ".visible .global .align 8 .u64 v_var;\n"
                            ".common .global .align 4 .b8 c_buf[16];\n"
                            ".visible .global .attribute(.managed) .align 4 .u32 m_var;\n"
                            ".entry k() { ret; }\n");
    assert_int_equal(gvar(m, "e_var")->linkage, MB_LINK_EXTERN);
    assert_int_equal(gvar(m, "w_var")->linkage, MB_LINK_WEAK);
    assert_int_equal(gvar(m, "w_var")->init[0].bits, 7);
    assert_int_equal(gvar(m, "v_var")->linkage, MB_LINK_VISIBLE);
    assert_int_equal(gvar(m, "c_buf")->linkage, MB_LINK_COMMON);
    assert_int_equal(gvar(m, "c_buf")->size, 16);
    const mb_var *v = gvar(m, "m_var");
    assert_int_equal(v->linkage, MB_LINK_VISIBLE);
    assert_int_equal(v->attrs, MB_VAR_MANAGED);
    assert_int_equal(v->align, 4);
    assert_int_equal(gvar(m, "e_var")->attrs, 0);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".extern .global .align 4 .u32 e_var;\n"));
    assert_non_null(strstr(text, ".weak .global .align 4 .u32 w_var = 7;\n"));
    assert_non_null(strstr(text, ".common .global .align 4 .b8 c_buf[16];\n"));
    assert_non_null(strstr(text, ".visible .global .attribute(.managed) .align 4 .u32 m_var;\n"));
    free(text);
    mb_module_free(m);

    /* An extern declaration followed by the definition is one variable; the
     * declaration still prints where it was (a function between them may use it). */
    m = parse_rt(HDR ".extern .global .align 4 .u32 x;\n"
                     ".func f()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [x];\n\tret;\n}\n"
                     ".global .align 4 .u32 x = 3;\n"
                     ".extern .global .align 4 .u32 x;\n"
                     ".entry k() { ret; }\n");
    assert_int_equal(m->nvars, 1);
    assert_int_equal(m->vars[0].linkage, MB_LINK_NONE);
    assert_int_equal(m->vars[0].scope, -1);
    assert_int_equal(m->vars[0].init[0].bits, 3);
    assert_int_equal(m->nitems, 4); /* declaration, f, definition, k */
    assert_int_equal(m->items[0].kind, MB_ITEM_VAR);
    assert_int_equal(m->items[0].prototype, 1);
    assert_int_equal(m->items[2].kind, MB_ITEM_VAR);
    assert_int_equal(m->items[2].prototype, 0);
    text = print_module(m);
    const char *decl = strstr(text, ".extern .global .align 4 .u32 x;\n");
    const char *use = strstr(text, "ld.global.u32 %r1, [x];");
    const char *def = strstr(text, ".global .align 4 .u32 x = 3;\n");
    assert_non_null(decl);
    assert_non_null(use);
    assert_non_null(def);
    assert_true(decl < use && use < def);
    assert_null(strstr(def + strlen(".global .align 4 .u32 x = 3;\n"), ".u32 x"));
    free(text);
    mb_module_free(m);
}

/* ------------------------------------------------------ functions */

static void test_entry_params(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".visible .entry kern(\n"
                            "\t.param .u64 .ptr .global .align 16 kern_param_0,\n"
                            "\t.param .align 16 .b8 kern_param_1[16],\n"
                            "\t.param .u32 kern_param_2,\n"
                            "\t.param .u64 .ptr .align 8 kern_param_3,\n"
                            "\t.param .v2 .f32 kern_param_4\n"
                            ")\n{\n\tret;\n}\n");
    const mb_function *fn = func(m, "kern");
    assert_true(fn->is_entry);
    assert_true(fn->has_body);
    assert_int_equal(fn->linkage, MB_LINK_VISIBLE);
    assert_int_equal(fn->nparams, 5);
    assert_int_equal(fn->nrets, 0);
    assert_int_equal(fn->line, 5);
    assert_int_equal(fn->col, 10);

    const mb_param *p = &fn->params[0];
    assert_string_equal(p->name, "kern_param_0");
    assert_int_equal(p->type, MB_TYPE_U64);
    assert_int_equal(p->space, MB_SPACE_PARAM);
    assert_true(p->is_ptr);
    assert_int_equal(p->ptr_space, MB_SPACE_GLOBAL);
    assert_int_equal(p->ptr_align, 16);
    assert_int_equal(p->align, 0);
    assert_int_equal(p->size, 8);
    assert_int_equal(p->line, 6);
    assert_int_equal(p->col, 2);

    p = &fn->params[1];
    assert_int_equal(p->type, MB_TYPE_B8);
    assert_int_equal(p->align, 16);
    assert_false(p->is_ptr);
    assert_int_equal(p->ndims, 1);
    assert_int_equal(p->dims[0], 16);
    assert_int_equal(p->size, 16);

    assert_int_equal(fn->params[2].type, MB_TYPE_U32);
    assert_int_equal(fn->params[2].size, 4);

    p = &fn->params[3];
    assert_true(p->is_ptr);
    assert_int_equal(p->ptr_space, MB_SPACE_NONE);
    assert_int_equal(p->ptr_align, 8);

    assert_int_equal(fn->params[4].vec, 2);
    assert_int_equal(fn->params[4].size, 8);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".visible .entry kern(\n"
                                 "\t.param .u64 .ptr .global .align 16 kern_param_0,\n"
                                 "\t.param .align 16 .b8 kern_param_1[16],\n"
                                 "\t.param .u32 kern_param_2,\n"
                                 "\t.param .u64 .ptr .align 8 kern_param_3,\n"
                                 "\t.param .v2 .f32 kern_param_4\n)\n"));
    free(text);
    mb_module_free(m);
}

static void test_func_returns_prototypes_extern(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".extern .func (.param .b32 ext_ret) ext_fn(.param .b32 ext_a);\n"
                            ".func (.param .b64 later_ret) later(.param .b64 later_a, .param .b32 "
                            "later_b);\n"
                            ".weak .func noargs()\n{\n\tret;\n}\n"
                            ".func (.reg .b32 rr) regfn(.reg .b32 ra)\n{\n\tmov.b32 rr, ra;\n\tret;\n}\n"
                            ".entry k()\n{\n\tret;\n}\n"
                            ".func (.param .b64 later_ret) later(.param .b64 later_a, .param .b32 "
                            "later_b)\n{\n"
                            "\t.reg .b64 %rd<2>;\n"
                            "\tld.param.b64 %rd1, [later_a];\n"
                            "\tst.param.b64 [later_ret], %rd1;\n"
                            "\tret;\n}\n");
    assert_int_equal(m->nfuncs, 5);
    const mb_function *ext = func(m, "ext_fn");
    assert_false(ext->is_entry);
    assert_false(ext->has_body);
    assert_int_equal(ext->linkage, MB_LINK_EXTERN);
    assert_int_equal(ext->nrets, 1);
    assert_string_equal(ext->rets[0].name, "ext_ret");
    assert_int_equal(ext->rets[0].type, MB_TYPE_B32);
    assert_int_equal(ext->nparams, 1);

    /* The prototype and the later definition are one function. */
    const mb_function *later = func(m, "later");
    assert_true(later->has_body);
    assert_int_equal(later->nrets, 1);
    assert_int_equal(later->nparams, 2);
    assert_int_equal(later->ninsns, 3);
    const mb_operand *o = opnd(later, 0, 1);
    assert_int_equal(o->kind, MB_OPND_ADDR);
    assert_int_equal(o->base_kind, MB_OPND_SYMBOL);
    assert_int_equal(o->symkind, MB_SYM_PARAM);
    assert_int_equal(o->u.sym, 0);
    o = opnd(later, 1, 0);
    assert_int_equal(o->symkind, MB_SYM_RET);
    assert_int_equal(o->u.sym, 0);

    /* Items: prototype (declaration), then the function at its definition. */
    int later_idx = (int)(later - m->funcs);
    int proto_items = 0, def_items = 0;
    for (uint32_t i = 0; i < m->nitems; i++) {
        if (m->items[i].kind == MB_ITEM_FUNC && (int)m->items[i].index == later_idx) {
            if (m->items[i].prototype)
                proto_items++;
            else
                def_items++;
        }
    }
    assert_int_equal(proto_items, 1);
    assert_int_equal(def_items, 1);

    assert_int_equal(func(m, "noargs")->linkage, MB_LINK_WEAK);
    assert_int_equal(func(m, "noargs")->nparams, 0);

    /* .reg parameters of a .func are used by name. */
    const mb_function *rf = func(m, "regfn");
    assert_int_equal(rf->params[0].space, MB_SPACE_REG);
    assert_int_equal(rf->rets[0].space, MB_SPACE_REG);
    assert_int_equal(opnd(rf, 0, 0)->kind, MB_OPND_SYMBOL);
    assert_int_equal(opnd(rf, 0, 0)->symkind, MB_SYM_RET);
    assert_int_equal(opnd(rf, 0, 1)->symkind, MB_SYM_PARAM);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".extern .func (.param .b32 ext_ret) ext_fn(\n\t.param .b32 "
                                 "ext_a\n)\n;\n"));
    assert_non_null(strstr(text, ".weak .func noargs\n{\n\tret;\n}\n"));
    assert_non_null(strstr(text, ".func (.reg .b32 rr) regfn(\n\t.reg .b32 ra\n)\n"));
    /* the declaration comes first, the body later */
    const char *decl = strstr(text, "later(\n\t.param .b64 later_a,\n\t.param .b32 later_b\n)\n;");
    const char *body = strstr(text, "later(\n\t.param .b64 later_a,\n\t.param .b32 later_b\n)\n{");
    assert_non_null(decl);
    assert_non_null(body);
    assert_true(decl < body);
    free(text);
    mb_module_free(m);
}

static void test_perf_directives(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry a()\n.maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n{\n\tret;\n}\n"
                            ".entry b()\n.reqntid 128\n.pragma \"nounroll\";\n{\n\tret;\n}\n"
                            ".entry c()\n.maxntid 32, 8\n.maxnctapersm 4\n{\n\tret;\n}\n"
                            ".func d() .noreturn\n{\n\ttrap;\n}\n");
    const mb_perf *pa = &func(m, "a")->perf;
    assert_int_equal(pa->nmaxntid, 3);
    assert_int_equal(pa->maxntid[0], 256);
    assert_int_equal(pa->maxntid[1], 1);
    assert_int_equal(pa->maxntid[2], 1);
    assert_int_equal(pa->nreqntid, 0);
    assert_int_equal(pa->minnctapersm, 2);
    assert_int_equal(pa->maxnreg, 64);
    assert_int_equal(pa->npragmas, 0);

    const mb_perf *pb = &func(m, "b")->perf;
    assert_int_equal(pb->nreqntid, 1);
    assert_int_equal(pb->reqntid[0], 128);
    assert_int_equal(pb->nmaxntid, 0);
    assert_int_equal(pb->npragmas, 1);
    assert_string_equal(pb->pragmas[0], "nounroll");

    const mb_perf *pc = &func(m, "c")->perf;
    assert_int_equal(pc->nmaxntid, 2);
    assert_int_equal(pc->maxntid[1], 8);
    assert_int_equal(pc->maxnctapersm, 4);

    assert_true(func(m, "d")->noreturn);

    char *text = print_module(m);
    assert_non_null(strstr(text, ".entry a()\n.maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n{"));
    assert_non_null(strstr(text, ".entry b()\n.reqntid 128\n.pragma \"nounroll\";\n{"));
    assert_non_null(strstr(text, ".func d .noreturn\n{"));
    free(text);
    mb_module_free(m);
}

/* -------------------------------------------------------- bodies */

static void test_reg_declarations(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k()\n{\n"
                            "\t.reg .pred %p<3>;\n"
                            "\t.reg .b32 %r<24>;\n"
                            "\t.reg .f32 %f1, %fsingle;\n"
                            "\t.reg .v2 .b64 %vd;\n"
                            "\t.reg .b64 %SP;\n"
                            "\tmov.b32 %r23, %r0;\n"
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->nregdecls, 6);
    assert_int_equal(fn->nregs, 3 + 24 + 2 + 1 + 1);

    const mb_regdecl *d = &fn->regdecls[1];
    assert_string_equal(d->prefix, "%r");
    assert_int_equal(d->type, MB_TYPE_B32);
    assert_int_equal(d->count, 24);
    assert_int_equal(d->first_reg, 3);
    assert_int_equal(d->scope, 0);
    for (unsigned i = 0; i < 24; i++) {
        char name[16];
        snprintf(name, sizeof(name), "%%r%u", i);
        assert_string_equal(fn->regs[3 + i].name, name);
        assert_int_equal(fn->regs[3 + i].type, MB_TYPE_B32);
        assert_int_equal(fn->regs[3 + i].decl, 1);
        assert_int_equal(find_reg(fn, name), (int)(3 + i));
    }
    assert_int_equal(find_reg(fn, "%r24"), -1);
    assert_string_equal(fn->regs[0].name, "%p0");
    assert_int_equal(fn->regs[2].type, MB_TYPE_PRED);

    /* Single names: count 0, the prefix is the full name. */
    d = &fn->regdecls[2];
    assert_int_equal(d->count, 0);
    assert_string_equal(d->prefix, "%f1");
    assert_string_equal(fn->regdecls[3].prefix, "%fsingle");
    assert_int_equal(fn->regdecls[3].type, MB_TYPE_F32);
    assert_int_equal(fn->regdecls[4].vec, 2);
    assert_int_equal(fn->regs[find_reg(fn, "%vd")].vec, 2);
    assert_int_equal(fn->regs[find_reg(fn, "%SP")].type, MB_TYPE_B64);

    assert_string_equal(reg_of(fn, opnd(fn, 0, 0)), "%r23");
    assert_string_equal(reg_of(fn, opnd(fn, 0, 1)), "%r0");

    char *text = print_module(m);
    assert_non_null(strstr(text, "\t.reg .pred %p<3>;\n\t.reg .b32 %r<24>;\n\t.reg .f32 %f1;\n"
                                 "\t.reg .f32 %fsingle;\n\t.reg .v2 .b64 %vd;\n\t.reg .b64 %SP;\n"));
    free(text);
    mb_module_free(m);
}

/* nvcc's call sequences redeclare param0/retval0 and temp_param_reg in
 * every block; an inner .reg may also shadow an outer register. */
static void test_nested_scopes_shadowing(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".func (.param .b32 func_retval0) callee(.param .b32 callee_param_0)\n"
                            "{\n\t.reg .b32 %r<2>;\n"
                            "\tld.param.b32 %r1, [callee_param_0];\n"
                            "\tst.param.b32 [func_retval0+0], %r1;\n\tret;\n}\n"
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<4>;\n"
                            "\tmov.u32 %r1, 5;\n"                       /* 0 */
                            "\t{ // callseq 0, 0\n"
                            "\t.reg .b32 temp_param_reg;\n"
                            "\t.param .b32 param0;\n"
                            "\tst.param.b32 [param0+0], %r1;\n"         /* 1 */
                            "\t.param .b32 retval0;\n"
                            "\tcall.uni (retval0), callee, (param0);\n" /* 2 */
                            "\tld.param.b32 %r2, [retval0+0];\n"        /* 3 */
                            "\t} // callseq 0\n"
                            "\t{ // callseq 1, 0\n"
                            "\t.reg .b32 temp_param_reg;\n"
                            "\t.reg .b32 %r1;\n"
                            "\t.param .b32 param0;\n"
                            "\tmov.u32 %r1, 7;\n"                       /* 4: inner %r1 */
                            "\tst.param.b32 [param0+0], %r1;\n"         /* 5 */
                            "\t.param .b32 retval0;\n"
                            "\tcall.uni (retval0), callee, (param0);\n" /* 6 */
                            "\tld.param.b32 %r3, [retval0+0];\n"        /* 7 */
                            "\t{\n\t}\n"
                            "\t}\n"
                            "\tadd.s32 %r1, %r2, %r3;\n"                /* 8: outer %r1 again */
                            "\tret;\n}\n");                             /* 9 */
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->ninsns, 10);
    assert_int_equal(fn->nscopes, 4);
    assert_int_equal(fn->scopes[0].parent, -1);
    assert_int_equal(fn->scopes[0].begin, 0);
    assert_int_equal(fn->scopes[0].end, 10);
    assert_int_equal(fn->scopes[1].parent, 0);
    assert_int_equal(fn->scopes[1].begin, 1);
    assert_int_equal(fn->scopes[1].end, 4);
    assert_int_equal(fn->scopes[2].parent, 0);
    assert_int_equal(fn->scopes[2].begin, 4);
    assert_int_equal(fn->scopes[2].end, 8);
    assert_int_equal(fn->scopes[3].parent, 2);
    assert_int_equal(fn->scopes[3].begin, 8);
    assert_int_equal(fn->scopes[3].end, 8);

    /* Four block-level .param variables, two of each name. */
    assert_int_equal(fn->nvars, 4);
    assert_string_equal(fn->vars[0].name, "param0");
    assert_int_equal(fn->vars[0].scope, 1);
    assert_int_equal(fn->vars[0].space, MB_SPACE_PARAM);
    assert_string_equal(fn->vars[1].name, "retval0");
    assert_string_equal(fn->vars[2].name, "param0");
    assert_int_equal(fn->vars[2].scope, 2);
    assert_string_equal(fn->vars[3].name, "retval0");

    /* Each use refers to its own block's variable. */
    assert_int_equal(opnd(fn, 1, 0)->symkind, MB_SYM_LOCAL_VAR);
    assert_int_equal(opnd(fn, 1, 0)->u.sym, 0);
    assert_int_equal(opnd(fn, 5, 0)->u.sym, 2);
    const mb_operand *rets = opnd(fn, 2, 0);
    assert_int_equal(rets->kind, MB_OPND_LIST);
    assert_int_equal(list_item(fn, rets, 0)->u.sym, 1);
    assert_int_equal(list_item(fn, opnd(fn, 6, 0), 0)->u.sym, 3);
    assert_int_equal(list_item(fn, opnd(fn, 6, 2), 0)->u.sym, 2);

    /* 4 outer + 2 temp_param_reg + inner %r1 */
    assert_int_equal(fn->nregs, 7);
    int outer_r1 = 1;
    assert_string_equal(fn->regs[outer_r1].name, "%r1");
    assert_int_equal(opnd(fn, 0, 0)->u.reg, outer_r1);
    assert_int_equal(opnd(fn, 1, 1)->u.reg, outer_r1);
    uint32_t inner_r1 = opnd(fn, 4, 0)->u.reg;
    assert_int_not_equal(inner_r1, outer_r1);
    assert_string_equal(fn->regs[inner_r1].name, "%r1");
    assert_int_equal(fn->regdecls[fn->regs[inner_r1].decl].scope, 2);
    assert_int_equal(opnd(fn, 5, 1)->u.reg, inner_r1);
    assert_int_equal(opnd(fn, 8, 0)->u.reg, outer_r1);

    char *text = print_module(m);
    assert_non_null(strstr(text, "\t{\n\t\t.param .b32 param0;\n\t\t.param .b32 retval0;\n"
                                 "\t\t.reg .b32 temp_param_reg;\n\t\tst.param.b32 [param0], %r1;\n"));
    assert_non_null(strstr(text, "\t\t{\n\t\t}\n\t}\n\tadd.s32 %r1, %r2, %r3;\n"));
    free(text);
    mb_module_free(m);
}

static void test_labels_and_guards(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k()\n{\n"
                            "\t.reg .pred %p<2>;\n"
                            "\t.reg .b32 %r<3>;\n"
                            "\tmov.u32 %r1, %tid.x;\n"        /* 0 */
                            "\tsetp.eq.s32 %p1, %r1, 0;\n"    /* 1 */
                            "\t@%p1 bra $L__BB0_2;\n"         /* 2: forward reference */
                            "$L__BB0_1:\n"
                            "\tadd.s32 %r1, %r1, -1;\n"       /* 3 */
                            "\tsetp.ne.s32 %p1, %r1, 0;\n"    /* 4 */
                            "\t@!%p1 bra.uni $L__BB0_2;\n"    /* 5 */
                            "\tbra.uni $L__BB0_1;\n"          /* 6 */
                            "$L__BB0_2:\n"
                            "$L__alias:\n"
                            "\tret;\n"                        /* 7 */
                            "$L__end:\n"
                            "}\n");
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->ninsns, 8);
    assert_int_equal(fn->nlabels, 4);
    int l2 = mb_strmap_get(fn->label_names, "$L__BB0_2", 9);
    int l1 = mb_strmap_get(fn->label_names, "$L__BB0_1", 9);
    assert_true(l1 >= 0 && l2 >= 0);
    assert_int_equal(fn->labels[l2].kind, MB_LABEL_CODE);
    assert_int_equal(fn->labels[l2].insn, 7);
    assert_true(fn->labels[l2].defined);
    assert_int_equal(fn->labels[l2].line, 17); /* the definition, not the first use */
    assert_int_equal(fn->labels[l2].col, 1);
    assert_int_equal(fn->labels[l1].insn, 3);
    const mb_label *end = &fn->labels[mb_strmap_get(fn->label_names, "$L__end", 7)];
    assert_int_equal(end->insn, 8);
    const mb_label *alias = &fn->labels[mb_strmap_get(fn->label_names, "$L__alias", 9)];
    assert_int_equal(alias->insn, 7);

    const mb_insn *b = &fn->insns[2];
    assert_int_equal(b->opcode, MB_OP_BRA);
    assert_int_equal(b->guard, find_reg(fn, "%p1"));
    assert_int_equal(b->guard_not, 0);
    assert_int_equal(opnd(fn, 2, 0)->kind, MB_OPND_LABEL);
    assert_int_equal(opnd(fn, 2, 0)->u.label, l2);

    b = &fn->insns[5];
    assert_int_equal(b->guard, find_reg(fn, "%p1"));
    assert_int_equal(b->guard_not, 1);
    assert_true(mb_insn_has_mod(b, MB_MOD_UNI));
    assert_int_equal(fn->insns[6].guard, -1);
    assert_int_equal(opnd(fn, 6, 0)->u.label, l1);
    assert_int_equal(fn->insns[3].line, 13);
    assert_int_equal(fn->insns[3].col, 2);

    assert_string_equal(insn_text(m, fn, 2), "@%p1 bra $L__BB0_2;");
    assert_string_equal(insn_text(m, fn, 5), "@!%p1 bra.uni $L__BB0_2;");

    char *text = print_module(m);
    assert_non_null(strstr(text, "\tbra.uni $L__BB0_1;\n$L__BB0_2:\n$L__alias:\n\tret;\n$L__end:\n}\n"));
    free(text);
    mb_module_free(m);
}

static void test_instruction_suffixes(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k()\n{\n"
                            "\t.reg .pred %p<3>;\n"
                            "\t.reg .f32 %f<10>;\n"
                            "\t.reg .b32 %r<10>;\n"
                            "\t.reg .b64 %rd<3>;\n"
                            "\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"               /* 0 */
                            "\tcvt.rn.f32.s32 %f5, %r1;\n"                                      /* 1 */
                            "\tsetp.lt.and.s32 %p1, %r1, %r2, %p2;\n"                           /* 2 */
                            "\tatom.global.cas.b32 %r3, [%rd1], %r4, %r5;\n"                    /* 3 */
                            "\tshfl.sync.down.b32 %r6|%p2, %r7, 1, 31, -1;\n"                   /* 4 */
                            "\tld.global.L1::evict_last.u32 %r8, [%rd2];\n"                     /* 5 */
                            "\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                            "{%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};\n" /* 6 */
                            "\tmul.wide.u32 %rd1, %r1, 4;\n"                                    /* 7 */
                            "\tcvta.to.global.u64 %rd2, %rd1;\n"                                /* 8 */
                            "\tfma.rn.ftz.sat.f32 %f9, %f1, %f2, %f3;\n"                        /* 9 */
                            "\tbar.sync 0;\n"                                                   /* 10 */
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    static const char *const expect[] = {
        ".global.nc.v4.f32", ".rn.f32.s32", ".lt.and.s32", ".global.cas.b32", ".sync.down.b32",
        ".global.L1::evict_last.u32", ".sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
        ".wide.u32", ".to.global.u64", ".rn.ftz.sat.f32", ".sync", ""};
    static const mb_opcode ops[] = {MB_OP_LD,  MB_OP_CVT, MB_OP_SETP, MB_OP_ATOM,
                                    MB_OP_SHFL, MB_OP_LD, MB_OP_MMA,  MB_OP_MUL,
                                    MB_OP_CVTA, MB_OP_FMA, MB_OP_BAR, MB_OP_RET};
    assert_int_equal(fn->ninsns, 12);
    for (uint32_t i = 0; i < fn->ninsns; i++) {
        assert_int_equal(fn->insns[i].opcode, ops[i]);
        assert_string_equal(suffixes(&fn->insns[i]), expect[i]);
    }
    /* Type suffixes in order, and modifier queries. */
    assert_int_equal(mb_insn_type(&fn->insns[1], 0), MB_TYPE_F32);
    assert_int_equal(mb_insn_type(&fn->insns[1], 1), MB_TYPE_S32);
    assert_int_equal(mb_insn_type(&fn->insns[1], 2), MB_TYPE_NONE);
    assert_int_equal(mb_insn_type(&fn->insns[6], 3), MB_TYPE_F32);
    assert_int_equal(mb_insn_type(&fn->insns[6], 1), MB_TYPE_F16);
    assert_true(mb_insn_has_mod(&fn->insns[0], MB_MOD_NC));
    assert_true(mb_insn_has_mod(&fn->insns[0], MB_MOD_V4));
    assert_true(mb_insn_has_mod(&fn->insns[0], MB_MOD_GLOBAL));
    assert_false(mb_insn_has_mod(&fn->insns[0], MB_MOD_SHARED));
    assert_true(mb_insn_has_mod(&fn->insns[5], MB_MOD_L1_EVICT_LAST));
    assert_int_equal(mb_insn_type(&fn->insns[10], 0), MB_TYPE_NONE);

    /* Operand counts: a vector, pair or address counts as one. */
    assert_int_equal(fn->insns[0].noperands, 2);
    assert_int_equal(fn->insns[2].noperands, 4);
    assert_int_equal(fn->insns[4].noperands, 5);
    assert_int_equal(fn->insns[6].noperands, 4);
    const mb_operand *pair = opnd(fn, 4, 0);
    assert_int_equal(pair->kind, MB_OPND_PAIR);
    assert_string_equal(fn->regs[pair->u.pair.first].name, "%r6");
    assert_string_equal(fn->regs[pair->u.pair.second].name, "%p2");

    assert_string_equal(insn_text(m, fn, 0), "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
    assert_string_equal(insn_text(m, fn, 4), "shfl.sync.down.b32 %r6|%p2, %r7, 1, 31, -1;");
    assert_string_equal(insn_text(m, fn, 6),
                        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, "
                        "{%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};");
    mb_module_free(m);
}

static void test_operand_addresses_and_vectors(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".global .align 4 .u32 gsym[4];\n"
                            ".global .texref tex0;\n"
                            ".entry k(.param .u64 k_p)\n{\n"
                            "\t.reg .f32 %f<5>;\n"
                            "\t.reg .b32 %r<4>;\n"
                            "\t.reg .b64 %rd<3>;\n"
                            "\tld.param.u64 %rd1, [k_p];\n"                        /* 0 */
                            "\tld.global.v2.u32 {%r1, %r2}, [%rd1+8];\n"          /* 1 */
                            "\tld.global.u32 %r3, [%rd1+-8];\n"                   /* 2 */
                            "\tld.global.u32 %r3, [gsym];\n"                      /* 3 */
                            "\tld.global.u32 %r3, [gsym+4];\n"                    /* 4 */
                            "\tld.global.u32 %r3, [1024];\n"                      /* 5 */
                            "\ttex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2}];\n" /* 6 */
                            "\tmov.u64 %rd2, gsym;\n"                             /* 7 */
                            "\tmov.u64 %rd2, gsym+12;\n"                          /* 8 */
                            "\tst.global.v2.u32 [%rd1], {%r1, %r2};\n"           /* 9 */
                            "\tld.global.u32 %r3, [%rd1-4];\n"                    /* 10 */
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    const mb_operand *o = opnd(fn, 0, 1);
    assert_int_equal(o->kind, MB_OPND_ADDR);
    assert_int_equal(o->base_kind, MB_OPND_SYMBOL);
    assert_int_equal(o->symkind, MB_SYM_PARAM);
    assert_int_equal(o->u.sym, 0);
    assert_int_equal(o->offset, 0);

    o = opnd(fn, 1, 0);
    assert_int_equal(o->kind, MB_OPND_VEC);
    assert_int_equal(o->u.list.count, 2);
    assert_string_equal(reg_of(fn, list_item(fn, o, 0)), "%r1");
    assert_string_equal(reg_of(fn, list_item(fn, o, 1)), "%r2");
    o = opnd(fn, 1, 1);
    assert_int_equal(o->kind, MB_OPND_ADDR);
    assert_int_equal(o->base_kind, MB_OPND_REG);
    assert_string_equal(fn->regs[o->u.reg].name, "%rd1");
    assert_int_equal(o->offset, 8);

    assert_int_equal(opnd(fn, 2, 1)->offset, -8);
    assert_int_equal(opnd(fn, 10, 1)->offset, -4);

    o = opnd(fn, 3, 1);
    assert_int_equal(o->base_kind, MB_OPND_SYMBOL);
    assert_int_equal(o->symkind, MB_SYM_GLOBAL_VAR);
    assert_int_equal(o->u.sym, gvar_index(m, "gsym"));
    assert_int_equal(o->offset, 0);
    assert_int_equal(opnd(fn, 4, 1)->offset, 4);

    o = opnd(fn, 5, 1);
    assert_int_equal(o->kind, MB_OPND_ADDR);
    assert_int_equal(o->base_kind, MB_OPND_IMM);
    assert_int_equal(o->u.bits, 1024);

    o = opnd(fn, 6, 1);
    assert_int_equal(o->kind, MB_OPND_BRACKET_LIST);
    assert_int_equal(o->u.list.count, 2);
    const mb_operand *h = list_item(fn, o, 0);
    assert_int_equal(h->kind, MB_OPND_SYMBOL);
    assert_int_equal(h->u.sym, gvar_index(m, "tex0"));
    const mb_operand *coords = list_item(fn, o, 1);
    assert_int_equal(coords->kind, MB_OPND_VEC);
    assert_int_equal(coords->u.list.count, 2);

    o = opnd(fn, 7, 1);
    assert_int_equal(o->kind, MB_OPND_SYMBOL);
    assert_int_equal(o->u.sym, gvar_index(m, "gsym"));
    assert_int_equal(o->offset, 0);
    assert_int_equal(opnd(fn, 8, 1)->offset, 12);
    assert_int_equal(opnd(fn, 9, 1)->kind, MB_OPND_VEC);

    assert_string_equal(insn_text(m, fn, 0), "ld.param.u64 %rd1, [k_p];");
    assert_string_equal(insn_text(m, fn, 2), "ld.global.u32 %r3, [%rd1+-8];");
    assert_string_equal(insn_text(m, fn, 4), "ld.global.u32 %r3, [gsym+4];");
    assert_string_equal(insn_text(m, fn, 5), "ld.global.u32 %r3, [1024];");
    assert_string_equal(insn_text(m, fn, 6),
                        "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1, %r2}];");
    assert_string_equal(insn_text(m, fn, 8), "mov.u64 %rd2, gsym+12;");
    mb_module_free(m);
}

static void test_operand_special_registers(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<8>;\n"
                            "\t.reg .b64 %rd<3>;\n"
                            "\tmov.u32 %r1, %tid.x;\n"
                            "\tmov.u32 %r2, %ctaid.y;\n"
                            "\tmov.u32 %r3, %laneid;\n"
                            "\tmov.u32 %r4, %envreg3;\n"
                            "\tmov.u64 %rd1, %pm0_64;\n"
                            "\tmov.u32 %r5, %pm7;\n"
                            "\tmov.u32 %r6, %ntid.z;\n"
                            "\tmov.u64 %rd2, %clock64;\n"
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    static const struct {
        mb_sreg id;
        unsigned comp;
        const char *text;
    } expect[] = {{MB_SREG_TID, 1, "%tid.x"},       {MB_SREG_CTAID, 2, "%ctaid.y"},
                  {MB_SREG_LANEID, 0, "%laneid"},   {MB_SREG_ENVREG, 3, "%envreg3"},
                  {MB_SREG_PM, 1000, "%pm0_64"},    {MB_SREG_PM, 7, "%pm7"},
                  {MB_SREG_NTID, 3, "%ntid.z"},     {MB_SREG_CLOCK64, 0, "%clock64"}};
    for (uint32_t i = 0; i < 8; i++) {
        const mb_operand *o = opnd(fn, i, 1);
        assert_int_equal(o->kind, MB_OPND_SREG);
        assert_int_equal(o->u.sreg.id, expect[i].id);
        assert_int_equal(o->u.sreg.comp, expect[i].comp);
        char want[64];
        snprintf(want, sizeof(want), "%s", insn_text(m, fn, i));
        assert_non_null(strstr(want, expect[i].text));
    }
    assert_int_equal(mb_sreg_form_of(MB_SREG_TID), MB_SREG_FORM_VEC);
    assert_int_equal(mb_sreg_form_of(MB_SREG_LANEID), MB_SREG_FORM_SCALAR);
    assert_string_equal(mb_sreg_name(MB_SREG_CTAID), "%ctaid");
    mb_module_free(m);
}

static void test_operand_immediates(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k()\n{\n"
                            "\t.reg .pred %p<3>;\n"
                            "\t.reg .b32 %r<12>;\n"
                            "\t.reg .f32 %f<6>;\n"
                            "\t.reg .f64 %fd<3>;\n"
                            "\t.reg .b64 %rd<3>;\n"
                            "\tmov.u32 %r1, 0x1F;\n"                  /* 0 */
                            "\tmov.u32 %r2, 017;\n"                   /* 1 */
                            "\tmov.u32 %r3, 0b1011;\n"                /* 2 */
                            "\tmov.u32 %r4, 42U;\n"                   /* 3 */
                            "\tadd.s32 %r5, %r4, -5;\n"               /* 4 */
                            "\tmov.f32 %f1, 0f3F800000;\n"            /* 5 */
                            "\tmov.f64 %fd1, 0d400921FB54442D18;\n"   /* 6 */
                            "\tmov.f32 %f2, 1.5;\n"                   /* 7 */
                            "\tmov.f64 %fd2, 2.5e-3;\n"               /* 8 */
                            "\tmov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;\n"   /* 9 */
                            "\tmov.u32 %r6, 0;\n"                     /* 10 */
                            "\tmov.f32 %f3, -0f3F800000;\n"           /* 11 */
                            "\tmov.u32 %r7, 0XffU;\n"                 /* 12 */
                            "\tatom.global.add.u32 _, [%rd1], 1;\n"   /* 13 */
                            "\tand.pred %p1, !%p2, %p1;\n"            /* 14 */
                            "\tmov.u64 %rd2, 18446744073709551615;\n" /* 15 */
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    static const struct {
        uint32_t insn;
        mb_operand_kind kind;
        uint64_t bits;
        int neglit;
        const char *text;
    } expect[] = {
        {0, MB_OPND_IMM, 31, 0, "mov.u32 %r1, 31;"},
        {1, MB_OPND_IMM, 15, 0, "mov.u32 %r2, 15;"},
        {2, MB_OPND_IMM, 11, 0, "mov.u32 %r3, 11;"},
        {3, MB_OPND_IMM, 42, 0, "mov.u32 %r4, 42;"},
        {5, MB_OPND_F32, 0x3F800000, 0, "mov.f32 %f1, 0f3F800000;"},
        {6, MB_OPND_F64, UINT64_C(0x400921FB54442D18), 0, "mov.f64 %fd1, 0d400921FB54442D18;"},
        {7, MB_OPND_F64, UINT64_C(0x3FF8000000000000), 0, "mov.f32 %f2, 0d3FF8000000000000;"},
        {9, MB_OPND_IMM, UINT64_MAX, 0, "mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;"},
        {10, MB_OPND_IMM, 0, 0, "mov.u32 %r6, 0;"},
        {11, MB_OPND_F32, 0xBF800000, 0, "mov.f32 %f3, 0fBF800000;"},
        {12, MB_OPND_IMM, 255, 0, "mov.u32 %r7, 255;"},
        {15, MB_OPND_IMM, UINT64_MAX, 0, "mov.u64 %rd2, 0xFFFFFFFFFFFFFFFF;"},
    };
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        const mb_operand *o = opnd(fn, expect[i].insn, 1);
        assert_int_equal(o->kind, expect[i].kind);
        assert_int_equal(o->u.bits, expect[i].bits);
        assert_int_equal((o->flags & MB_OPND_NEGLIT) != 0, expect[i].neglit);
        assert_string_equal(insn_text(m, fn, expect[i].insn), expect[i].text);
    }
    const mb_operand *neg = opnd(fn, 4, 2);
    assert_int_equal(neg->kind, MB_OPND_IMM);
    assert_int_equal(neg->u.bits, (uint64_t)-5);
    assert_true(neg->flags & MB_OPND_NEGLIT);
    assert_string_equal(insn_text(m, fn, 4), "add.s32 %r5, %r4, -5;");

    assert_int_equal(opnd(fn, 8, 1)->kind, MB_OPND_F64);
    assert_int_equal(opnd(fn, 8, 1)->u.bits, dbits(2.5e-3));

    assert_int_equal(opnd(fn, 13, 0)->kind, MB_OPND_SINK);
    assert_string_equal(insn_text(m, fn, 13), "atom.global.add.u32 _, [%rd1], 1;");

    const mb_operand *np = opnd(fn, 14, 1);
    assert_int_equal(np->kind, MB_OPND_REG);
    assert_int_equal(np->flags, MB_OPND_NOT);
    assert_string_equal(fn->regs[np->u.reg].name, "%p2");
    assert_int_equal(opnd(fn, 14, 2)->flags, 0);
    assert_string_equal(insn_text(m, fn, 14), "and.pred %p1, !%p2, %p1;");
    mb_module_free(m);
}

static void test_calls_prototypes_indirect(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".func (.param .b32 callee_ret) callee(.param .b32 callee_a, .param "
                            ".b32 callee_b)\n{\n\t.reg .b32 %r<2>;\n"
                            "\tld.param.b32 %r1, [callee_a];\n"
                            "\tst.param.b32 [callee_ret], %r1;\n\tret;\n}\n"
                            ".func sink_fn(.param .b32 s)\n{\n\tret;\n}\n"
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<4>;\n"
                            "\t.reg .b64 %rd<2>;\n"
                            "\tmov.u32 %r1, 1;\n"                                         /* 0 */
                            "\t{\n"
                            "\t.param .b32 param0;\n"
                            "\t.param .b32 param1;\n"
                            "\t.param .b32 retval0;\n"
                            "\tst.param.b32 [param0], %r1;\n"                             /* 1 */
                            "\tst.param.b32 [param1], %r1;\n"                             /* 2 */
                            "\tcall.uni (retval0), \n\tcallee, \n\t(\n\tparam0, \n\tparam1\n\t);\n" /* 3 */
                            "\tld.param.b32 %r2, [retval0];\n"                            /* 4 */
                            "\t}\n"
                            "\tmov.u64 %rd1, callee;\n"                                   /* 5 */
                            "\t{\n"
                            "\t.param .b32 param0;\n"
                            "\t.param .b32 param1;\n"
                            "\t.param .b32 retval0;\n"
                            "\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, "
                            ".param .b32 _);\n"
                            "\tcall (retval0), %rd1, (param0, param1), prototype_0;\n"   /* 6 */
                            "\tld.param.b32 %r3, [retval0];\n"                            /* 7 */
                            "\t}\n"
                            "\t{\n"
                            "\t.param .b32 param0;\n"
                            "\tcall.uni sink_fn, (param0);\n"                             /* 8 */
                            "\t}\n"
                            "\t{\n"
                            "\tproto_void : .callprototype ()_ (.param .b32 _);\n"
                            "\tcall %rd1, (%r1), proto_void;\n"                           /* 9 */
                            "\t}\n"
                            "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    int callee = (int)(func(m, "callee") - m->funcs);

    const mb_insn *call = &fn->insns[3];
    assert_int_equal(call->opcode, MB_OP_CALL);
    assert_true(mb_insn_has_mod(call, MB_MOD_UNI));
    assert_int_equal(call->noperands, 3);
    const mb_operand *rets = opnd(fn, 3, 0);
    assert_int_equal(rets->kind, MB_OPND_LIST);
    assert_int_equal(rets->u.list.count, 1);
    assert_int_equal(list_item(fn, rets, 0)->kind, MB_OPND_SYMBOL);
    assert_int_equal(list_item(fn, rets, 0)->symkind, MB_SYM_LOCAL_VAR);
    assert_string_equal(fn->vars[list_item(fn, rets, 0)->u.sym].name, "retval0");
    const mb_operand *target = opnd(fn, 3, 1);
    assert_int_equal(target->kind, MB_OPND_SYMBOL);
    assert_int_equal(target->symkind, MB_SYM_FUNC);
    assert_int_equal(target->u.sym, callee);
    const mb_operand *args = opnd(fn, 3, 2);
    assert_int_equal(args->kind, MB_OPND_LIST);
    assert_int_equal(args->u.list.count, 2);
    assert_string_equal(fn->vars[list_item(fn, args, 1)->u.sym].name, "param1");
    assert_string_equal(insn_text(m, fn, 3), "call.uni (retval0), callee, (param0, param1);");

    /* The address of a function. */
    assert_int_equal(opnd(fn, 5, 1)->kind, MB_OPND_SYMBOL);
    assert_int_equal(opnd(fn, 5, 1)->symkind, MB_SYM_FUNC);

    /* Indirect call through a register with a prototype label. */
    int proto = mb_strmap_get(fn->label_names, "prototype_0", 11);
    assert_true(proto >= 0);
    const mb_label *pl = &fn->labels[proto];
    assert_int_equal(pl->kind, MB_LABEL_CALLPROTOTYPE);
    assert_int_equal(pl->nproto_rets, 1);
    assert_string_equal(pl->proto_rets[0].name, "_");
    assert_int_equal(pl->proto_rets[0].type, MB_TYPE_B32);
    assert_int_equal(pl->nproto_params, 2);
    assert_string_equal(pl->proto_params[1].name, "_");
    assert_int_equal(pl->proto_noreturn, 0);
    assert_int_equal(pl->scope, 2);
    assert_int_equal(fn->insns[6].noperands, 4);
    assert_string_equal(reg_of(fn, opnd(fn, 6, 1)), "%rd1");
    assert_int_equal(opnd(fn, 6, 3)->kind, MB_OPND_LABEL);
    assert_int_equal(opnd(fn, 6, 3)->u.label, proto);
    assert_string_equal(insn_text(m, fn, 6), "call (retval0), %rd1, (param0, param1), prototype_0;");

    /* No return value. */
    assert_int_equal(fn->insns[8].noperands, 2);
    assert_int_equal(opnd(fn, 8, 0)->kind, MB_OPND_SYMBOL);
    assert_int_equal(opnd(fn, 8, 1)->kind, MB_OPND_LIST);

    const mb_label *pv = &fn->labels[mb_strmap_get(fn->label_names, "proto_void", 10)];
    assert_int_equal(pv->nproto_rets, 0);
    assert_int_equal(pv->nproto_params, 1);
    assert_string_equal(insn_text(m, fn, 9), "call %rd1, (%r1), proto_void;");

    char *text = print_module(m);
    assert_non_null(strstr(text, "\t\tprototype_0: .callprototype (.param .b32 _) _ "
                                 "(.param .b32 _, .param .b32 _);\n"));
    assert_non_null(strstr(text, "\t\tproto_void: .callprototype _ (.param .b32 _);\n"));
    free(text);
    mb_module_free(m);
}

static void test_branchtargets_brx(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".func f1() { ret; }\n"
                            ".func f2() { ret; }\n"
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<3>;\n"
                            "\t.reg .b64 %rd<2>;\n"
                            "\tmov.u32 %r1, %tid.x;\n"                       /* 0 */
                            "\trem.u32 %r2, %r1, 3;\n"                       /* 1 */
                            "$L_brx_0: .branchtargets $L_c0, $L_c1, $L_c2;\n"
                            "\tbrx.idx %r2, $L_brx_0;\n"                     /* 2 */
                            "$L_c0:\n\tbra.uni $L_end;\n"                    /* 3 */
                            "$L_c1:\n\tbra.uni $L_end;\n"                    /* 4 */
                            "$L_c2:\n\tmov.u64 %rd1, f1;\n"                  /* 5 */
                            "$L_ct: .calltargets f1, f2;\n"
                            "$L_end:\n\tret;\n}\n");                         /* 6 */
    const mb_function *fn = func(m, "k");
    int ts = mb_strmap_get(fn->label_names, "$L_brx_0", 8);
    const mb_label *l = &fn->labels[ts];
    assert_int_equal(l->kind, MB_LABEL_BRANCHTARGETS);
    assert_int_equal(l->ntargets, 3);
    assert_string_equal(fn->labels[l->targets[0]].name, "$L_c0");
    assert_string_equal(fn->labels[l->targets[2]].name, "$L_c2");
    assert_int_equal(fn->labels[l->targets[0]].insn, 3);
    assert_int_equal(fn->labels[l->targets[1]].insn, 4);
    assert_int_equal(fn->labels[l->targets[2]].insn, 5);

    assert_int_equal(fn->insns[2].opcode, MB_OP_BRX);
    assert_true(mb_insn_has_mod(&fn->insns[2], MB_MOD_IDX));
    assert_string_equal(reg_of(fn, opnd(fn, 2, 0)), "%r2");
    assert_int_equal(opnd(fn, 2, 1)->kind, MB_OPND_LABEL);
    assert_int_equal(opnd(fn, 2, 1)->u.label, ts);

    const mb_label *ct = &fn->labels[mb_strmap_get(fn->label_names, "$L_ct", 5)];
    assert_int_equal(ct->kind, MB_LABEL_CALLTARGETS);
    assert_int_equal(ct->ntargets, 2);
    assert_string_equal(m->funcs[ct->targets[0]].name, "f1");
    assert_string_equal(m->funcs[ct->targets[1]].name, "f2");

    char *text = print_module(m);
    assert_non_null(strstr(text, "\t$L_brx_0: .branchtargets $L_c0, $L_c1, $L_c2;\n"
                                 "\tbrx.idx %r2, $L_brx_0;\n$L_c0:\n"));
    assert_non_null(strstr(text, "\t$L_ct: .calltargets f1, f2;\n$L_end:\n"));
    free(text);
    mb_module_free(m);
}

/* A target list of forward references grows the label table while the list's own label
 * is being filled in; the parser must not keep a pointer into the old table. */
static void test_branchtargets_forward_references_grow_labels(void **state)
{
    (void)state;
    enum { NTARGETS = 64 };
    char src[8192];
    size_t len = (size_t)snprintf(src, sizeof(src),
                                  "%s.entry k()\n{\n\t.reg .b32 %%r<2>;\n"
                                  "\tmov.u32 %%r1, %%tid.x;\n$L_ts: .branchtargets ",
                                  HDR);
    for (int i = 0; i < NTARGETS; i++)
        len += (size_t)snprintf(src + len, sizeof(src) - len, "%s$L_t%d", i ? ", " : "", i);
    len += (size_t)snprintf(src + len, sizeof(src) - len, ";\n\tbrx.idx %%r1, $L_ts;\n");
    for (int i = 0; i < NTARGETS; i++)
        len += (size_t)snprintf(src + len, sizeof(src) - len, "$L_t%d:\n\tret;\n", i);
    snprintf(src + len, sizeof(src) - len, "}\n");
    mb_module *m = parse_rt(src);
    const mb_function *fn = func(m, "k");
    const mb_label *l = &fn->labels[mb_strmap_get(fn->label_names, "$L_ts", 5)];
    assert_int_equal(l->kind, MB_LABEL_BRANCHTARGETS);
    assert_int_equal(l->ntargets, NTARGETS);
    assert_string_equal(fn->labels[l->targets[NTARGETS - 1]].name, "$L_t63");
    assert_int_equal(fn->labels[l->targets[NTARGETS - 1]].insn, 2 + NTARGETS - 1);
    mb_module_free(m);
}

/* ----------------------------------------------------- debug info */

static void test_loc_directives(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".file 1 \"/src/a.cu\"\n"
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<3>;\n"
                            "\tmov.u32 %r1, 0;\n"                                    /* 0: no loc */
                            "\t.loc 1 10 5\n"
                            "\tmov.u32 %r2, 1;\n"                                    /* 1 */
                            "\tadd.s32 %r1, %r1, %r2;\n"                             /* 2 */
                            "\t.loc 1 12 3, function_name $L__info_string0, inlined_at 1 20 7\n"
                            "\tadd.s32 %r1, %r1, 1;\n"                               /* 3 */
                            "\t.loc 1 14 9, function_name $L__info_string1+4, inlined_at 2 30 1\n"
                            "\tret;\n}\n");                                          /* 4 */
    const mb_function *fn = func(m, "k");
    assert_int_equal(m->nlocs, 3);
    assert_int_equal(fn->loc_begin, 0);
    assert_int_equal(fn->loc_end, 3);
    assert_int_equal(fn->insns[0].loc, -1);
    assert_int_equal(fn->insns[1].loc, 0);
    assert_int_equal(fn->insns[2].loc, 0);
    assert_int_equal(fn->insns[3].loc, 1);
    assert_int_equal(fn->insns[4].loc, 2);

    const mb_loc *l = &m->locs[0];
    assert_int_equal(l->file, 1);
    assert_int_equal(l->line, 10);
    assert_int_equal(l->col, 5);
    assert_null(l->function_name);
    assert_int_equal(l->insn, 1);

    l = &m->locs[1];
    assert_int_equal(l->line, 12);
    assert_string_equal(l->function_name, "$L__info_string0");
    assert_int_equal(l->function_name_offset, 0);
    assert_int_equal(l->inlined_file, 1);
    assert_int_equal(l->inlined_line, 20);
    assert_int_equal(l->inlined_col, 7);
    assert_int_equal(l->insn, 3);

    l = &m->locs[2];
    assert_string_equal(l->function_name, "$L__info_string1");
    assert_int_equal(l->function_name_offset, 4);
    assert_int_equal(l->inlined_file, 2);
    assert_int_equal(l->inlined_line, 30);
    assert_int_equal(l->inlined_col, 1);

    char *text = print_module(m);
    assert_non_null(strstr(text, "\tmov.u32 %r1, 0;\n\t.loc 1 10 5\n\tmov.u32 %r2, 1;\n"));
    assert_non_null(strstr(text, "\t.loc 1 12 3, function_name $L__info_string0, inlined_at 1 20 7\n"
                                 "\tadd.s32 %r1, %r1, 1;\n"));
    assert_non_null(strstr(text, "\t.loc 1 14 9, function_name $L__info_string1+4, inlined_at 2 30 1\n"
                                 "\tret;\n"));
    free(text);
    mb_module_free(m);
}

static void test_file_directives(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".file 1 \"/src/a.cu\"\n"
                            ".file 2 \"/usr/include/b.cuh\", 1700000000, 4242\n"
                            ".entry k() { ret; }\n");
    assert_int_equal(m->nfiles, 2);
    assert_int_equal(m->files[0].index, 1);
    assert_string_equal(m->files[0].name, "/src/a.cu");
    assert_int_equal(m->files[0].has_meta, 0);
    assert_int_equal(m->files[1].index, 2);
    assert_string_equal(m->files[1].name, "/usr/include/b.cuh");
    assert_int_equal(m->files[1].has_meta, 1);
    assert_int_equal(m->files[1].timestamp, 1700000000);
    assert_int_equal(m->files[1].size, 4242);
    assert_int_equal(m->items[0].kind, MB_ITEM_FILE);
    assert_int_equal(m->items[1].kind, MB_ITEM_FILE);
    char *text = print_module(m);
    assert_non_null(strstr(text, ".file 1 \"/src/a.cu\"\n"));
    assert_non_null(strstr(text, ".file 2 \"/usr/include/b.cuh\", 1700000000, 4242\n"));
    free(text);
    mb_module_free(m);
}

static void test_sections_kept_verbatim(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR
                            ".entry k() { ret; }\n"
                            "\t.section\t.debug_str\n\t{\n"
                            "$L__info_string0:\n"
                            ".b8 95,90,51,102,111,111,0\n"
                            "\t}\n"
                            ".section .debug_info\n{\n.b32 42\n.b8 2\n.b64 $L__func_begin0\n}\n"
                            ".section .debug_loc { }\n");
    assert_int_equal(m->nsections, 3);
    assert_string_equal(m->sections[0].text,
                        ".section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,51,102,111,111,0\n\t}");
    assert_string_equal(m->sections[1].text,
                        ".section .debug_info\n{\n.b32 42\n.b8 2\n.b64 $L__func_begin0\n}");
    assert_string_equal(m->sections[2].text, ".section .debug_loc { }");
    assert_int_equal(m->items[1].kind, MB_ITEM_SECTION);
    assert_int_equal(m->items[1].index, 0);
    mb_module_free(m);
}

static void test_dwarf_lines_and_comments(void **state)
{
    (void)state;
    mb_module *m = parse_rt("// leading comment\n"
                            "/* block\n   comment */ .version 9.0\n"
                            ".target sm_75 // trailing\n"
                            "@@DWARF .section .debug_abbrev, \"\", @progbits\n"
                            "@@DWARF .byte 1 // anything at all ; { [\n"
                            ".address_size 64\n"
                            ".entry k()\n{\n"
                            "\t.reg .b32 %r<4>;\n"
                            "\tadd.s32 /* inside */ %r1, // split\n"
                            "\t\t%r2, %r3; // done\n"
                            "\t/* a comment\n with a newline */ ret;\n"
                            "}\n");
    assert_int_equal(m->version_major, 9);
    assert_int_equal(m->address_size, 64);
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->ninsns, 2);
    assert_int_equal(fn->insns[0].opcode, MB_OP_ADD);
    assert_int_equal(fn->insns[0].line, 11);
    assert_int_equal(fn->insns[0].col, 2);
    assert_string_equal(insn_text(m, fn, 0), "add.s32 %r1, %r2, %r3;");
    assert_int_equal(fn->insns[1].line, 14);
    assert_int_equal(fn->insns[1].col, 20);
    assert_int_equal(m->nsections, 0);
    mb_module_free(m);
}

static void test_module_pragma_and_find(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR ".pragma \"nounroll\";\n.entry k()\n{\n"
                                "\t.reg .b32 %r<2>;\n"
                                "\t.pragma \"nounroll\";\n"
                                "\tmov.u32 %r1, 1;\n\tret;\n}\n");
    assert_int_equal(m->npragmas, 1);
    assert_string_equal(m->pragmas[0], "nounroll");
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->npragmas, 1);
    assert_int_equal(fn->pragmas[0].insn, 0);
    assert_string_equal(fn->pragmas[0].text, "nounroll");
    assert_null(mb_module_find_function(m, "nope"));
    assert_null(mb_module_find_function(m, "%r1"));
    mb_module_free(m);
}

/* Function-level .local and .shared variables. */
static void test_function_variables(void **state)
{
    (void)state;
    mb_module *m = parse_rt(HDR ".entry k()\n{\n"
                                "\t.local .align 8 .b8 __local_depot0[40];\n"
                                "\t.shared .align 4 .f32 tile[16][17];\n"
                                "\t.reg .b64 %SP, %SPL;\n"
                                "\t.reg .b32 %r<2>;\n"
                                "\tmov.u64 %SPL, __local_depot0;\n"
                                "\tld.shared.f32 %r1, [tile+68];\n"
                                "\tret;\n}\n");
    const mb_function *fn = func(m, "k");
    assert_int_equal(fn->nvars, 2);
    assert_string_equal(fn->vars[0].name, "__local_depot0");
    assert_int_equal(fn->vars[0].space, MB_SPACE_LOCAL);
    assert_int_equal(fn->vars[0].align, 8);
    assert_int_equal(fn->vars[0].size, 40);
    assert_int_equal(fn->vars[0].scope, 0);
    assert_int_equal(fn->vars[1].space, MB_SPACE_SHARED);
    assert_int_equal(fn->vars[1].nelems, 16 * 17);
    assert_int_equal(fn->vars[1].size, 16 * 17 * 4);
    assert_int_equal(opnd(fn, 0, 1)->symkind, MB_SYM_LOCAL_VAR);
    assert_int_equal(opnd(fn, 0, 1)->u.sym, 0);
    assert_int_equal(opnd(fn, 1, 1)->symkind, MB_SYM_LOCAL_VAR);
    assert_int_equal(opnd(fn, 1, 1)->u.sym, 1);
    assert_int_equal(opnd(fn, 1, 1)->offset, 68);
    mb_module_free(m);
}

static void test_parse_file(void **state)
{
    (void)state;
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_parse_file(MB_TEST_DATA "/ptx/cfg_diamond.ptx", &m, &err), MB_OK);
    assert_non_null(m);
    assert_string_equal(m->filename, MB_TEST_DATA "/ptx/cfg_diamond.ptx");
    assert_non_null(mb_module_find_function(m, "diamond"));
    free(roundtrip(m));
    mb_module_free(m);

    m = (mb_module *)&err; /* must be reset to NULL on failure */
    assert_int_equal(mb_ptx_parse_file(MB_TEST_DATA "/ptx/no_such_file.ptx", &m, &err), MB_ERR_IO);
    assert_null(m);
    assert_string_equal(err.file, MB_TEST_DATA "/ptx/no_such_file.ptx");
}

static void test_tables(void **state)
{
    (void)state;
    assert_int_equal(mb_opcode_lookup("mad", 3), MB_OP_MAD);
    assert_int_equal(mb_opcode_lookup("frobnicate", 10), -1);
    assert_string_equal(mb_opcode_get(MB_OP_BRA)->name, "bra");
    assert_true(mb_opcode_get(MB_OP_BRA)->flags & MB_OPF_T);
    assert_true(mb_opcode_get(MB_OP_CALL)->flags & MB_OPF_C);
    assert_false(mb_opcode_get(MB_OP_CALL)->flags & MB_OPF_T);
    assert_int_equal(mb_opcode_get(MB_OP_LD)->cls, MB_CLASS_MEM);
    assert_int_equal(mb_type_lookup("f16x2", 5), MB_TYPE_F16X2);
    assert_int_equal(mb_type_lookup("s33", 3), MB_TYPE_NONE);
    assert_int_equal(mb_type_size(MB_TYPE_F64), 8);
    assert_int_equal(mb_type_size(MB_TYPE_PRED), 0);
    assert_int_equal(mb_type_kind_of(MB_TYPE_S32), MB_TYPE_KIND_S);
    assert_int_equal(mb_mod_lookup("L1::evict_last", 14), MB_MOD_L1_EVICT_LAST);
    assert_int_equal(mb_mod_lookup("bogus", 5), MB_MOD_NONE);
    assert_string_equal(mb_space_name(MB_SPACE_SHARED), ".shared");
    assert_string_equal(mb_space_name(MB_SPACE_NONE), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_module_header),
        cmocka_unit_test(test_module_variables_spaces),
        cmocka_unit_test(test_module_variable_arrays),
        cmocka_unit_test(test_module_variable_initialisers),
        cmocka_unit_test(test_module_linkage_and_attributes),
        cmocka_unit_test(test_entry_params),
        cmocka_unit_test(test_func_returns_prototypes_extern),
        cmocka_unit_test(test_perf_directives),
        cmocka_unit_test(test_reg_declarations),
        cmocka_unit_test(test_nested_scopes_shadowing),
        cmocka_unit_test(test_labels_and_guards),
        cmocka_unit_test(test_instruction_suffixes),
        cmocka_unit_test(test_operand_addresses_and_vectors),
        cmocka_unit_test(test_operand_special_registers),
        cmocka_unit_test(test_operand_immediates),
        cmocka_unit_test(test_calls_prototypes_indirect),
        cmocka_unit_test(test_branchtargets_brx),
        cmocka_unit_test(test_branchtargets_forward_references_grow_labels),
        cmocka_unit_test(test_loc_directives),
        cmocka_unit_test(test_file_directives),
        cmocka_unit_test(test_sections_kept_verbatim),
        cmocka_unit_test(test_dwarf_lines_and_comments),
        cmocka_unit_test(test_module_pragma_and_find),
        cmocka_unit_test(test_function_variables),
        cmocka_unit_test(test_parse_file),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

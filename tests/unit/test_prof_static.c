/* The profiler's static analyses (prof_static.c): value sources of branch
 * conditions and addresses, address bases and def-use distances, on small
 * kernels whose expectations are worked out by hand in the comments, plus
 * every function of every example and of tests/ptx, a few examples built
 * again with nvcc -G (when nvcc is installed), odd forms that must not
 * crash, and a large generated function. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profiler/src/prof.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MB_EXAMPLES_DIR
#define MB_EXAMPLES_DIR "examples"
#endif
#ifndef MB_TEST_DATA
#define MB_TEST_DATA "tests"
#endif

#define HEADER ".version 7.8\n.target sm_80\n.address_size 64\n"

/* ------------------------------------------------------------ helpers */

typedef struct fixture {
    mb_module *m;
    const mb_function *fn;
    mb_cfg cfg;
    prof_static s;
} fixture;

static void analyse(fixture *fx, const char *ptx, const char *func)
{
    memset(fx, 0, sizeof(*fx));
    mb_error err;
    mb_error_clear(&err);
    char msg[2048];
    if (mb_ptx_parse(ptx, strlen(ptx), "test.ptx", &fx->m, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    fx->fn = mb_module_find_function(fx->m, func);
    if (!fx->fn)
        fail_msg("no function '%s'", func);
    if (mb_cfg_build(fx->fn, &fx->cfg, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    if (prof_static_analyse(fx->m, fx->fn, &fx->cfg, &fx->s, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
}

static void release(fixture *fx)
{
    prof_static_free(&fx->s, &fx->cfg);
    assert_null(fx->s.source);
    mb_cfg_free(&fx->cfg);
    mb_module_free(fx->m);
}

/* The one instruction whose canonical text starts with `prefix`. */
static uint32_t find(const fixture *fx, const char *prefix)
{
    uint32_t found = UINT32_MAX;
    size_t n = strlen(prefix);
    for (uint32_t i = 0; i < fx->fn->ninsns; i++) {
        mb_buf b = MB_BUF_INIT;
        mb_ptx_print_insn(fx->m, fx->fn, &fx->fn->insns[i], &b);
        int match = b.data && strncmp(b.data, prefix, n) == 0;
        mb_buf_free(&b);
        if (match) {
            if (found != UINT32_MAX)
                fail_msg("'%s' matches instructions %u and %u", prefix, found, i);
            found = i;
        }
    }
    if (found == UINT32_MAX)
        fail_msg("no instruction starts with '%s'", prefix);
    return found;
}

static const char *src_text(unsigned s, char *buf)
{
    static const char *names[] = {"CONST", "TID", "CTAID", "PARAM", "DATA", "LOOP"};
    buf[0] = 0;
    for (int k = 0; k < 6; k++)
        if (s & (1u << k)) {
            if (buf[0])
                strcat(buf, "|");
            strcat(buf, names[k]);
        }
    if (!buf[0])
        strcpy(buf, "0");
    return buf;
}

static void expect_source(const fixture *fx, const char *insn, unsigned want)
{
    uint32_t i = find(fx, insn);
    unsigned got = fx->s.source[i];
    if (got != want) {
        char a[64], b[64];
        fail_msg("'%s': source %s, expected %s", insn, src_text(got, a), src_text(want, b));
    }
}

static void expect_base(const fixture *fx, const char *insn, prof_base_kind kind, uint32_t index)
{
    uint32_t i = find(fx, insn);
    if (fx->s.base_kind[i] != kind || fx->s.base_index[i] != index)
        fail_msg("'%s': base %d/%#x, expected %d/%#x", insn, (int)fx->s.base_kind[i],
                 fx->s.base_index[i], (int)kind, index);
}

static uint32_t var_index(const mb_function *fn, const char *name)
{
    for (uint32_t v = 0; v < fn->nvars; v++)
        if (strcmp(fn->vars[v].name, name) == 0)
            return v;
    fail_msg("no variable '%s'", name);
    return 0;
}

static uint32_t module_var_index(const mb_module *m, const char *name)
{
    for (uint32_t v = 0; v < m->nvars; v++)
        if (strcmp(m->vars[v].name, name) == 0)
            return v;
    fail_msg("no module variable '%s'", name);
    return 0;
}

/* Block b's histogram equals the (value, count) pairs given, ended by -1. */
static void expect_hist(fixture *fx, int b, ...)
{
    prof_hist *h = &fx->s.dep_dist[b];
    prof_hist_sort(h);
    va_list ap;
    va_start(ap, b);
    uint32_t k = 0;
    uint64_t total = 0;
    for (;;) {
        int value = va_arg(ap, int);
        if (value < 0)
            break;
        int count = va_arg(ap, int);
        total += (uint64_t)count;
        if (k >= h->n)
            fail_msg("block %d: missing distance %d", b, value);
        if (h->value[k] != (uint64_t)value || h->count[k] != (uint64_t)count)
            fail_msg("block %d: entry %u is %llu x%llu, expected %d x%d", b, k,
                     (unsigned long long)h->value[k], (unsigned long long)h->count[k], value,
                     count);
        k++;
    }
    va_end(ap);
    if (k != h->n)
        fail_msg("block %d: %u distances, expected %u", b, h->n, k);
    assert_int_equal(h->total, total);
}

/* ------------------------------------------------------------ sources */

static const char *branches_ptx =
    HEADER
    ".visible .entry branches(.param .u64 branches_param_0, .param .u32 branches_param_1)\n"
    "{\n"
    "  .reg .pred %p<8>;\n"
    "  .reg .b32 %r<20>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [branches_param_0];\n"
    "  ld.param.u32 %r1, [branches_param_1];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  setp.lt.u32 %p1, %r2, 16;\n"           /* tid < 16 */
    "  @%p1 bra L1;\n"
    "L1:\n"
    "  setp.eq.s32 %p2, %r1, 0;\n"            /* param == 0 */
    "  @%p2 bra L2;\n"
    "L2:\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  ld.global.u32 %r3, [%rd2];\n"
    "  setp.gt.s32 %p3, %r3, 0;\n"            /* data > 0 */
    "  @%p3 bra L3;\n"
    "L3:\n"
    "  mov.u32 %r4, %ctaid.x;\n"
    "  setp.eq.u32 %p4, %r4, 0;\n"            /* ctaid == 0 */
    "  @%p4 bra L4;\n"
    "L4:\n"
    "  mov.u32 %r5, %ntid.x;\n"
    "  setp.eq.u32 %p5, %r5, %r1;\n"          /* ntid == param, no literal */
    "  @!%p5 bra L5;\n"
    "L5:\n"
    "  mov.u32 %r6, %laneid;\n"
    "  setp.lt.u32 %p6|%p7, %r6, %r4;\n"      /* a pair: both get laneid | ctaid */
    "  @%p7 bra L6;\n"
    "L6:\n"
    "  mov.u32 %r7, %clock;\n"
    "  and.b32 %r8, %r7, %r2;\n"
    "  setp.ne.s32 %p1, %r8, 0;\n"            /* %p1 reused: the clock and tid, no literal but 0 */
    "  @%p1 bra L7;\n"
    "L7:\n"
    "  bra.uni L8;\n"                          /* unconditional: nothing */
    "L8:\n"
    "  ret;\n"
    "}\n";

static void test_branch_sources(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, branches_ptx, "branches");
    expect_source(&fx, "@%p1 bra L1", SRC_TID | SRC_CONST);
    expect_source(&fx, "@%p2 bra L2", SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p3 bra L3", SRC_DATA | SRC_CONST);
    expect_source(&fx, "@%p4 bra L4", SRC_CTAID | SRC_CONST);
    expect_source(&fx, "@!%p5 bra L5", SRC_CTAID | SRC_PARAM);
    expect_source(&fx, "@%p7 bra L6", SRC_TID | SRC_CTAID);
    expect_source(&fx, "@%p1 bra L7", SRC_DATA | SRC_TID | SRC_CONST);
    expect_source(&fx, "bra.uni L8", 0);
    /* non-branch, non-memory instructions have no source */
    expect_source(&fx, "setp.lt.u32 %p1", 0);
    /* memory: the sources of the address */
    expect_source(&fx, "ld.global.u32 %r3", SRC_PARAM);
    expect_source(&fx, "ld.param.u32 %r1", SRC_CONST);
    release(&fx);
}

/* A counted loop, a loop bounded by tid % 7 + 1, and a register that is a
 * copy of %tid.x before it becomes a loop counter (as nvcc reuses them). */
static const char *loops_ptx =
    HEADER
    ".visible .entry loops(.param .u32 loops_param_0)\n"
    "{\n"
    "  .reg .pred %p<8>;\n"
    "  .reg .b32 %r<20>;\n"
    "  ld.param.u32 %r1, [loops_param_0];\n"
    "  mov.u32 %r2, 0;\n"
    "LOOP1:\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p1, %r2, %r1;\n"           /* counter < param */
    "  @%p1 bra LOOP1;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  rem.u32 %r4, %r3, 7;\n"
    "  add.s32 %r5, %r4, 1;\n"                 /* bound = tid % 7 + 1 */
    "  mov.u32 %r6, 0;\n"
    "  mov.u32 %r7, 0;\n"
    "LOOP2:\n"
    "  add.s32 %r7, %r7, %r6;\n"               /* sum += i */
    "  add.s32 %r6, %r6, 1;\n"
    "  setp.lt.u32 %p2, %r6, %r5;\n"
    "  @%p2 bra LOOP2;\n"
    "  setp.eq.s32 %p3, %r7, 3;\n"             /* on the sum after the loop */
    "  @%p3 bra AFTER;\n"
    "AFTER:\n"
    "  mov.u32 %r10, %tid.x;\n"
    "  setp.lt.u32 %p4, %r10, 256;\n"          /* before %r10 becomes a counter */
    "  @%p4 bra LOOP3;\n"
    "  bra.uni DONE;\n"
    "LOOP3:\n"
    "  add.s32 %r10, %r10, 32;\n"
    "  setp.lt.u32 %p5, %r10, 256;\n"
    "  @%p5 bra LOOP3;\n"
    "DONE:\n"
    "  setp.eq.s32 %p6, %r10, 300;\n"          /* after the loop: either value */
    "  @%p6 bra SELF;\n"
    "SELF:\n"
    "  add.s32 %r11, %r11, 1;\n"               /* only definition, reads itself */
    "  setp.lt.s32 %p7, %r11, 9;\n"
    "  @%p7 bra SELF;\n"
    "  ret;\n"
    "}\n";

static void test_loop_sources(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, loops_ptx, "loops");
    expect_source(&fx, "@%p1 bra LOOP1", SRC_LOOP | SRC_CONST | SRC_PARAM);
    expect_source(&fx, "@%p2 bra LOOP2", SRC_LOOP | SRC_CONST | SRC_TID);
    /* the sum is loop-carried and came from the counter only (and literals) */
    expect_source(&fx, "@%p3 bra AFTER", SRC_LOOP | SRC_CONST);
    /* %r10 is still just %tid.x here: no LOOP, unlike a flow-insensitive union */
    expect_source(&fx, "@%p4 bra LOOP3", SRC_TID | SRC_CONST);
    expect_source(&fx, "@%p5 bra LOOP3", SRC_TID | SRC_CONST | SRC_LOOP);
    expect_source(&fx, "@%p6 bra SELF", SRC_TID | SRC_CONST | SRC_LOOP);
    /* one definition that reads itself (uninitialised at first) */
    expect_source(&fx, "@%p7 bra SELF", SRC_CONST | SRC_LOOP);
    release(&fx);
}

/* Guarded definitions keep the old value where the guard fails; values that
 * meet at a join are unions; values of a call are the summary of its
 * arguments; warp collectives are data. */
static const char *merge_ptx =
    HEADER
    ".func (.param .b32 f_ret) f(.param .b32 f_param_0)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  ld.param.u32 %r1, [f_param_0];\n"
    "  setp.eq.s32 %p1, %r1, 0;\n"
    "  @%p1 bra FDONE;\n"
    "  add.s32 %r1, %r1, 1;\n"
    "FDONE:\n"
    "  st.param.b32 [f_ret+0], %r1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry merge(.param .u32 merge_param_0)\n"
    "{\n"
    "  .reg .pred %p<12>;\n"
    "  .reg .b32 %r<30>;\n"
    "  ld.param.u32 %r1, [merge_param_0];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, 5;\n"
    "  setp.eq.s32 %p1, %r1, 0;\n"
    "  @%p1 mov.u32 %r3, %r2;\n"              /* %r3 = p1 ? tid : 5 */
    "  setp.eq.s32 %p2, %r3, 1;\n"
    "  @%p2 bra J1;\n"
    "J1:\n"
    "  @%p2 bra ELSE;\n"
    "  mov.u32 %r4, %ctaid.x;\n"
    "  bra.uni JOIN;\n"
    "ELSE:\n"
    "  mov.u32 %r4, %r1;\n"
    "JOIN:\n"
    "  setp.eq.s32 %p3, %r4, %r4;\n"          /* ctaid or param: no literal */
    "  @%p3 bra J2;\n"
    "J2:\n"
    "  {\n"
    "  .param .b32 param0;\n"
    "  st.param.b32 [param0+0], %r2;\n"
    "  .param .b32 retval0;\n"
    "  call.uni (retval0), f, (param0);\n"
    "  ld.param.b32 %r5, [retval0+0];\n"
    "  }\n"
    "  setp.ne.s32 %p4, %r5, %r1;\n"          /* call result (data | tid) and a param */
    "  @%p4 bra J3;\n"
    "J3:\n"
    "  shfl.sync.bfly.b32 %r6|%p5, %r1, 1, 31, -1;\n"
    "  @%p5 bra J4;\n"                         /* shuffled param: data | param | literals */
    "J4:\n"
    "  vote.sync.ballot.b32 %r7, %p1, -1;\n"
    "  setp.ne.s32 %p6, %r7, 0;\n"
    "  @%p6 bra J5;\n"                         /* a vote of a param predicate */
    "J5:\n"
    "  activemask.b32 %r8;\n"
    "  setp.ne.s32 %p7, %r8, %r8;\n"
    "  @%p7 bra J6;\n"
    "J6:\n"
    "  setp.ne.s32 %p8, %r20, 0;\n"           /* never defined: only the literal */
    "  @%p8 bra J7;\n"
    "J7:\n"
    "  ret;\n"
    "}\n";

static void test_merge_sources(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, merge_ptx, "merge");
    expect_source(&fx, "@%p2 bra J1", SRC_TID | SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p3 bra J2", SRC_CTAID | SRC_PARAM);
    expect_source(&fx, "@%p4 bra J3", SRC_DATA | SRC_TID | SRC_PARAM);
    expect_source(&fx, "@%p5 bra J4", SRC_DATA | SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p6 bra J5", SRC_DATA | SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p7 bra J6", SRC_DATA);
    expect_source(&fx, "@%p8 bra J7", SRC_CONST);
    /* call parameters are not memory of interest */
    expect_base(&fx, "st.param.b32 [param0]", BASE_LOCAL, 0);
    expect_base(&fx, "ld.param.b32 %r5", BASE_LOCAL, 0);
    /* a kernel parameter is read at its own address */
    expect_base(&fx, "ld.param.u32 %r1", BASE_PARAM, 0);
    release(&fx);

    analyse(&fx, merge_ptx, "f");
    expect_source(&fx, "@%p1 bra FDONE", SRC_PARAM | SRC_CONST);
    expect_base(&fx, "st.param.b32 [f_ret]", BASE_LOCAL, 0);
    expect_base(&fx, "ld.param.u32 %r1", BASE_PARAM, 0);
    release(&fx);
}

/* -------------------------------------------------------------- bases */

static const char *bases_ptx =
    HEADER
    ".global .align 4 .u32 gcount;\n"
    ".const .align 4 .b8 ctab[64];\n"
    ".shared .align 4 .b8 msm[256];\n"
    ".visible .entry bases(.param .u32 bases_param_0, .param .u64 bases_param_1,\n"
    "                      .param .u64 bases_param_2, .param .u64 bases_param_3)\n"
    "{\n"
    "  .local .align 8 .b8 __local_depot0[64];\n"
    "  .reg .b64 %SP;\n"
    "  .reg .b64 %SPL;\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<30>;\n"
    "  .reg .f32 %f<4>;\n"
    "  .reg .b64 %rd<40>;\n"
    "  .shared .align 4 .b8 sm[1024];\n"
    "  mov.u64 %SPL, __local_depot0;\n"
    "  cvta.local.u64 %SP, %SPL;\n"
    "  ld.param.u32 %r1, [bases_param_0];\n"
    "  ld.param.u64 %rd1, [bases_param_1];\n"
    "  ld.param.u64 %rd2, [bases_param_2];\n"
    "  ld.param.u64 %rd20, [bases_param_3];\n" /* a 64-bit integer */
    "  mov.u32 %r2, %tid.x;\n"
    /* a pointer parameter through cvta.to.global, mul.wide and add */
    "  cvta.to.global.u64 %rd3, %rd1;\n"
    "  mul.wide.s32 %rd4, %r2, 4;\n"
    "  add.s64 %rd5, %rd3, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5];\n"
    /* the same with mad.wide and a scaled 64-bit integer parameter */
    "  shl.b64 %rd21, %rd20, 2;\n"
    "  cvta.to.global.u64 %rd22, %rd2;\n"
    "  add.s64 %rd23, %rd22, %rd21;\n"
    "  mad.wide.s32 %rd24, %r2, 4, %rd23;\n"
    "  st.global.f32 [%rd24+4], %f1;\n"
    /* a function-level shared array, by register and by name */
    "  mov.u32 %r3, sm;\n"
    "  shl.b32 %r4, %r2, 2;\n"
    "  add.s32 %r5, %r3, %r4;\n"
    "  st.shared.u32 [%r5], %r2;\n"
    "  ld.shared.u32 %r6, [sm+4];\n"
    /* a module-level shared array through a generic address */
    "  mov.u64 %rd6, msm;\n"
    "  cvta.shared.u64 %rd7, %rd6;\n"
    "  ld.u32 %r7, [%rd7];\n"
    /* a global variable by register and by name, and a .const table */
    "  mov.u64 %rd8, gcount;\n"
    "  atom.global.add.u32 %r8, [%rd8], 1;\n"
    "  ld.global.u32 %r9, [gcount];\n"
    "  mov.u64 %rd9, ctab;\n"
    "  cvt.u64.u32 %rd10, %r4;\n"
    "  add.s64 %rd11, %rd9, %rd10;\n"
    "  ld.const.u32 %r10, [%rd11];\n"
    /* the stack: %SPL, %SP and the depot by name */
    "  add.u64 %rd12, %SPL, 0;\n"
    "  st.local.u32 [%rd12+4], %r2;\n"
    "  add.u64 %rd13, %SP, 8;\n"
    "  st.u32 [%rd13], %r2;\n"
    "  ld.u32 %r11, [%rd13];\n"
    "  ld.local.u32 %r12, [__local_depot0+12];\n"
    /* a pointer chosen between two parameters */
    "  setp.eq.s32 %p1, %r1, 0;\n"
    "  selp.b64 %rd14, %rd1, %rd2, %p1;\n"
    "  ld.global.u32 %r13, [%rd14];\n"
    /* a pointer loaded from memory */
    "  ld.global.u64 %rd15, [%rd5+8];\n"
    "  ld.global.u32 %r14, [%rd15];\n"
    /* an absolute address */
    "  ld.global.u32 %r15, [4096];\n"
    /* a register defined with different bases on two paths */
    "  @%p1 bra OTHER;\n"
    "  mov.u64 %rd16, %rd3;\n"
    "  bra.uni JOIN;\n"
    "OTHER:\n"
    "  mov.u64 %rd16, %rd8;\n"
    "JOIN:\n"
    "  ld.global.u32 %r16, [%rd16];\n"
    /* and with the same base on two paths, in a loop */
    "  mov.u64 %rd17, %rd3;\n"
    "LOOP:\n"
    "  ld.global.u32 %r17, [%rd17];\n"
    "  add.s64 %rd17, %rd17, 4;\n"
    "  setp.lt.u32 %p2, %r17, 9;\n"
    "  @%p2 bra LOOP;\n"
    "  ret;\n"
    "}\n";

static void test_bases(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, bases_ptx, "bases");
    uint32_t sm = var_index(fx.fn, "sm") | 0x80000000u;
    uint32_t msm = module_var_index(fx.m, "msm");
    uint32_t gcount = module_var_index(fx.m, "gcount");
    uint32_t ctab = module_var_index(fx.m, "ctab");

    expect_base(&fx, "ld.global.f32 %f1", BASE_PARAM, 1);
    expect_source(&fx, "ld.global.f32 %f1", SRC_PARAM | SRC_TID | SRC_CONST);
    expect_base(&fx, "st.global.f32", BASE_PARAM, 2);
    expect_source(&fx, "st.global.f32", SRC_PARAM | SRC_TID | SRC_CONST);
    expect_base(&fx, "st.shared.u32", BASE_SHARED_VAR, sm);
    expect_source(&fx, "st.shared.u32", SRC_CONST | SRC_TID);
    expect_base(&fx, "ld.shared.u32 %r6", BASE_SHARED_VAR, sm);
    expect_source(&fx, "ld.shared.u32 %r6", SRC_CONST);
    expect_base(&fx, "ld.u32 %r7", BASE_SHARED_VAR, msm);
    expect_base(&fx, "atom.global.add.u32", BASE_GLOBAL_VAR, gcount);
    expect_base(&fx, "ld.global.u32 %r9", BASE_GLOBAL_VAR, gcount);
    expect_base(&fx, "ld.const.u32", BASE_GLOBAL_VAR, ctab);
    expect_base(&fx, "st.local.u32", BASE_LOCAL, 0);
    expect_base(&fx, "st.u32 [%rd13]", BASE_LOCAL, 0);
    expect_base(&fx, "ld.u32 %r11", BASE_LOCAL, 0);
    expect_base(&fx, "ld.local.u32", BASE_LOCAL, 0);
    expect_base(&fx, "ld.global.u32 %r13", BASE_MULTIPLE, 0);
    expect_source(&fx, "ld.global.u32 %r13", SRC_PARAM | SRC_CONST);
    expect_base(&fx, "ld.global.u32 %r14", BASE_UNKNOWN, 0);
    expect_source(&fx, "ld.global.u32 %r14", SRC_DATA);
    expect_base(&fx, "ld.global.u32 %r15", BASE_UNKNOWN, 0);
    expect_source(&fx, "ld.global.u32 %r15", SRC_CONST);
    expect_base(&fx, "ld.global.u32 %r16", BASE_MULTIPLE, 0);
    expect_base(&fx, "ld.global.u32 %r17", BASE_PARAM, 1);
    expect_source(&fx, "ld.global.u32 %r17", SRC_PARAM | SRC_CONST | SRC_LOOP);
    expect_base(&fx, "ld.param.u64 %rd2,", BASE_PARAM, 2);
    /* not memory: nothing */
    expect_base(&fx, "add.s64 %rd5", BASE_UNKNOWN, 0);
    release(&fx);
}

/* .reg parameters of a .func are values, not memory; textures and
 * surfaces take their base from the handle. */
static const char *regparam_ptx =
    HEADER
    ".global .texref tex0;\n"
    ".func g(.reg .b64 pp, .reg .b32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  .reg .f32 %f<5>;\n"
    "  ld.u32 %r1, [pp+4];\n"
    "  add.s64 %rd1, pp, 8;\n"
    "  ld.u32 %r2, [%rd1];\n"
    "  setp.lt.s32 %p1, %r2, n;\n"
    "  @%p1 bra G1;\n"
    "G1:\n"
    "  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex0, {%r1}];\n"
    "  ret;\n"
    "}\n";

static void test_reg_params_and_textures(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, regparam_ptx, "g");
    expect_base(&fx, "ld.u32 %r1", BASE_PARAM, 0);
    expect_source(&fx, "ld.u32 %r1", SRC_PARAM);
    expect_base(&fx, "ld.u32 %r2", BASE_PARAM, 0);
    expect_source(&fx, "ld.u32 %r2", SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p1 bra G1", SRC_DATA | SRC_PARAM);
    expect_base(&fx, "tex.1d", BASE_GLOBAL_VAR, module_var_index(fx.m, "tex0"));
    expect_source(&fx, "tex.1d", SRC_CONST | SRC_DATA);
    release(&fx);
}

/* ----------------------------------------------------------- distances */

static const char *dist_ptx =
    HEADER
    ".visible .entry dist(.param .u64 dist_param_0)\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<20>;\n"
    "  .reg .b64 %rd<8>;\n"
    /* block 0 */
    "  mov.u32 %r1, %tid.x;\n"          /* 0 */
    "  add.s32 %r2, %r1, 1;\n"          /* 1: r1@0 -> 1 */
    "  mul.lo.s32 %r3, %r2, %r1;\n"     /* 2: r2@1 -> 1, r1@0 -> 2 */
    "  add.s32 %r3, %r3, %r3;\n"        /* 3: r3@2 -> 1 (once) */
    "  ld.param.u64 %rd1, [dist_param_0];\n" /* 4 */
    "  mul.wide.s32 %rd2, %r3, 4;\n"    /* 5: r3@3 -> 2 */
    "  add.s64 %rd3, %rd1, %rd2;\n"     /* 6: rd1@4 -> 2, rd2@5 -> 1 */
    "  setp.lt.s32 %p1, %r3, %r2;\n"    /* 7: r3@3 -> 4, r2@1 -> 6 */
    "  @%p1 st.global.u32 [%rd3], %r2;\n" /* 8: p1@7 -> 1, rd3@6 -> 2, r2@1 -> 7 */
    "  @%p1 bra L1;\n"                  /* 9: p1@7 -> 2 */
    /* block 1: registers from block 0 count for nothing */
    "  add.s32 %r4, %r3, %r2;\n"        /* 10 */
    "  @%p1 mov.u32 %r4, 0;\n"          /* 11: guarded definition */
    "  mov.u32 %r5, %r4;\n"             /* 12: r4@11 -> 1 */
    "L1:\n"
    /* block 2 */
    "  ld.global.u32 %r6, [%rd3];\n"    /* 13 */
    "  add.s32 %r6, %r6, 1;\n"          /* 14: r6@13 -> 1 */
    "  st.global.u32 [%rd3], %r6;\n"    /* 15: r6@14 -> 1 */
    "  ret;\n"                          /* 16 */
    "}\n";

static void test_distances(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, dist_ptx, "dist");
    assert_int_equal(fx.cfg.nblocks, 3);
    expect_hist(&fx, 0, 1, 5, 2, 5, 4, 1, 6, 1, 7, 1, -1);
    expect_hist(&fx, 1, 1, 1, -1);
    expect_hist(&fx, 2, 1, 2, -1);
    /* the same distances per instruction, in operand order (guard first) */
    assert_string_equal(fx.s.dep_chain[0].data, "- 1 1,2 1 - 2 2,1 4,6 1,2,7 2");
    assert_string_equal(fx.s.dep_chain[1].data, "- - 1");
    assert_string_equal(fx.s.dep_chain[2].data, "- 1 1 -");
    /* reads from outside the block: the definitions that reach them, the
     * last of each block (r3's at 0.3, not 0.2) */
    assert_string_equal(fx.s.dep_in[0].data, "- - - - - - - - - -");
    assert_string_equal(fx.s.dep_in[1].data, "0.3,0.1 0.7 -");
    assert_string_equal(fx.s.dep_in[2].data, "0.6 - 0.6 -");
    release(&fx);
}

static const char *carried_ptx =
    HEADER
    ".visible .entry carried(.param .u32 carried_param_0)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<4>;\n"
    "  ld.param.u32 %r1, [carried_param_0];\n" /* 0.0 */
    "  mov.u32 %r2, 0;\n"                      /* 0.1 */
    "L1:\n"
    "  add.s32 %r2, %r2, %r1;\n"               /* 1.0: r2 from 0.1 or itself, r1 from 0.0 */
    "  setp.lt.s32 %p1, %r2, 100;\n"           /* 1.1 */
    "  @%p1 bra L1;\n"                         /* 1.2 */
    "  ret;\n"
    "}\n";

static void test_outside_producers(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, carried_ptx, "carried");
    assert_int_equal(fx.cfg.nblocks, 3);
    /* a loop-carried value: the definition before the loop and the one of
     * the previous iteration */
    assert_string_equal(fx.s.dep_in[1].data, "0.1|1.0,0.0 - -");
    assert_string_equal(fx.s.dep_in[2].data, "-");
    release(&fx);
}

/* ---------------------------------------------------------- robustness */

static const char *odd_ptx =
    HEADER
    ".func (.param .b64 h_ret) h(.param .b64 h_param_0)\n"
    "{\n"
    "  .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [h_param_0];\n"
    "  st.param.b64 [h_ret+0], %rd1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry empty()\n"
    "{\n"
    "}\n"
    ".visible .entry odd(.param .u64 odd_param_0)\n"
    "{\n"
    "  .reg .pred %p<6>;\n"
    "  .reg .b16 %h<4>;\n"
    "  .reg .b32 %r<40>;\n"
    "  .reg .b64 %rd<20>;\n"
    "  .reg .f32 %f<20>;\n"
    "  .shared .align 8 .b64 bar0;\n"
    "ts: .branchtargets B0, B1;\n"
    "proto: .callprototype (.param .b64 _) _ (.param .b64 _);\n"
    "  ld.param.u64 %rd1, [odd_param_0];\n"
    "  mov.b64 {%r1, %r2}, %rd1;\n"
    "  mov.b64 %rd2, {%r2, %r1};\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  and.b32 %r4, %r3, 1;\n"
    "  brx.idx %r4, ts;\n"
    "B0:\n"
    "  bar.red.popc.u32 %r5, 0, %p1;\n"
    "  atom.global.cas.b32 %r6, [%rd2], %r5, %r3;\n"
    "  red.global.add.u32 [%rd2+4], %r6;\n"
    "  mov.b16 %h1, 0x3c00;\n"
    "  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];\n"
    "  wmma.load.a.sync.aligned.row.m16n16k16.global.f16\n"
    "      {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%rd2], 16;\n"
    "  wmma.store.d.sync.aligned.row.m16n16k16.global.f32\n"
    "      [%rd2], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, 16;\n"
    "  mbarrier.init.shared.b64 [bar0], 32;\n"
    "  mbarrier.arrive.shared.b64 %rd3, [bar0];\n"
    "  mbarrier.test_wait.shared.b64 %p2, [bar0], %rd3;\n"
    "  @%p2 bra B1;\n"
    "  prefetch.global.L1 [%rd2];\n"
    "  cvta.to.global.u64 %rd4, %rd2;\n"
    "  isspacep.global %p3, %rd4;\n"
    "  mov.u64 %rd5, h;\n"
    "  {\n"
    "  .param .b64 param0;\n"
    "  st.param.b64 [param0+0], %rd4;\n"
    "  .param .b64 retval0;\n"
    "  call (retval0), %rd5, (param0), proto;\n"
    "  ld.param.b64 %rd6, [retval0+0];\n"
    "  }\n"
    "  ld.global.u32 %r20, [%rd6];\n"
    "  vote.sync.all.pred %p4, %p3, -1;\n"
    "  @!%p4 bra B1;\n"
    "  trap;\n"
    "  add.s32 %r30, %r30, 1;\n"           /* unreachable, reads itself */
    "  setp.ne.s32 %p5, %r30, 0;\n"
    "  @%p5 bra B1;\n"
    "B1:\n"
    "  @%p1 ret;\n"
    "  exit;\n"
    "}\n";

static void test_odd_forms(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, odd_ptx, "odd");
    /* brx.idx: its index */
    expect_source(&fx, "brx.idx", SRC_TID | SRC_CONST);
    expect_base(&fx, "atom.global.cas", BASE_PARAM, 0);
    expect_base(&fx, "red.global.add", BASE_PARAM, 0);
    expect_base(&fx, "ld.global.v4.f32", BASE_PARAM, 0);
    expect_base(&fx, "wmma.load.a", BASE_PARAM, 0);
    expect_base(&fx, "mbarrier.arrive", BASE_SHARED_VAR, var_index(fx.fn, "bar0") | 0x80000000u);
    expect_source(&fx, "@%p2 bra B1", SRC_DATA);
    /* a pointer returned by an indirect call: unknown base; data, the
     * argument and the function's address */
    expect_base(&fx, "ld.global.u32 %r20", BASE_UNKNOWN, 0);
    expect_source(&fx, "ld.global.u32 %r20", SRC_DATA | SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@!%p4 bra B1", SRC_DATA | SRC_PARAM | SRC_CONST);
    expect_source(&fx, "@%p5 bra B1", SRC_LOOP | SRC_CONST);
    /* a guarded ret: its guard (bar.red's predicate was never defined) */
    expect_source(&fx, "@%p1 ret", 0);
    release(&fx);

    analyse(&fx, odd_ptx, "empty");
    assert_non_null(fx.s.source);
    assert_non_null(fx.s.dep_dist);
    release(&fx);

    analyse(&fx, odd_ptx, "h");
    expect_base(&fx, "st.param.b64", BASE_LOCAL, 0);
    release(&fx);
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, dist_ptx, "dist");
    prof_static s;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(prof_static_analyse(NULL, fx.fn, &fx.cfg, &s, &err), MB_ERR_INVALID);
    assert_null(s.source);
    assert_int_equal(prof_static_analyse(fx.m, NULL, &fx.cfg, &s, &err), MB_ERR_INVALID);
    assert_int_equal(prof_static_analyse(fx.m, fx.fn, NULL, &s, &err), MB_ERR_INVALID);
    assert_int_equal(prof_static_analyse(fx.m, fx.fn, &fx.cfg, NULL, NULL), MB_ERR_INVALID);
    /* a CFG whose block runs past the function */
    mb_cfg bad = fx.cfg;
    mb_block blocks[3];
    memcpy(blocks, fx.cfg.blocks, sizeof(blocks));
    blocks[2].ninsns += 5;
    bad.blocks = blocks;
    assert_int_equal(prof_static_analyse(fx.m, fx.fn, &bad, &s, &err), MB_ERR_INVALID);
    assert_true(strstr(err.msg, "block 2") != NULL);
    /* a CFG without dominators still works, flow-insensitively: then
     * `add %r3, %r3, %r3` makes %r3 depend on itself */
    bad = fx.cfg;
    bad.idom = NULL;
    assert_int_equal(prof_static_analyse(fx.m, fx.fn, &bad, &s, &err), MB_OK);
    assert_int_equal(s.source[find(&fx, "@%p1 bra L1")], SRC_TID | SRC_CONST | SRC_LOOP);
    assert_int_equal(s.base_kind[find(&fx, "ld.global.u32 %r6")], BASE_PARAM);
    prof_static_free(&s, &bad);
    /* freeing twice and freeing a zeroed record are harmless */
    prof_static_free(&s, &bad);
    prof_static_free(NULL, &bad);
    release(&fx);
}

/* Without dominators every register is a union of its definitions. */
static void test_flow_insensitive_fallback(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx, loops_ptx, "loops");
    mb_cfg bad = fx.cfg;
    bad.idom = NULL;
    prof_static s;
    assert_int_equal(prof_static_analyse(fx.m, fx.fn, &bad, &s, NULL), MB_OK);
    assert_int_equal(s.source[find(&fx, "@%p1 bra LOOP1")], SRC_LOOP | SRC_CONST | SRC_PARAM);
    /* the copy of %tid.x is now mixed with the counter it later becomes */
    assert_int_equal(s.source[find(&fx, "@%p4 bra LOOP3")], SRC_TID | SRC_CONST | SRC_LOOP);
    prof_static_free(&s, &bad);
    release(&fx);
}

/* A large generated function: many blocks and a register redefined in
 * every one of them (the shape of nvcc -G output). */
static void test_large_function(void **state)
{
    (void)state;
    enum { NBLOCKS = 6000 };
    mb_buf b = MB_BUF_INIT;
    mb_buf_puts(&b, HEADER ".visible .entry big(.param .u64 big_param_0)\n{\n"
                       "  .reg .pred %p<4>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<8>;\n"
                       "  ld.param.u64 %rd1, [big_param_0];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                       "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 0;\n");
    for (int k = 0; k < NBLOCKS; k++) {
        mb_buf_printf(&b, "B%d:\n  add.s32 %%r2, %%r2, %%r1;\n  mul.wide.u32 %%rd3, %%r2, 4;\n"
                          "  add.s64 %%rd4, %%rd2, %%rd3;\n  ld.global.u32 %%r%d, [%%rd4];\n"
                          "  add.s32 %%r1, %%r1, %%r%d;\n"
                          "  setp.lt.s32 %%p1, %%r1, %d;\n  @%%p1 bra B%d;\n",
                      k, 3 + k % 60, 3 + k % 60, k, k % 7 == 3 ? k / 2 : k + 1);
        for (int j = 0; j < 10; j++)
            mb_buf_printf(&b, "  add.s32 %%r%d, %%r%d, %%r%d;\n", 3 + (k + j) % 60,
                          3 + (k + j + 1) % 60, 3 + (k + j + 2) % 60);
    }
    mb_buf_printf(&b, "B%d:\n  st.global.u32 [%%rd4], %%r2;\n  ret;\n}\n", NBLOCKS);
    assert_false(b.failed);
    fixture fx;
    analyse(&fx, b.data, "big");
    assert_true(fx.fn->ninsns > 16 * NBLOCKS);
    uint32_t n_param = 0, n_loop = 0;
    for (uint32_t i = 0; i < fx.fn->ninsns; i++) {
        const mb_insn *insn = &fx.fn->insns[i];
        if (insn->opcode == MB_OP_LD && mb_insn_has_mod(insn, MB_MOD_GLOBAL) &&
            fx.s.base_kind[i] == BASE_PARAM && fx.s.base_index[i] == 0)
            n_param++;
        if (insn->opcode == MB_OP_BRA && (fx.s.source[i] & SRC_LOOP))
            n_loop++;
    }
    assert_int_equal(n_param, NBLOCKS);
    assert_true(n_loop > 0);
    release(&fx);
    mb_buf_free(&b);
}

/* ------------------------------------------------------------ examples */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Analyses every function of `path`; returns the number of global loads and
 * stores whose base is not a parameter, printing each. */
static int analyse_file(const char *path, int *nfuncs)
{
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    char msg[2048];
    if (mb_ptx_parse_file(path, &m, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    int odd = 0;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        const mb_function *fn = &m->funcs[f];
        if (!fn->has_body)
            continue;
        mb_cfg cfg;
        prof_static s;
        assert_int_equal(mb_cfg_build(fn, &cfg, &err), MB_OK);
        if (prof_static_analyse(m, fn, &cfg, &s, &err) != MB_OK) {
            mb_error_format(&err, msg, sizeof(msg));
            fail_msg("%s: %s: %s", path, fn->name, msg);
        }
        (*nfuncs)++;
        uint64_t nmem = 0, dist_total = 0;
        for (int b = 0; b < cfg.nblocks; b++)
            dist_total += s.dep_dist[b].total;
        for (uint32_t i = 0; i < fn->ninsns; i++) {
            const mb_insn *insn = &fn->insns[i];
            if (insn->guard >= 0 && insn->opcode == MB_OP_BRA && s.source[i] == 0)
                fail_msg("%s:%d: a conditional branch with no source", path, insn->line);
            if (insn->opcode != MB_OP_LD && insn->opcode != MB_OP_ST)
                continue;
            nmem++;
            if (!mb_insn_has_mod(insn, MB_MOD_GLOBAL) || s.base_kind[i] == BASE_PARAM)
                continue;
            mb_buf t = MB_BUF_INIT;
            mb_ptx_print_insn(m, fn, insn, &t);
            print_message("  %s:%d: %s: base kind %d index %#x, not a pointer parameter\n",
                          strrchr(path, '/') + 1, insn->line, t.data, (int)s.base_kind[i],
                          s.base_index[i]);
            mb_buf_free(&t);
            odd++;
        }
        /* nvcc's code reads registers defined just before: some distances */
        if (nmem > 4)
            assert_true(dist_total > 0);
        prof_static_free(&s, &cfg);
        mb_cfg_free(&cfg);
    }
    mb_module_free(m);
    return odd;
}

static void test_examples(void **state)
{
    (void)state;
    char *paths[512];
    int n = 0;
    const char *dirs[2] = {MB_EXAMPLES_DIR, MB_TEST_DATA};
    for (int k = 0; k < 2; k++) {
        DIR *top = opendir(dirs[k]);
        if (!top)
            fail_msg("cannot open %s", dirs[k]);
        struct dirent *d;
        while ((d = readdir(top)) != NULL) {
            if (d->d_name[0] == '.')
                continue;
            char dir[4096];
            snprintf(dir, sizeof(dir), "%s/%s", dirs[k], d->d_name);
            DIR *sub = opendir(dir);
            if (!sub)
                continue;
            struct dirent *f;
            while ((f = readdir(sub)) != NULL) {
                size_t len = strlen(f->d_name);
                if (len < 4 || strcmp(f->d_name + len - 4, ".ptx") != 0 || n == 512)
                    continue;
                char path[8192];
                snprintf(path, sizeof(path), "%s/%s", dir, f->d_name);
                paths[n++] = strdup(path);
            }
            closedir(sub);
        }
        closedir(top);
    }
    qsort(paths, (size_t)n, sizeof(paths[0]), cmp_str);
    assert_true(n >= 18);
    int nfuncs = 0, odd_examples = 0;
    for (int k = 0; k < n; k++) {
        int odd = analyse_file(paths[k], &nfuncs);
        /* every global access of the examples goes through a pointer parameter */
        if (strstr(paths[k], MB_EXAMPLES_DIR) == paths[k])
            odd_examples += odd;
        free(paths[k]);
    }
    print_message("  %d files, %d functions\n", n, nfuncs);
    assert_int_equal(odd_examples, 0);
}

/* An executable `name` on PATH or in /usr/local/cuda/bin, or NULL. */
static const char *find_tool(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n > 0 && n + strlen(name) + 2 < size) {
            snprintf(buf, size, "%.*s/%s", (int)n, p, name);
            if (access(buf, X_OK) == 0)
                return buf;
        }
        p += n;
        if (*p == ':')
            p++;
    }
    snprintf(buf, size, "/usr/local/cuda/bin/%s", name);
    return access(buf, X_OK) == 0 ? buf : NULL;
}

/* nvcc -G output (generic loads and stores, demoted shared arrays, stack
 * frames) of a few examples: every load and store outside the parameter
 * space has one known base. */
static void test_debug_builds(void **state)
{
    (void)state;
    char nvcc[4096];
    if (!find_tool("nvcc", nvcc, sizeof(nvcc))) {
        print_message("skipping nvcc -G builds: nvcc not found\n");
        skip();
    }
    char dir[64];
    snprintf(dir, sizeof(dir), "/tmp/mb_prof_static_XXXXXX");
    assert_non_null(mkdtemp(dir));
    static const char *const names[] = {"nw", "local_array", "devfunc", "reduce_seq",
                                        "nested_loops"};
    int checked = 0;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        char out[256], cmd[16384];
        snprintf(out, sizeof(out), "%s/%s.ptx", dir, names[k]);
        snprintf(cmd, sizeof(cmd),
                 "'%s' -G -arch=sm_75 -I'%s/common' -ptx '%s/%s/%s.cu' -o '%s' > /dev/null 2>&1",
                 nvcc, MB_EXAMPLES_DIR, MB_EXAMPLES_DIR, names[k], names[k], out);
        if (system(cmd) != 0)
            fail_msg("nvcc failed: %s", cmd);
        mb_module *m = NULL;
        mb_error err;
        if (mb_ptx_parse_file(out, &m, &err) != MB_OK)
            fail_msg("%s: %s", out, err.msg);
        for (uint32_t f = 0; f < m->nfuncs; f++) {
            const mb_function *fn = &m->funcs[f];
            if (!fn->has_body)
                continue;
            mb_cfg cfg;
            prof_static s;
            assert_int_equal(mb_cfg_build(fn, &cfg, &err), MB_OK);
            assert_int_equal(prof_static_analyse(m, fn, &cfg, &s, &err), MB_OK);
            for (uint32_t i = 0; i < fn->ninsns; i++) {
                const mb_insn *insn = &fn->insns[i];
                if ((insn->opcode != MB_OP_LD && insn->opcode != MB_OP_ST) ||
                    mb_insn_has_mod(insn, MB_MOD_PARAM))
                    continue;
                checked++;
                if (s.base_kind[i] == BASE_UNKNOWN || s.base_kind[i] == BASE_MULTIPLE)
                    fail_msg("%s.cu -G, line %d: base %d", names[k], insn->line,
                             (int)s.base_kind[i]);
            }
            prof_static_free(&s, &cfg);
            mb_cfg_free(&cfg);
        }
        mb_module_free(m);
        remove(out);
    }
    rmdir(dir);
    assert_true(checked > 50);
}

/* ------------------------------------------------- indexed addresses */

/* A table indexed by a loaded byte (bins[data[i]], histogram-like): found
 * with the load, its steps and the immediate offsets of the address. */
static void test_index_shared_table(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx,
            HEADER ".visible .entry k(.param .u64 d)\n{\n"
                   " .reg .b16 %rs<2>; .reg .b32 %r<9>; .reg .b64 %rd<4>;\n"
                   " .shared .align 4 .b8 bins[1024];\n"
                   " ld.param.u64 %rd1, [d];\n cvta.to.global.u64 %rd2, %rd1;\n"
                   " mov.u32 %r1, %tid.x;\n cvt.u64.u32 %rd3, %r1;\n add.s64 %rd3, %rd2, %rd3;\n"
                   " ld.global.u8 %rs1, [%rd3];\n mul.wide.u16 %r2, %rs1, 4;\n"
                   " mov.u32 %r3, bins;\n add.s32 %r4, %r3, 8;\n add.s32 %r5, %r4, %r2;\n"
                   " atom.shared.add.u32 %r6, [%r5+4], 1;\n"
                   " shl.b32 %r7, %r1, 2;\n add.s32 %r8, %r3, %r7;\n st.shared.u32 [%r8], %r6;\n"
                   " ret;\n}\n",
            "k");
    prof_index ix;
    assert_true(prof_index_find(fx.m, fx.fn, &fx.cfg, find(&fx, "atom.shared"), &ix));
    assert_int_equal(ix.load, find(&fx, "ld.global.u8"));
    assert_int_equal(ix.nops, 1);
    assert_int_equal(ix.op_insn[0], find(&fx, "mul.wide.u16"));
    assert_string_equal(ix.var->name, "bins");
    assert_int_equal(ix.offset, 12);
    /* a thread-indexed address has no loaded value in it */
    assert_false(prof_index_find(fx.m, fx.fn, &fx.cfg, find(&fx, "st.shared"), &ix));
    /* nor has the load's own address, nor an instruction that is no access */
    assert_false(prof_index_find(fx.m, fx.fn, &fx.cfg, find(&fx, "ld.global.u8"), &ix));
    assert_false(prof_index_find(fx.m, fx.fn, &fx.cfg, find(&fx, "mul.wide.u16"), &ix));
    assert_false(prof_index_find(fx.m, fx.fn, &fx.cfg, fx.fn->ninsns, &ix));
    release(&fx);
}

/* A counter of the thread's .local frame indexed by a loaded word
 * (local_array-like): the frame's register is defined once, in another
 * block, and the chain has three steps. */
static void test_index_local_frame(void **state)
{
    (void)state;
    fixture fx;
    analyse(&fx,
            HEADER ".visible .entry k(.param .u64 d)\n{\n"
                   " .local .align 16 .b8 depot[128];\n"
                   " .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<8>; .reg .b64 %SPL;\n"
                   " mov.u64 %SPL, depot;\n add.u64 %rd1, %SPL, 0;\n"
                   " ld.param.u64 %rd2, [d];\n cvta.to.global.u64 %rd3, %rd2;\n mov.u32 %r1, 0;\n"
                   "L1:\n mul.wide.u32 %rd4, %r1, 4;\n add.s64 %rd5, %rd3, %rd4;\n"
                   " ld.global.u32 %r2, [%rd5];\n shl.b32 %r3, %r2, 2;\n cvt.u64.u32 %rd6, %r3;\n"
                   " and.b64 %rd6, %rd6, 124;\n add.s64 %rd7, %rd1, %rd6;\n ld.local.u32 %r4, [%rd7];\n"
                   " add.s32 %r5, %r4, 1;\n st.local.u32 [%rd7], %r5;\n"
                   " add.s32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, 16;\n @%p1 bra L1;\n ret;\n}\n",
            "k");
    prof_index ix;
    const char *const access[] = {"ld.local.u32", "st.local.u32"};
    for (int a = 0; a < 2; a++) {
        assert_true(prof_index_find(fx.m, fx.fn, &fx.cfg, find(&fx, access[a]), &ix));
        assert_int_equal(ix.load, find(&fx, "ld.global.u32"));
        assert_int_equal(ix.nops, 3);
        assert_int_equal(ix.op_insn[0], find(&fx, "shl.b32"));
        assert_int_equal(ix.op_insn[1], find(&fx, "cvt.u64.u32"));
        assert_int_equal(ix.op_insn[2], find(&fx, "and.b64"));
        assert_string_equal(ix.var->name, "depot");
        assert_int_equal(ix.offset, 0);
    }
    release(&fx);
}

/* What the relation cannot be trusted on: a guarded step, a base register
 * written twice, a step that is no multiply, shift, mask or conversion, a
 * value loaded in another block, a loaded pointer, a .global table, a
 * call's result over the index, and a .local variable that is not the
 * whole frame. */
static void test_index_refused(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        /* guarded step */
        " ld.global.u8 %rs1, [%rd3];\n @%p1 mul.wide.u16 %r2, %rs1, 4;\n mov.u32 %r3, tab;\n"
        " add.s32 %r5, %r3, %r2;\n ld.shared.u32 %r6, [%r5];\n",
        /* the base written twice */
        " mov.u32 %r3, tab;\n @%p1 bra L2;\n mov.u32 %r3, tab2;\nL2:\n ld.global.u8 %rs1, [%rd3];\n"
        " mul.wide.u16 %r2, %rs1, 4;\n add.s32 %r5, %r3, %r2;\n ld.shared.u32 %r6, [%r5];\n",
        /* xor is no step */
        " ld.global.u32 %r1, [%rd3];\n xor.b32 %r2, %r1, 12;\n mov.u32 %r3, tab;\n"
        " add.s32 %r5, %r3, %r2;\n ld.shared.u32 %r6, [%r5];\n",
        /* loaded in another block */
        " ld.global.u8 %rs1, [%rd3];\n @%p1 bra L2;\nL2:\n mul.wide.u16 %r2, %rs1, 4;\n"
        " mov.u32 %r3, tab;\n add.s32 %r5, %r3, %r2;\n ld.shared.u32 %r6, [%r5];\n",
        /* a loaded pointer: no step between the load and the sum */
        " ld.global.u32 %r2, [%rd3];\n mov.u32 %r3, tab;\n add.s32 %r5, %r3, %r2;\n"
        " ld.shared.u32 %r6, [%r5];\n",
        /* a .global table */
        " ld.global.u8 %rs1, [%rd3];\n mul.wide.u16 %rd4, %rs1, 4;\n mov.u64 %rd5, gtab;\n"
        " add.s64 %rd6, %rd5, %rd4;\n ld.global.u32 %r6, [%rd6];\n",
        /* a call's result overwrites the index */
        " ld.global.u8 %rs1, [%rd3];\n mul.wide.u16 %r2, %rs1, 4;\n call (%r2), g, ();\n"
        " mov.u32 %r3, tab;\n add.s32 %r5, %r3, %r2;\n ld.shared.u32 %r6, [%r5];\n",
        /* one .local variable of two */
        " ld.global.u8 %rs1, [%rd3];\n mul.wide.u16 %rd4, %rs1, 4;\n mov.u64 %rd5, loc;\n"
        " add.s64 %rd6, %rd5, %rd4;\n ld.local.u32 %r6, [%rd6];\n",
    };
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
        static const char head[] =
            HEADER ".global .align 4 .b8 gtab[1024];\n"
                   ".func (.reg .b32 r) g()\n{\n mov.u32 r, 7;\n ret;\n}\n"
                   ".visible .entry k(.param .u64 d)\n{\n"
                   " .shared .align 4 .b8 tab[1024];\n .shared .align 4 .b8 tab2[1024];\n"
                   " .local .align 4 .b8 loc[64];\n .local .align 4 .b8 loc2[64];\n"
                   " .reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<9>; .reg .b64 %rd<8>;\n"
                   " ld.param.u64 %rd1, [d];\n cvta.to.global.u64 %rd3, %rd1;\n"
                   " mov.u32 %r7, %tid.x;\n setp.lt.u32 %p1, %r7, 4;\n";
        char ptx[2048];
        snprintf(ptx, sizeof ptx, "%s%s ret;\n}\n", head, bodies[b]);
        fixture fx;
        analyse(&fx, ptx, "k");
        prof_index ix;
        uint32_t last = fx.fn->ninsns - 2; /* the access before ret */
        if (prof_index_find(fx.m, fx.fn, &fx.cfg, last, &ix))
            fail_msg("body %zu: an index was found", b);
        release(&fx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branch_sources),
        cmocka_unit_test(test_loop_sources),
        cmocka_unit_test(test_merge_sources),
        cmocka_unit_test(test_bases),
        cmocka_unit_test(test_reg_params_and_textures),
        cmocka_unit_test(test_distances),
        cmocka_unit_test(test_outside_producers),
        cmocka_unit_test(test_odd_forms),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_flow_insensitive_fallback),
        cmocka_unit_test(test_large_function),
        cmocka_unit_test(test_index_shared_table),
        cmocka_unit_test(test_index_local_frame),
        cmocka_unit_test(test_index_refused),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_debug_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

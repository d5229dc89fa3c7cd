/* Building a program: frames, register slots, constants, module variables
 * and the decoding of every instruction into an xinsn. */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

static uint64_t align_up64(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

static uint32_t var_align(const mb_var *v)
{
    if (v->align)
        return v->align;
    unsigned s = mb_type_size(v->type) * v->vec;
    return s ? s : 1;
}

static uint32_t param_align(const mb_param *p)
{
    if (p->align)
        return p->align;
    unsigned s = mb_type_size(p->type) * p->vec;
    return s ? s : 1;
}

mb_status decode_unsupported(decode_ctx *dc, const mb_insn *insn, const char *what)
{
    mb_buf text = MB_BUF_INIT;
    mb_ptx_print_insn(dc->module, dc->fn, insn, &text);
    mb_status st = mb_error_set(dc->err, MB_ERR_UNSUPPORTED, dc->module->filename, insn->line,
                                insn->col, "%s: '%s' in function '%s'", what,
                                text.data ? text.data : "?", dc->fn->name);
    mb_buf_free(&text);
    return st;
}

void decode_common_mods(const mb_insn *insn, xinsn *x)
{
    static const struct {
        mb_ptx_mod mod;
        uint32_t bit;
    } bits[] = {{MB_MOD_FTZ, XM_FTZ},     {MB_MOD_SAT, XM_SAT},   {MB_MOD_APPROX, XM_APPROX},
                {MB_MOD_HI, XM_HI},       {MB_MOD_LO, XM_LO},     {MB_MOD_WIDE, XM_WIDE},
                {MB_MOD_CC, XM_CC},       {MB_MOD_RELU, XM_RELU}, {MB_MOD_NAN_PROPAGATE, XM_NAN},
                {MB_MOD_UNI, XM_UNI},     {MB_MOD_VOLATILE, XM_VOLATILE},
                {MB_MOD_FULL, XM_FULL},   {MB_MOD_ABS, XM_ABS},   {MB_MOD_XORSIGN, XM_XORSIGN}};
    static const struct {
        mb_ptx_mod mod;
        uint8_t round;
    } rounds[] = {{MB_MOD_RN, XR_RN},   {MB_MOD_RZ, XR_RZ},   {MB_MOD_RM, XR_RM},
                  {MB_MOD_RP, XR_RP},   {MB_MOD_RNA, XR_RNA}, {MB_MOD_RNI, XR_RNI},
                  {MB_MOD_RZI, XR_RZI}, {MB_MOD_RMI, XR_RMI}, {MB_MOD_RPI, XR_RPI}};
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE)
            continue;
        for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
            if (s == bits[k].mod)
                x->mods |= bits[k].bit;
        for (size_t k = 0; k < sizeof(rounds) / sizeof(rounds[0]); k++)
            if (s == rounds[k].mod)
                x->round = rounds[k].round;
    }
    x->type = (uint8_t)mb_insn_type(insn, 0);
    x->type2 = (uint8_t)mb_insn_type(insn, 1);
}

unsigned decode_reg_bits(const decode_ctx *dc, const mb_operand *o)
{
    if (o->kind != MB_OPND_REG || o->u.reg >= dc->fn->nregs)
        return 0;
    const mb_reg *r = &dc->fn->regs[o->u.reg];
    if (r->type == MB_TYPE_PRED)
        return 0;
    unsigned bytes = mb_type_size(r->type);
    return bytes <= 4 ? 32 : bytes * 8;
}

/* ------------------------------------------------------ constant pool */

typedef struct pool_builder {
    size_t cap;
    mb_strmap *dedup; /* 9-byte key (value, width) -> word offset */
} pool_builder;

mb_status decode_const(decode_ctx *dc, uint64_t value, int is64, xref *out)
{
    mb_program *prog = dc->prog;
    char key[9];
    memcpy(key, &value, 8);
    key[8] = (char)is64;
    int found = mb_strmap_get(dc->pool->dedup, key, sizeof(key));
    if (found >= 0) {
        *out = XREF_CONST | (uint32_t)found;
        return MB_OK;
    }
    uint32_t words = is64 ? 64 : 32;
    uint32_t at = (uint32_t)align_up64(prog->npool, 2);
    if (at + words >= (1u << 30))
        return mb_error_set(dc->err, MB_ERR_LIMIT, dc->module->filename, dc->fn->line, 0,
                            "too many constants");
    if (MB_GROW(prog->pool, dc->pool->cap, (size_t)at + words) != MB_OK)
        return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (is64) {
        uint64_t *lanes = (uint64_t *)(void *)(prog->pool + at);
        for (int l = 0; l < 32; l++)
            lanes[l] = value;
    } else {
        for (int l = 0; l < 32; l++)
            prog->pool[at + (uint32_t)l] = (uint32_t)value;
    }
    prog->npool = at + words;
    if (mb_strmap_put(dc->pool->dedup, key, sizeof(key), (int)at) != MB_OK)
        return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    *out = XREF_CONST | at;
    return MB_OK;
}

/* ------------------------------------------------------- immediates */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Converts a literal operand to the bits of `type`. */
static uint64_t literal_bits(const mb_operand *o, mb_ptx_type type)
{
    unsigned size = mb_type_size(type);
    mb_type_kind kind = mb_type_kind_of(type);
    uint64_t bits = o->u.bits;
    /* a bit pattern of the instruction's own width is used as written
     * (converting through double would quiet signalling NaNs) */
    if ((o->kind == MB_OPND_F32 && type == MB_TYPE_F32) || (o->kind == MB_OPND_F64 && type == MB_TYPE_F64))
        return bits;
    if (kind == MB_TYPE_KIND_F && (type == MB_TYPE_F32 || type == MB_TYPE_F64)) {
        double v;
        if (o->kind == MB_OPND_F32)
            v = bits_f32((uint32_t)bits);
        else if (o->kind == MB_OPND_F64)
            v = bits_f64(bits);
        else
            return bits & (size == 8 ? UINT64_MAX : 0xFFFFFFFFu); /* integer literal: raw bits */
        return type == MB_TYPE_F32 ? f32_bits((float)v) : f64_bits(v);
    }
    if (o->kind == MB_OPND_F32 && size == 8)
        return f64_bits(bits_f32((uint32_t)bits));
    if (size >= 8)
        return bits;
    return bits & ((UINT64_C(1) << (size * 8)) - 1);
}

/* ---------------------------------------------------- special registers */

static int sreg_slot(const mb_operand *o)
{
    unsigned c = o->u.sreg.comp;
    switch ((mb_sreg)o->u.sreg.id) {
    case MB_SREG_TID: return c >= 1 && c <= 3 ? SS_TID_X + (int)c - 1 : -1;
    case MB_SREG_NTID: return c >= 1 && c <= 3 ? SS_NTID_X + (int)c - 1 : -1;
    case MB_SREG_CTAID: return c >= 1 && c <= 3 ? SS_CTAID_X + (int)c - 1 : -1;
    case MB_SREG_NCTAID: return c >= 1 && c <= 3 ? SS_NCTAID_X + (int)c - 1 : -1;
    case MB_SREG_LANEID: return SS_LANEID;
    case MB_SREG_WARPID: return SS_WARPID;
    case MB_SREG_NWARPID: return SS_NWARPID;
    case MB_SREG_SMID: return SS_SMID;
    case MB_SREG_NSMID: return SS_NSMID;
    case MB_SREG_GRIDID: return SS_GRIDID;
    case MB_SREG_LANEMASK_EQ: return SS_LANEMASK_EQ;
    case MB_SREG_LANEMASK_LE: return SS_LANEMASK_LE;
    case MB_SREG_LANEMASK_LT: return SS_LANEMASK_LT;
    case MB_SREG_LANEMASK_GE: return SS_LANEMASK_GE;
    case MB_SREG_LANEMASK_GT: return SS_LANEMASK_GT;
    case MB_SREG_TOTAL_SMEM_SIZE: return SS_TOTAL_SMEM;
    case MB_SREG_DYNAMIC_SMEM_SIZE: return SS_DYNAMIC_SMEM;
    case MB_SREG_AGGR_SMEM_SIZE: return SS_AGGR_SMEM;
    default: return -1;
    }
}

/* ------------------------------------------------------------ operands */

static uint64_t symbol_address(const decode_ctx *dc, const mb_operand *o, int *ok)
{
    const mb_program *prog = dc->prog;
    *ok = 1;
    switch ((mb_symkind)o->symkind) {
    case MB_SYM_GLOBAL_VAR: {
        /* state-space addresses: a .shared symbol is an offset in shared memory */
        uint64_t base = prog->var_addr[o->u.sym];
        if (base == UINT64_MAX) /* extern .shared: the dynamic area after all static data */
            base = align_up64(prog->static_shared_bytes, 16);
        return base + (uint64_t)o->offset;
    }
    case MB_SYM_FUNC: return MB_FUNC_ADDR_BASE + (uint64_t)o->u.sym * MB_FUNC_ADDR_STRIDE;
    case MB_SYM_LOCAL_VAR: {
        const mb_var *v = &dc->fn->vars[o->u.sym];
        if (v->space == MB_SPACE_SHARED)
            return dc->ef->var_offset[o->u.sym] + (uint64_t)o->offset;
        break; /* .local and .param variables live in per-thread frames */
    }
    case MB_SYM_PARAM:
    case MB_SYM_RET:
    case MB_SYM_NONE: break;
    }
    *ok = 0;
    return 0;
}

mb_status decode_operand(decode_ctx *dc, const mb_insn *insn, const mb_operand *o,
                         mb_ptx_type type, xref *out)
{
    unsigned size = mb_type_size(type);
    int want64 = size == 8;
    switch ((mb_operand_kind)o->kind) {
    case MB_OPND_REG: {
        const mb_reg *r = &dc->fn->regs[o->u.reg];
        xref ref = dc->ef->reg_ref[o->u.reg];
        if (type == MB_TYPE_PRED) {
            if (r->type != MB_TYPE_PRED)
                return decode_unsupported(dc, insn, "a predicate operand is not a predicate register");
            *out = ref;
            return MB_OK;
        }
        if (r->type == MB_TYPE_PRED)
            return decode_unsupported(dc, insn, "a predicate register is used as a value");
        unsigned bits = decode_reg_bits(dc, o);
        if (size > 8 || (want64 && bits != 64) || (!want64 && bits != 32))
            return decode_unsupported(dc, insn,
                                      "operand register width does not match the instruction type");
        *out = ref;
        return MB_OK;
    }
    case MB_OPND_SREG: {
        int slot = sreg_slot(o);
        if (slot < 0 || want64)
            return decode_unsupported(dc, insn, "this special register cannot be read here");
        dc->prog->sreg_used |= 1u << slot;
        *out = XREF_SREG | (uint32_t)(slot * 32);
        return MB_OK;
    }
    case MB_OPND_IMM:
    case MB_OPND_F32:
    case MB_OPND_F64:
        if (type == MB_TYPE_PRED) {
            *out = XREF_PRED | (o->u.bits ? PRED_TRUE : PRED_FALSE);
            return MB_OK;
        }
        if (size > 8)
            return decode_unsupported(dc, insn, "immediate operand of an unsupported width");
        return decode_const(dc, literal_bits(o, type), want64, out);
    case MB_OPND_SYMBOL: {
        int ok;
        uint64_t addr = symbol_address(dc, o, &ok);
        if (!ok)
            return decode_unsupported(dc, insn, "the address of this symbol cannot be taken here");
        return decode_const(dc, want64 ? addr : (uint32_t)addr, want64, out);
    }
    case MB_OPND_SINK: *out = XREF_NONE; return MB_OK;
    default: return decode_unsupported(dc, insn, "unsupported operand form");
    }
}

/* ------------------------------------------------------------ families */

exec_family exec_family_of(const mb_insn *insn)
{
    mb_ptx_type t = mb_insn_type(insn, 0);
    int is_float = mb_type_kind_of(t) == MB_TYPE_KIND_F && t != MB_TYPE_NONE;
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_ADD: case MB_OP_SUB: case MB_OP_MUL: case MB_OP_MAD: case MB_OP_DIV:
    case MB_OP_ABS: case MB_OP_NEG: case MB_OP_MIN: case MB_OP_MAX:
        return is_float ? FAM_FLOAT : FAM_INT;
    case MB_OP_ADDC: case MB_OP_SUBC: case MB_OP_MADC: case MB_OP_MUL24: case MB_OP_MAD24:
    case MB_OP_SAD: case MB_OP_REM: case MB_OP_POPC: case MB_OP_CLZ: case MB_OP_BFIND:
    case MB_OP_FNS: case MB_OP_BREV: case MB_OP_BFE: case MB_OP_BFI: case MB_OP_BMSK:
    case MB_OP_SZEXT: case MB_OP_DP4A: case MB_OP_DP2A: case MB_OP_AND: case MB_OP_OR:
    case MB_OP_XOR: case MB_OP_NOT: case MB_OP_CNOT: case MB_OP_LOP3: case MB_OP_SHF:
    case MB_OP_SHL: case MB_OP_SHR: case MB_OP_PRMT: case MB_OP_SET: case MB_OP_SETP:
    case MB_OP_SELP: case MB_OP_SLCT:
        return FAM_INT;
    case MB_OP_FMA: case MB_OP_COPYSIGN: case MB_OP_TESTP: case MB_OP_RCP: case MB_OP_SQRT:
    case MB_OP_RSQRT: case MB_OP_SIN: case MB_OP_COS: case MB_OP_LG2: case MB_OP_EX2:
    case MB_OP_TANH:
        return FAM_FLOAT;
    case MB_OP_MOV: case MB_OP_CVT:
        return FAM_CVT;
    case MB_OP_LD: case MB_OP_LDU: case MB_OP_ST: case MB_OP_ATOM: case MB_OP_RED:
    case MB_OP_CVTA: case MB_OP_ISSPACEP: case MB_OP_PREFETCH: case MB_OP_PREFETCHU:
    case MB_OP_MEMBAR: case MB_OP_FENCE: case MB_OP_APPLYPRIORITY: case MB_OP_DISCARD:
        return FAM_MEM;
    case MB_OP_VOTE: case MB_OP_SHFL: case MB_OP_MATCH: case MB_OP_ACTIVEMASK:
    case MB_OP_REDUX: case MB_OP_ELECT: case MB_OP_BAR: case MB_OP_BARRIER:
        return FAM_WARP;
    case MB_OP_BRA: case MB_OP_BRX: case MB_OP_CALL: case MB_OP_RET: case MB_OP_EXIT:
    case MB_OP_TRAP: case MB_OP_BRKPT: case MB_OP_NANOSLEEP: case MB_OP_PMEVENT:
        return FAM_CONTROL;
    default:
        return FAM_NONE;
    }
}

static mb_status decode_insn(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    if (insn->guard >= 0) {
        x->guard = (int32_t)XREF_INDEX(dc->ef->reg_ref[insn->guard]);
        x->guard_xor = insn->guard_not ? 0xFFFFFFFFu : 0;
    } else {
        x->guard = -1;
    }
    x->opcode = insn->opcode;
    x->src = insn;
    x->func = dc->func;
    x->vec = 1;
    for (int i = 0; i < XINSN_MAX_OPS; i++)
        x->op[i] = XREF_NONE;
    switch (exec_family_of(insn)) {
    case FAM_INT: return decode_int(dc, insn, x);
    case FAM_FLOAT: return decode_float(dc, insn, x);
    case FAM_CVT: return decode_cvt(dc, insn, x);
    case FAM_MEM: return decode_mem(dc, insn, x);
    case FAM_WARP: return decode_warp(dc, insn, x);
    case FAM_CONTROL: return decode_control(dc, insn, x);
    case FAM_NONE:
        if (insn->opcode == MB_OP_TEX)
            return decode_tex(dc, insn, x);
        break;
    }
    return decode_unsupported(dc, insn, "the executor does not implement this instruction");
}

/* ------------------------------------------------------ frame layouts */

static mb_status layout_function(mb_program *prog, uint32_t f, uint64_t *shared_top, mb_error *err)
{
    const mb_function *fn = &prog->module->funcs[f];
    exec_func *ef = &prog->funcs[f];
    ef->fn = fn;
    ef->param_offset = calloc((size_t)fn->nparams + 1, sizeof(uint32_t));
    ef->ret_offset = calloc((size_t)fn->nrets + 1, sizeof(uint32_t));
    ef->var_offset = calloc((size_t)fn->nvars + 1, sizeof(uint32_t));
    ef->reg_ref = calloc((size_t)fn->nregs + 1, sizeof(xref));
    if (!ef->param_offset || !ef->ret_offset || !ef->var_offset || !ef->reg_ref)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    uint64_t frame = 0;
    if (!fn->is_entry) {
        for (uint32_t i = 0; i < fn->nparams; i++) {
            frame = align_up64(frame, param_align(&fn->params[i]));
            ef->param_offset[i] = (uint32_t)frame;
            frame += fn->params[i].size;
        }
    }
    for (uint32_t i = 0; i < fn->nrets; i++) {
        frame = align_up64(frame, param_align(&fn->rets[i]));
        ef->ret_offset[i] = (uint32_t)frame;
        frame += fn->rets[i].size;
    }
    for (uint32_t i = 0; i < fn->nvars; i++) {
        const mb_var *v = &fn->vars[i];
        if (v->space == MB_SPACE_SHARED) {
            *shared_top = align_up64(*shared_top, var_align(v));
            ef->var_offset[i] = (uint32_t)*shared_top;
            *shared_top += v->size;
        } else if (v->space == MB_SPACE_LOCAL || v->space == MB_SPACE_PARAM) {
            frame = align_up64(frame, var_align(v));
            ef->var_offset[i] = (uint32_t)frame;
            frame += v->size;
        } else {
            return mb_error_set(err, MB_ERR_UNSUPPORTED, prog->module->filename, v->line, v->col,
                                "%s variables inside functions are not supported",
                                mb_space_name(v->space));
        }
        if (frame > (1u << 30) || *shared_top > (1u << 30))
            return mb_error_set(err, MB_ERR_LIMIT, prog->module->filename, v->line, v->col,
                                "variable '%s' does not fit in a frame", v->name);
    }
    ef->frame_bytes = (uint32_t)align_up64(frame, 16);
    /* registers: predicates by index, values as lane arrays (64-bit aligned) */
    uint64_t words = 0;
    uint32_t preds = PRED_FIRST;
    for (uint32_t i = 0; i < fn->nregs; i++) {
        const mb_reg *r = &fn->regs[i];
        if (r->vec > 1)
            return mb_error_set(err, MB_ERR_UNSUPPORTED, prog->module->filename, fn->line, fn->col,
                                "vector registers (%s) are not supported", r->name);
        if (r->type == MB_TYPE_PRED) {
            ef->reg_ref[i] = XREF_PRED | preds++;
            continue;
        }
        unsigned bytes = mb_type_size(r->type);
        uint32_t lanes_words = bytes <= 4 ? 32 : bytes * 8;
        words = align_up64(words, 2);
        ef->reg_ref[i] = XREF_REG | (uint32_t)words;
        words += lanes_words;
        if (words >= (1u << 29))
            return mb_error_set(err, MB_ERR_LIMIT, prog->module->filename, fn->line, fn->col,
                                "function '%s' has too many registers", fn->name);
    }
    ef->regfile_words = (uint32_t)align_up64(words, 2);
    ef->npreds = preds;
    return MB_OK;
}

/* ------------------------------------------------- module variables */

static void write_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static mb_status place_module_vars(mb_program *prog, uint64_t *shared_top, mb_error *err)
{
    const mb_module *m = prog->module;
    for (uint32_t i = 0; i < m->nvars; i++) {
        const mb_var *v = &m->vars[i];
        if (v->space == MB_SPACE_SHARED) {
            if (v->ndims && v->nelems == 0) {
                prog->var_addr[i] = UINT64_MAX; /* dynamic: resolved per launch */
                continue;
            }
            *shared_top = align_up64(*shared_top, var_align(v));
            prog->var_addr[i] = *shared_top;
            *shared_top += v->size;
            continue;
        }
        if (v->space != MB_SPACE_GLOBAL && v->space != MB_SPACE_CONST)
            continue; /* textures and the like have no storage */
        if (v->linkage == MB_LINK_EXTERN || v->size == 0)
            continue;
        mb_status st = mb_memory_alloc(prog->mem, v->size, v->name, &prog->var_addr[i], err);
        if (st != MB_OK)
            return st;
    }
    /* initialisers after every address is known (they may point at each other) */
    for (uint32_t i = 0; i < m->nvars; i++) {
        const mb_var *v = &m->vars[i];
        if (!v->init || prog->var_addr[i] == 0 || v->space == MB_SPACE_SHARED)
            continue;
        uint8_t *host = mb_memory_host(prog->mem, prog->var_addr[i], v->size);
        unsigned elem = mb_type_size(v->type);
        if (!host || elem == 0)
            continue;
        for (uint32_t k = 0; k < v->ninit && (uint64_t)(k + 1) * elem <= v->size; k++) {
            const mb_init *it = &v->init[k];
            uint64_t bits = it->bits;
            if (it->kind == MB_INIT_ADDR || it->kind == MB_INIT_GENERIC_ADDR) {
                uint64_t base = 0;
                if (it->symkind == MB_SYM_GLOBAL_VAR)
                    base = prog->var_addr[it->sym];
                else if (it->symkind == MB_SYM_FUNC)
                    base = MB_FUNC_ADDR_BASE + (uint64_t)it->sym * MB_FUNC_ADDR_STRIDE;
                bits = base + it->bits;
            } else if (it->kind == MB_INIT_F64 && elem == 4) {
                double d;
                memcpy(&d, &bits, 8);
                float f = (float)d;
                uint32_t u;
                memcpy(&u, &f, 4);
                bits = u;
            } else if (it->kind == MB_INIT_F32 && elem == 8) {
                float f;
                uint32_t u = (uint32_t)bits;
                memcpy(&f, &u, 4);
                double d = f;
                memcpy(&bits, &d, 8);
            }
            write_le(host + (uint64_t)k * elem, bits, elem);
        }
    }
    return MB_OK;
}

/* ------------------------------------------------------ call graph */

/* Deepest chain of frames from each kernel; marks recursion. */
static void stack_needs(mb_program *prog)
{
    const mb_module *m = prog->module;
    uint32_t n = m->nfuncs;
    /* iterative relaxation: need[f] = frame(f) + max over callees; a chain
     * longer than n means a cycle */
    uint64_t *need = calloc((size_t)n + 1, sizeof(uint64_t));
    if (!need) {
        prog->recursive = 1;
        return;
    }
    for (uint32_t f = 0; f < n; f++)
        need[f] = prog->funcs[f].frame_bytes;
    int changed = 1;
    for (uint32_t round = 0; changed && round <= n + 1; round++) {
        changed = 0;
        for (uint32_t f = 0; f < n; f++) {
            const mb_function *fn = &m->funcs[f];
            for (uint32_t i = 0; i < fn->ninsns; i++) {
                const mb_insn *insn = &fn->insns[i];
                if (insn->opcode != MB_OP_CALL)
                    continue;
                /* an indirect call (register target) may reach any function */
                const mb_operand *target = NULL;
                for (unsigned k = 0; k < insn->noperands && !target; k++) {
                    const mb_operand *o = mb_insn_operand(fn, insn, k);
                    if (o->kind != MB_OPND_LIST)
                        target = o;
                }
                int indirect = target && target->kind == MB_OPND_REG;
                for (uint32_t g = 0; g < n; g++) {
                    if (indirect ? !m->funcs[g].has_body
                                 : !(target->kind == MB_OPND_SYMBOL &&
                                     target->symkind == MB_SYM_FUNC && target->u.sym == g))
                        continue;
                    uint64_t cand = prog->funcs[f].frame_bytes + need[g];
                    if (cand > need[f]) {
                        need[f] = cand;
                        changed = 1;
                    }
                }
            }
        }
        if (round == n + 1 && changed)
            prog->recursive = 1;
    }
    uint64_t worst = 0;
    for (uint32_t f = 0; f < n; f++)
        if (m->funcs[f].is_entry && need[f] > worst)
            worst = need[f];
    prog->stack_bytes_static = worst > (1u << 30) ? (1u << 30) : (uint32_t)worst;
    free(need);
}

/* ------------------------------------------------------------ program */

void mb_program_free(mb_program *prog)
{
    if (!prog)
        return;
    for (uint32_t f = 0; f < prog->nfuncs; f++) {
        free(prog->funcs[f].param_offset);
        free(prog->funcs[f].ret_offset);
        free(prog->funcs[f].var_offset);
        free(prog->funcs[f].reg_ref);
    }
    for (uint32_t c = 0; c < prog->ncalls; c++) {
        free(prog->calls[c].arg_off);
        free(prog->calls[c].arg_size);
        free(prog->calls[c].ret_off);
        free(prog->calls[c].ret_size);
    }
    free(prog->calls);
    free(prog->funcs);
    free(prog->code);
    free(prog->pool);
    free(prog->var_addr);
    prof_analysis_free(prog->analysis);
    free(prog);
}

const mb_module *mb_program_module(const mb_program *prog)
{
    return prog->module;
}

uint64_t mb_program_var_address(const mb_program *prog, uint32_t var)
{
    if (var >= prog->module->nvars || prog->var_addr[var] == UINT64_MAX ||
        prog->module->vars[var].space == MB_SPACE_SHARED)
        return 0;
    return prog->var_addr[var];
}

static mb_status decode_function(mb_program *prog, pool_builder *pool, uint32_t f, mb_error *err)
{
    const mb_module *m = prog->module;
    const mb_function *fn = &m->funcs[f];
    exec_func *ef = &prog->funcs[f];
    mb_cfg cfg;
    mb_status st = mb_cfg_build(fn, &cfg, err);
    if (st != MB_OK)
        return st;
    decode_ctx dc = {prog, m, fn, f, ef, &cfg, err, pool};
    for (uint32_t i = 0; i < fn->ninsns && st == MB_OK; i++) {
        xinsn *x = &prog->code[ef->entry_pc + i];
        st = decode_insn(&dc, &fn->insns[i], x);
        if (st == MB_OK && x->fn == NULL)
            st = decode_unsupported(&dc, &fn->insns[i], "internal error: no handler decoded");
    }
    /* branch reconvergence points: the first instruction of the immediate
     * post-dominator of the branch's block, or the function's exit */
    for (uint32_t i = 0; i < fn->ninsns && st == MB_OK; i++) {
        xinsn *x = &prog->code[ef->entry_pc + i];
        int b = cfg.block_of_insn[i];
        int ip = cfg.ipdom[b];
        if (ip >= cfg.nblocks || cfg.blocks[ip].first >= fn->ninsns)
            x->reconv = ef->exit_pc;
        else
            x->reconv = ef->entry_pc + cfg.blocks[ip].first;
    }
    xinsn *exit_x = &prog->code[ef->exit_pc];
    memset(exit_x, 0, sizeof(*exit_x));
    for (int i = 0; i < XINSN_MAX_OPS; i++)
        exit_x->op[i] = XREF_NONE;
    exit_x->fn = exec_function_exit;
    exit_x->guard = -1;
    exit_x->func = f;
    exit_x->opcode = MB_OP_RET;
    exit_x->src = fn->ninsns ? &fn->insns[fn->ninsns - 1] : NULL;
    exit_x->reconv = ef->exit_pc;
    mb_cfg_free(&cfg);
    return st;
}

mb_status mb_program_new(const mb_module *m, mb_memory *mem, mb_program **out, mb_error *err)
{
    *out = NULL;
    mb_program *prog = calloc(1, sizeof(*prog));
    pool_builder pool = {0, mb_strmap_new()};
    if (!prog || !pool.dedup) {
        free(prog);
        mb_strmap_free(pool.dedup);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    prog->module = m;
    prog->mem = mem;
    prog->nfuncs = m->nfuncs;
    prog->funcs = calloc((size_t)m->nfuncs + 1, sizeof(exec_func));
    prog->var_addr = calloc((size_t)m->nvars + 1, sizeof(uint64_t));
    mb_status st = MB_OK;
    if (!prog->funcs || !prog->var_addr)
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    uint64_t shared_top = 0;
    if (st == MB_OK)
        st = place_module_vars(prog, &shared_top, err);
    uint64_t ncode = 0;
    for (uint32_t f = 0; f < m->nfuncs && st == MB_OK; f++) {
        st = layout_function(prog, f, &shared_top, err);
        exec_func *ef = &prog->funcs[f];
        if (!m->funcs[f].has_body) {
            ef->entry_pc = ef->exit_pc = UINT32_MAX;
            continue;
        }
        ef->entry_pc = (uint32_t)ncode;
        ef->exit_pc = (uint32_t)(ncode + m->funcs[f].ninsns);
        ncode += (uint64_t)m->funcs[f].ninsns + 1;
    }
    if (st == MB_OK && (ncode >= (1u << 31) || shared_top > (1u << 30)))
        st = mb_error_set(err, MB_ERR_LIMIT, m->filename, 0, 0, "module is too large to execute");
    prog->static_shared_bytes = (uint32_t)shared_top;
    if (st == MB_OK) {
        prog->ncode = (uint32_t)ncode;
        prog->code = calloc(ncode + 1, sizeof(xinsn));
        if (!prog->code)
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    for (uint32_t f = 0; f < m->nfuncs && st == MB_OK; f++)
        if (m->funcs[f].has_body)
            st = decode_function(prog, &pool, f, err);
    if (st == MB_OK)
        stack_needs(prog);
    mb_strmap_free(pool.dedup);
    if (st != MB_OK) {
        mb_program_free(prog);
        return st;
    }
    *out = prog;
    return MB_OK;
}

mb_status mb_kernel_param_layout(const mb_function *fn, mb_param_slot *slots, uint32_t *total,
                                 mb_error *err)
{
    uint64_t off = 0;
    for (uint32_t i = 0; i < fn->nparams; i++) {
        off = align_up64(off, param_align(&fn->params[i]));
        slots[i].offset = (uint32_t)off;
        slots[i].size = (uint32_t)fn->params[i].size;
        off += fn->params[i].size;
        if (off > (1u << 20))
            return mb_error_set(err, MB_ERR_LIMIT, "", fn->line, fn->col,
                                "parameters of '%s' exceed 1 MiB", fn->name);
    }
    *total = (uint32_t)off;
    return MB_OK;
}

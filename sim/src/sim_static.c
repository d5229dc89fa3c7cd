/* Timing facts of every static instruction, computed once per launch:
 * functional unit, latency, initiation interval and the scoreboard slots it
 * reads and writes (sim_latency.def is the unit table). */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

static unsigned latency_column(mb_opcode op)
{
    switch (op) {
#define SIM_LAT(e, col)                                                                            \
    case MB_OP_##e:                                                                                \
        return col;
#include "sim_latency.def"
#undef SIM_LAT
    default:
        return LAT_ADD;
    }
}

typedef struct reg_collector {
    uint16_t *slots;
    uint8_t *n;
    unsigned max;
    uint32_t base, mask;
} reg_collector;

static void add_reg(reg_collector *rc, uint32_t reg)
{
    uint16_t slot = (uint16_t)((rc->base + reg) & rc->mask);
    for (unsigned i = 0; i < *rc->n; i++)
        if (rc->slots[i] == slot)
            return;
    if (*rc->n < rc->max)
        rc->slots[(*rc->n)++] = slot;
}

static void add_operand_regs(reg_collector *rc, const mb_function *fn, const mb_operand *o)
{
    switch (o->kind) {
    case MB_OPND_REG:
        add_reg(rc, o->u.reg);
        break;
    case MB_OPND_ADDR:
        if (o->base_kind == MB_OPND_REG)
            add_reg(rc, o->u.reg);
        break;
    case MB_OPND_PAIR:
        if (o->u.pair.first != MB_PAIR_SINK)
            add_reg(rc, o->u.pair.first);
        if (o->u.pair.second != MB_PAIR_SINK)
            add_reg(rc, o->u.pair.second);
        break;
    case MB_OPND_VEC:
    case MB_OPND_BRACKET_LIST:
    case MB_OPND_LIST:
        for (uint32_t k = 0; k < o->u.list.count; k++) {
            const mb_operand *e = &fn->operands[o->u.list.first + k];
            if (e->kind == MB_OPND_REG)
                add_reg(rc, e->u.reg);
        }
        break;
    default:
        break;
    }
}

static uint32_t scaled_interval(const mb_sim *s, uint32_t ii)
{
    uint32_t width = (uint32_t)s->cfg.simd_width;
    uint32_t passes = (32 + width - 1) / width;
    uint32_t v = ii * passes;
    return v > 65535 ? 65535 : v;
}

mb_status sim_build_insns(mb_sim *s, const mb_program *prog, mb_error *err)
{
    const mb_module *m = mb_program_module(prog);
    uint32_t n = mb_program_ncode(prog);
    uint32_t *base = calloc((size_t)m->nfuncs + 1, sizeof(uint32_t));
    sim_insn *insns = calloc(n ? n : 1, sizeof(sim_insn));
    if (!base || !insns) {
        free(base);
        free(insns);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    uint32_t total = 0;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        base[f] = total;
        total += m->funcs[f].nregs;
    }
    /* one slot per register of every function (calls get their own), up to
     * 1024 slots per warp; beyond that registers share slots, which can only
     * add false dependences */
    uint32_t slots = 1;
    while (slots < total && slots < 1024)
        slots *= 2;
    const sim_derived *d = &s->d;
    for (uint32_t pc = 0; pc < n; pc++) {
        uint32_t idx = 0;
        const mb_function *fn = mb_program_code_insn(prog, pc, &idx);
        sim_insn *si = &insns[pc];
        si->unit = MB_SIM_UNIT_INT;
        si->kind = KIND_CTRL;
        si->latency = (uint16_t)d->lat_int[LAT_ADD];
        si->interval = (uint16_t)scaled_interval(s, d->ii_int[LAT_ADD]);
        if (!fn || idx >= fn->ninsns)
            continue; /* a function's implicit end: a branch-like no-op */
        const mb_insn *insn = &fn->insns[idx];
        mb_opcode op = (mb_opcode)insn->opcode;
        const mb_opcode_info *info = mb_opcode_get(op);
        uint32_t fbase = base[fn - m->funcs];
        reg_collector src = {si->src, &si->nsrc, SIM_MAX_SRC, fbase, slots - 1};
        reg_collector dst = {si->dst, &si->ndst, SIM_MAX_DST, fbase, slots - 1};
        if (insn->guard >= 0)
            add_reg(&src, (uint32_t)insn->guard);
        for (unsigned i = 0; i < insn->noperands; i++) {
            const mb_operand *o = mb_insn_operand(fn, insn, i);
            int is_dest = i == 0 && (info->flags & MB_OPF_D) && o->kind != MB_OPND_ADDR;
            add_operand_regs(is_dest ? &dst : &src, fn, o);
        }
        mb_ptx_type type = mb_insn_type(insn, 0);
        mb_type_kind tk = mb_type_kind_of(type);
        unsigned col = latency_column(op);
        uint32_t lat, ii;
        if (info->flags & MB_OPF_M) {
            si->kind = KIND_MEM;
            si->unit = MB_SIM_UNIT_MEM;
            si->is_store = op == MB_OP_ST || op == MB_OP_RED || op == MB_OP_SUST || op == MB_OP_SURED;
            si->is_atomic = op == MB_OP_ATOM || op == MB_OP_RED;
            lat = d->lat_int[LAT_ADD];
            ii = 1;
        } else if (info->cls == MB_CLASS_SFU || info->cls == MB_CLASS_TENSOR) {
            si->kind = KIND_ALU;
            si->unit = MB_SIM_UNIT_SFU;
            lat = (uint32_t)s->cfg.lat_sfu;
            ii = (uint32_t)s->cfg.ii_sfu;
            if (type == MB_TYPE_F64) {
                si->unit = MB_SIM_UNIT_DP;
                lat = d->lat_dp[LAT_DIV];
                ii = d->ii_dp[LAT_DIV];
            }
        } else if (type == MB_TYPE_F64) {
            si->kind = KIND_ALU;
            si->unit = MB_SIM_UNIT_DP;
            lat = d->lat_dp[col];
            ii = d->ii_dp[col];
        } else if (tk == MB_TYPE_KIND_F && op != MB_OP_MOV && op != MB_OP_SHFL) {
            si->kind = KIND_ALU;
            si->unit = MB_SIM_UNIT_SP;
            lat = d->lat_fp[col];
            ii = d->ii_fp[col];
        } else {
            si->kind = info->cls == MB_CLASS_CTRL ? KIND_CTRL : KIND_ALU;
            si->unit = MB_SIM_UNIT_INT;
            lat = d->lat_int[col];
            ii = d->ii_int[col];
        }
        if (op == MB_OP_BAR || op == MB_OP_BARRIER)
            si->kind = KIND_BAR;
        si->latency = (uint16_t)(lat > 65535 ? 65535 : lat);
        si->interval = (uint16_t)scaled_interval(s, ii);
    }
    free(base);
    free(s->insns);
    s->insns = insns;
    s->ninsns = n;
    s->nslots = slots;
    return MB_OK;
}

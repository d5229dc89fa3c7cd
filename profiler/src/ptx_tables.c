/* The PTX tables (types, modifiers, opcodes, special registers) expanded
 * from the .def files, and their lookups. */
#include <minibench/profiler.h>

#include <string.h>

typedef struct type_row {
    const char *name;
    unsigned size;
    mb_type_kind kind;
} type_row;

static const type_row type_rows[MB_TYPE_COUNT] = {
    {"", 0, MB_TYPE_KIND_B},
#define MB_PTX_TYPE(e, name, size, kind) {name, size, MB_TYPE_KIND_##kind},
#include <minibench/ptx_types.def>
#undef MB_PTX_TYPE
};

static const char *const mod_names[MB_MOD_COUNT] = {
    "",
#define MB_PTX_MOD(e, text) text,
#include <minibench/ptx_modifiers.def>
#undef MB_PTX_MOD
};

static const mb_opcode_info opcode_rows[MB_OP_COUNT] = {
#define MB_PTX_OP(e, name, cls, minops, maxops, flags)                                            \
    {name, MB_CLASS_##cls, minops, maxops, (unsigned)(flags)},
#define D MB_OPF_D
#define T MB_OPF_T
#define M MB_OPF_M
#define B MB_OPF_B
#define C MB_OPF_C
#define N MB_OPF_N
#include <minibench/ptx_opcodes.def>
#undef D
#undef T
#undef M
#undef B
#undef C
#undef N
#undef MB_PTX_OP
};

typedef struct sreg_row {
    const char *name;
    mb_sreg_form form;
} sreg_row;

static const sreg_row sreg_rows[MB_SREG_COUNT] = {
#define MB_PTX_SREG(e, name, form) {name, MB_SREG_FORM_##form},
#include <minibench/ptx_sregs.def>
#undef MB_PTX_SREG
};

static const char *const class_names[MB_CLASS_COUNT] = {"alu", "sfu", "conv", "mem",
                                                        "ctrl", "sync", "tensor", "misc"};

static const char *const space_names[MB_SPACE_COUNT] = {
    "", ".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex"};

const char *mb_type_name(mb_ptx_type type)
{
    return (unsigned)type < MB_TYPE_COUNT ? type_rows[type].name : "";
}

unsigned mb_type_size(mb_ptx_type type)
{
    return (unsigned)type < MB_TYPE_COUNT ? type_rows[type].size : 0;
}

mb_type_kind mb_type_kind_of(mb_ptx_type type)
{
    return (unsigned)type < MB_TYPE_COUNT ? type_rows[type].kind : MB_TYPE_KIND_B;
}

mb_ptx_type mb_type_lookup(const char *name, size_t len)
{
    for (int t = 1; t < MB_TYPE_COUNT; t++)
        if (strlen(type_rows[t].name) == len && memcmp(type_rows[t].name, name, len) == 0)
            return (mb_ptx_type)t;
    return MB_TYPE_NONE;
}

const char *mb_mod_name(mb_ptx_mod mod)
{
    return (unsigned)mod < MB_MOD_COUNT ? mod_names[mod] : "";
}

mb_ptx_mod mb_mod_lookup(const char *text, size_t len)
{
    for (int m = 1; m < MB_MOD_COUNT; m++)
        if (strlen(mod_names[m]) == len && memcmp(mod_names[m], text, len) == 0)
            return (mb_ptx_mod)m;
    return MB_MOD_NONE;
}

const mb_opcode_info *mb_opcode_get(mb_opcode op)
{
    return (unsigned)op < MB_OP_COUNT ? &opcode_rows[op] : NULL;
}

int mb_opcode_lookup(const char *name, size_t len)
{
    for (int o = 0; o < MB_OP_COUNT; o++)
        if (strlen(opcode_rows[o].name) == len && memcmp(opcode_rows[o].name, name, len) == 0)
            return o;
    return -1;
}

const char *mb_op_class_name(mb_op_class cls)
{
    return (unsigned)cls < MB_CLASS_COUNT ? class_names[cls] : "";
}

const char *mb_sreg_name(mb_sreg sreg)
{
    return (unsigned)sreg < MB_SREG_COUNT ? sreg_rows[sreg].name : "";
}

mb_sreg_form mb_sreg_form_of(mb_sreg sreg)
{
    return (unsigned)sreg < MB_SREG_COUNT ? sreg_rows[sreg].form : MB_SREG_FORM_SCALAR;
}

const char *mb_space_name(mb_space space)
{
    return (unsigned)space < MB_SPACE_COUNT ? space_names[space] : "";
}

mb_ptx_type mb_insn_type(const mb_insn *insn, unsigned k)
{
    for (unsigned i = 0; i < insn->nsuffix; i++)
        if (insn->suffix[i] & MB_SUFFIX_TYPE) {
            if (k == 0)
                return (mb_ptx_type)(insn->suffix[i] & ~MB_SUFFIX_TYPE);
            k--;
        }
    return MB_TYPE_NONE;
}

int mb_insn_has_mod(const mb_insn *insn, mb_ptx_mod mod)
{
    for (unsigned i = 0; i < insn->nsuffix; i++)
        if (insn->suffix[i] == (uint16_t)mod)
            return 1;
    return 0;
}

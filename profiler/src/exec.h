/*
 * The SIMT executor's internals, shared by the decoder, the run loop and the
 * instruction families (exec_*.c).
 *
 * Representation
 * --------------
 * A warp's registers are lane arrays: a register of up to 32 bits is 32
 * consecutive uint32_t words (one per lane), a 64-bit register is 32
 * consecutive uint64_t (64 words, 8-byte aligned), a .b128 register is 32
 * pairs of uint64_t (lane l's low half at [2l], its high half at [2l+1]). Values narrower than 32 bits are kept zero-extended in
 * their word. Predicates are not lane arrays: each is one 32-bit mask with a
 * bit per lane.
 *
 * Instructions are decoded once into xinsn records holding a handler and
 * operand references (xref). A reference names a register (a word offset into
 * the warp's register file), a predicate (an index), or a constant (a word
 * offset into the program's constant pool, where every immediate is stored
 * broadcast to 32 lanes so handlers read it exactly like a register).
 * Special registers (%tid.x, %laneid, ...) are pseudo-registers initialised
 * when a warp starts, so reading them is a plain register read.
 *
 * A handler executes one warp instruction for the lanes in `mask` (SIMT
 * active and guard true) and returns EXEC_NEXT, or another exec_result when
 * control flow or a fault needs the run loop. The run loop has already
 * advanced w->pc to the next instruction before calling the handler.
 */
#ifndef MB_EXEC_H
#define MB_EXEC_H

#include <minibench/profiler.h>

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ references */

typedef uint32_t xref;

/* The top two bits select a base pointer (exec_warp.base), the rest is a
 * word offset (or a predicate index). Registers and predicates are relative
 * to the current call frame, so each activation of a function has its own. */
#define XREF_KIND_MASK 0xC0000000u
#define XREF_REG 0x00000000u   /* word offset into the current frame's registers */
#define XREF_SREG 0x40000000u  /* word offset into the warp's special registers */
#define XREF_CONST 0x80000000u /* word offset into the program constant pool */
#define XREF_PRED 0xC0000000u  /* predicate index in the current frame */
#define XREF_NONE 0xFFFFFFFFu  /* absent operand or the sink '_' */
#define XREF_INDEX(r) ((r) & ~XREF_KIND_MASK)
#define XREF_IS(r, kind) (((r) & XREF_KIND_MASK) == (kind) && (r) != XREF_NONE)

/* -------------------------------------------------------- decoded insns */

struct exec_warp;
struct xinsn;

typedef enum exec_result {
    EXEC_NEXT = 0, /* continue with w->pc */
    EXEC_BARRIER,  /* the warp waits at a barrier (w->pc already past it) */
    EXEC_EXITED,   /* the warp's stack changed (exit/ret); the run loop re-reads the top */
    EXEC_FAULT     /* w->cta->fault is filled */
} exec_result;

typedef exec_result (*xhandler)(struct exec_warp *w, const struct xinsn *x, uint32_t mask);

enum { XINSN_MAX_OPS = 8 };

/* Modifier bits decoded once (families may define more in `aux`). */
enum {
    XM_FTZ = 1 << 0,
    XM_SAT = 1 << 1,
    XM_APPROX = 1 << 2,
    XM_HI = 1 << 3,
    XM_LO = 1 << 4,
    XM_WIDE = 1 << 5,
    XM_CC = 1 << 6,     /* writes the carry flag */
    XM_RELU = 1 << 7,
    XM_NAN = 1 << 8,    /* min/max .NaN */
    XM_UNI = 1 << 9,
    XM_VOLATILE = 1 << 10,
    XM_FULL = 1 << 11,
    XM_ABS = 1 << 12,
    XM_XORSIGN = 1 << 13
};

/* Rounding modes (xinsn.round). */
enum { XR_DEFAULT = 0, XR_RN, XR_RZ, XR_RM, XR_RP, XR_RNA, XR_RNI, XR_RZI, XR_RMI, XR_RPI };

typedef struct xinsn {
    xhandler fn;
    xref op[XINSN_MAX_OPS]; /* operands in PTX order; vectors are expanded in place */
    uint8_t nops;
    uint8_t type;   /* first type suffix (mb_ptx_type) */
    uint8_t type2;  /* second type suffix (cvt source, setp/set source, ...) */
    uint8_t vec;    /* vector width of ld/st/atom (1, 2, 4) */
    uint8_t round;  /* XR_* */
    uint8_t space;  /* memory instructions: mb_space, MB_SPACE_NONE = generic */
    uint16_t opcode;
    uint32_t mods;  /* XM_* bits */
    uint32_t aux;   /* family-specific: comparison op, atomic op, shuffle mode, ... */
    uint32_t aux2;  /* family-specific */
    int32_t guard;  /* predicate index, or -1 */
    uint32_t guard_xor; /* 0, or all ones for @!%p */
    int64_t imm;    /* address offset, literal, ... */
    uint32_t target;  /* branches: target pc; calls: callee function index */
    uint32_t reconv;  /* branches: reconvergence pc */
    uint32_t func;    /* index of the function the instruction belongs to */
    const mb_insn *src; /* for fault reports and observers */
} xinsn;

/* ------------------------------------------------------------ functions */

/* Per-thread frame of a function, on the thread's stack:
 *   [params][rets][body .param variables][.local variables]  (16-byte aligned)
 * Kernel parameters are not in the frame: they live in the launch's
 * parameter buffer, read by ld.param from the kernel directly. */
typedef struct exec_func {
    const mb_function *fn;
    uint32_t entry_pc;     /* pc of the first instruction */
    uint32_t exit_pc;      /* pc of the function's exit pseudo-instruction */
    uint32_t frame_bytes;
    uint32_t *param_offset; /* frame offsets of params (fn->nparams) */
    uint32_t *ret_offset;   /* frame offsets of rets (fn->nrets) */
    uint32_t *var_offset;   /* per fn->vars entry: frame offset (.local/.param) or shared offset (.shared) */
    uint32_t regfile_words; /* words of register file one activation needs */
    uint32_t npreds;        /* predicates of one activation (including the two constants) */
    xref *reg_ref;          /* per register: a REG word offset, or a PRED index */
} exec_func;

/* ------------------------------------------------------------ program */

/* Special registers materialised per warp: their word offsets in the
 * register file (0 when the kernel does not use them). */
typedef enum exec_sreg_slot {
    SS_TID_X, SS_TID_Y, SS_TID_Z,
    SS_NTID_X, SS_NTID_Y, SS_NTID_Z,
    SS_CTAID_X, SS_CTAID_Y, SS_CTAID_Z,
    SS_NCTAID_X, SS_NCTAID_Y, SS_NCTAID_Z,
    SS_LANEID, SS_WARPID, SS_NWARPID, SS_SMID, SS_NSMID, SS_GRIDID,
    SS_LANEMASK_EQ, SS_LANEMASK_LE, SS_LANEMASK_LT, SS_LANEMASK_GE, SS_LANEMASK_GT,
    SS_TOTAL_SMEM, SS_DYNAMIC_SMEM, SS_AGGR_SMEM,
    SS_COUNT
} exec_sreg_slot;

/* Call information of a call instruction (xinsn.aux indexes program.calls). */
typedef struct exec_call_info {
    uint32_t nargs, nrets;
    uint32_t *arg_off;  /* caller frame offsets of the argument .param variables */
    uint32_t *arg_size;
    uint32_t *ret_off;  /* caller frame offsets of the return .param variables */
    uint32_t *ret_size;
    int indirect;       /* callee address in op[0] (a 64-bit register) */
} exec_call_info;

/* What the profiler learns about the program's functions before any launch
 * (prof_analysis.c): kept with the program and freed with it. */
typedef struct prof_analysis prof_analysis;
void prof_analysis_free(prof_analysis *a);

struct mb_program {
    const mb_module *module;
    mb_memory *mem;
    xinsn *code;       /* all functions' instructions plus one exit pseudo-instruction each */
    uint32_t ncode;
    exec_func *funcs;  /* one per module function (those without a body have entry_pc == UINT32_MAX) */
    uint32_t nfuncs;
    uint32_t *pool;    /* constant pool: lane arrays of immediates */
    uint32_t npool;
    uint64_t *var_addr;  /* per module variable: device address (.global/.const), shared offset (.shared) */
    uint32_t static_shared_bytes; /* all static .shared variables (module and function level) */
    uint32_t sreg_used;     /* bit per exec_sreg_slot the code reads */
    uint32_t stack_bytes_static; /* deepest non-recursive chain of frames; 0 if recursive */
    int recursive;
    exec_call_info *calls;
    uint32_t ncalls;
    size_t cap_calls;
    prof_analysis *analysis; /* the profiler's, built by the program's first profiles */
};

/* Predicate indices 0 and 1 of every frame are the constants false and true. */
enum { PRED_FALSE = 0, PRED_TRUE = 1, PRED_FIRST = 2 };

/* ------------------------------------------------------------- runtime */

enum { SIMT_MAX_DEPTH = 1024 };

typedef struct simt_entry {
    uint32_t pc;
    uint32_t rpc;   /* reconvergence pc; the entry pops when pc reaches it */
    uint32_t mask;
    uint32_t frame; /* 0: a branch entry; else the call depth + 1 of a call frame entry */
} simt_entry;

/* A function activation of a warp. */
typedef struct exec_frame {
    uint32_t func;        /* exec_func index */
    uint32_t regs_off;    /* word offset of its registers in regstack */
    uint32_t preds_off;   /* index of its predicates in predstack */
    const struct xinsn *call; /* the call instruction that made it (NULL for the kernel) */
} exec_frame;

typedef struct exec_fault {
    int set;
    char msg[900];
    const xinsn *x;
    uint32_t lane;
} exec_fault;

struct exec_cta;

typedef struct exec_warp {
    uint32_t *base[4];      /* indexed by xref kind: frame registers, sregs, pool, frame predicates */
    uint32_t *preds;        /* == base[3]: predicate masks of the current frame */
    uint32_t *regstack;     /* all frames' registers; base[0] points into it */
    uint32_t regstack_words;
    uint32_t *predstack;
    uint32_t predstack_count;
    uint32_t sregs[SS_COUNT * 32];
    const xinsn *code;
    struct exec_cta *cta;
    uint32_t pc;
    uint32_t active;        /* mask of the top SIMT entry */
    uint32_t live;          /* lanes that have not exited */
    uint32_t index;         /* warp index within the CTA */
    simt_entry *stack;
    uint32_t depth;
    uint32_t call_depth;
    uint32_t sp[32];        /* per-lane local-space offset of the current frame */
    uint8_t *local;         /* local memory: lane l owns [local + l*local_bytes, +local_bytes) */
    uint32_t local_bytes;
    uint32_t carry[32];     /* per-lane carry flag of add.cc/addc/sub.cc/subc/mad.cc/madc */
    struct exec_frame *frames; /* call frames, frames[0] is the kernel */
    uint32_t frames_cap;
    uint32_t func;          /* function of the current frame */
    uint64_t addrs[32];     /* last memory instruction: per-lane address (for observers) */
    uint32_t access_bytes;
    uint8_t access_space;
    uint32_t taken;         /* last branch: lanes that took it */
    uint64_t warp_insts;
    uint64_t thread_insts;
    uint64_t seg_insts;     /* instructions since `active` last changed (thread_insts is settled lazily) */
    int at_barrier;         /* waiting at barrier (id + 1), or 0 */
    uint32_t barrier_count; /* threads the barrier waits for (0: all threads of the CTA) */
    uint8_t bar_red;        /* bar.red waiting: 0 none, 1 popc, 2 and, 3 or */
    uint32_t bar_red_in;    /* lanes whose predicate was true */
    xref bar_red_dest;      /* destination register (REG) or predicate (PRED) */
    int done;
} exec_warp;

/* Barrier arrival (exec_run.c), for the bar/barrier handlers of exec_warp.c:
 * the warp arrives at barrier `id` expecting `count` threads (0: all) and,
 * unless `wait` is 0 (bar.arrive), stops until the barrier releases. */
exec_result exec_barrier_arrive(exec_warp *w, const xinsn *x, uint32_t id, uint32_t count, int wait);

/* Settles the lazily counted thread instructions before `active` changes. */
static inline void exec_settle_active(exec_warp *w)
{
    w->thread_insts += w->seg_insts * (uint64_t)mb_popcount32(w->active);
    w->seg_insts = 0;
}

typedef struct exec_barrier {
    uint32_t arrived;       /* threads arrived (warps count 32, as on hardware) */
    uint32_t expected;      /* 0: all threads of the CTA that have not exited */
    uint32_t red_popc;      /* bar.red accumulators over the arrived threads */
    uint32_t red_and, red_or;
} exec_barrier;


typedef struct exec_cta {
    const mb_program *prog;
    mb_memory *mem;
    const mb_launch_config *cfg;
    mb_dim3 ctaid;
    uint32_t nthreads;
    uint32_t nwarps;
    exec_warp *warps;
    uint8_t *shared;        /* static + dynamic shared memory */
    uint32_t shared_bytes;
    exec_barrier barriers[16];
    exec_fault fault;
    const mb_observer *observer;
    const uint8_t *observe; /* per pc: deliver the event (mb_launch with an observer), else NULL */
    int record_addrs;       /* memory handlers record per-lane addresses (observers, stepping) */
    uint64_t budget;        /* warp instructions left before the budget fault (UINT64_MAX: none) */
    /* one-entry cache of the last global allocation touched */
    uint64_t cache_base, cache_size;
    uint8_t *cache_host;
} exec_cta;

/* ---------------------------------------------------------- lane access */

static inline uint32_t *xr32(exec_warp *w, xref r)
{
    return w->base[r >> 30] + XREF_INDEX(r);
}

/* The predicate mask named by `r` (a PRED reference). */
static inline uint32_t xpred(const exec_warp *w, xref r)
{
    return w->preds[XREF_INDEX(r)];
}

static inline uint64_t *xr64(exec_warp *w, xref r)
{
    return (uint64_t *)xr32(w, r);
}

static inline float *xrf(exec_warp *w, xref r)
{
    return (float *)xr32(w, r);
}

static inline double *xrd(exec_warp *w, xref r)
{
    return (double *)xr32(w, r);
}

/* Iterates lanes `l` of `mask`: the full-warp case is a plain loop,
 * otherwise only the set bits are visited. gcc 12 at -O2 vectorises the
 * plain loop only when the destination cannot alias a source; handlers that
 * need it compute into a local array and copy it out (see exec_int.c). */
#define FOR_LANES(mask, l, body)                                                                   \
    do {                                                                                           \
        if ((mask) == 0xFFFFFFFFu) {                                                               \
            for (int l = 0; l < 32; l++) {                                                         \
                body;                                                                              \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t mm_ = (mask); mm_; mm_ &= mm_ - 1) {                                     \
                int l = __builtin_ctz(mm_);                                                        \
                body;                                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------- decoding */

/* What a family decoder gets: the instruction, its function, and helpers
 * to turn operands into references. */
typedef struct decode_ctx {
    mb_program *prog;
    const mb_module *module;
    const mb_function *fn;
    uint32_t func;           /* function index */
    const exec_func *ef;
    const mb_cfg *cfg;
    mb_error *err;
    struct pool_builder *pool; /* owned by exec_decode.c */
} decode_ctx;

/* Reference to operand `o` read or written as `type` (immediates are
 * converted to that type and pooled; 64-bit types need 64-bit registers).
 * The `!` of a negated predicate (MB_OPND_NOT) is not part of the reference:
 * families that accept !%p read o->flags themselves.
 * Fails with MB_ERR_UNSUPPORTED naming the PTX line for operand forms the
 * executor cannot read that way. */
mb_status decode_operand(decode_ctx *dc, const mb_insn *insn, const mb_operand *o,
                         mb_ptx_type type, xref *out);
/* Pools a constant lane array (32 copies of a 32- or 64-bit value). */
mb_status decode_const(decode_ctx *dc, uint64_t value, int is64, xref *out);
/* Reports an unsupported instruction form at the instruction's line. */
mb_status decode_unsupported(decode_ctx *dc, const mb_insn *insn, const char *what);
/* Fills mods/round from the suffixes common to arithmetic. */
void decode_common_mods(const mb_insn *insn, xinsn *x);

/* Family decoders: each fills `x` (fn, ops, type, ...) for the opcodes it
 * owns and returns MB_OK, or MB_ERR_UNSUPPORTED through decode_unsupported. */
mb_status decode_int(decode_ctx *dc, const mb_insn *insn, xinsn *x);     /* exec_int.c */
mb_status decode_float(decode_ctx *dc, const mb_insn *insn, xinsn *x);   /* exec_float.c */
mb_status decode_cvt(decode_ctx *dc, const mb_insn *insn, xinsn *x);     /* exec_cvt.c */
mb_status decode_mem(decode_ctx *dc, const mb_insn *insn, xinsn *x);     /* exec_mem.c */
mb_status decode_tex(decode_ctx *dc, const mb_insn *insn, xinsn *x);     /* exec_tex.c */
mb_status decode_warp(decode_ctx *dc, const mb_insn *insn, xinsn *x);    /* exec_warp.c */
mb_status decode_control(decode_ctx *dc, const mb_insn *insn, xinsn *x); /* exec_control.c */

/* The control family's branch helpers, used by the run loop (exec_run.c). */
/* Sends lanes `taken` to `target` and the other active lanes on, reconverging at `reconv`. */
exec_result exec_branch(exec_warp *w, uint32_t taken, uint32_t target, uint32_t reconv);
exec_result exec_call(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t callee);
exec_result exec_exit_lanes(exec_warp *w, uint32_t lanes);
exec_result exec_function_exit(exec_warp *w, const xinsn *x, uint32_t mask);

/* Register width in bits of register operand `o` (0 for predicates). */
unsigned decode_reg_bits(const decode_ctx *dc, const mb_operand *o);

/* Device address given to function `f` so that function pointers work. */
#define MB_FUNC_ADDR_BASE UINT64_C(0x600000000000)
#define MB_FUNC_ADDR_STRIDE 256u

/* Which family owns an opcode (exec_decode.c). */
typedef enum exec_family { FAM_INT, FAM_FLOAT, FAM_CVT, FAM_MEM, FAM_WARP, FAM_CONTROL, FAM_NONE } exec_family;
exec_family exec_family_of(const mb_insn *insn);

/* -------------------------------------------------------------- faults */

/* Fills the CTA's fault record for `lane` of warp `w` at instruction `x`:
 * "kernel K, block (x,y,z), thread (x,y,z): <message>". Returns EXEC_FAULT. */
exec_result exec_fault_at(exec_warp *w, const xinsn *x, int lane, const char *fmt, ...)
    MB_PRINTF(4, 5);

/* ------------------------------------------------------- memory access */

/* Resolves the address of `lane` for an access of `bytes` in `space`
 * (MB_SPACE_NONE: generic) and returns a host pointer, or NULL after filling
 * the fault (out of bounds, misaligned, unmapped). Also records the address
 * for observers. */
uint8_t *exec_translate(exec_warp *w, const xinsn *x, int lane, uint64_t addr, uint32_t bytes,
                        mb_space space, int is_store);

/* Texture objects bound to a memory (exec_tex.c); the memory owns the table. */
typedef struct exec_tex_table exec_tex_table;
exec_tex_table **exec_memory_tex_slot(mb_memory *mem); /* exec_memory.c */
void exec_tex_table_free(exec_tex_table *t);

/* Global memory lookup used by exec_translate (exec_memory.c). */
uint8_t *exec_memory_lookup(mb_memory *mem, uint64_t addr, uint64_t bytes, uint64_t *base,
                            uint64_t *size, uint8_t **host_base);

/* ------------------------------------------- launches and CTAs (exec_run.c) */

/* The pieces of exec_run.c that the stepping API (exec_step.c) shares with
 * mb_launch(): launch checks and sizes, CTA workspaces, warp start, the
 * reconvergence step, barrier release and fault reports. */
mb_status exec_check_launch(const mb_program *prog, const mb_launch_config *cfg, mb_error *err);
/* Shared bytes per CTA and local (stack) bytes per thread of a launch. */
void exec_launch_sizes(const mb_program *prog, const mb_launch_config *cfg,
                       const mb_exec_options *opt, uint32_t *shared_bytes, uint32_t *local_bytes);
/* Allocates a CTA workspace (warps, shared and local memory); 0 when out of host memory
 * (exec_cta_free() releases what was allocated). */
int exec_cta_alloc(exec_cta *cta, mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                   const mb_observer *observer, uint32_t shared_bytes, uint32_t local_bytes);
void exec_cta_free(exec_cta *cta);
/* Starts CTA `ctaid` in an allocated workspace: clears shared memory and barriers, starts warps. */
exec_result exec_cta_begin(exec_cta *cta, mb_dim3 ctaid);
int exec_warp_start(exec_warp *w, exec_cta *cta, uint32_t index);
void exec_warp_free(exec_warp *w);
/* Pops the SIMT stack while the pc sits at the top entry's reconvergence point. */
void exec_reconverge(exec_warp *w);
/* Releases every barrier whose count is met; returns how many warps resumed. */
uint32_t exec_release_barriers(exec_cta *cta);
/* Fills the CTA's fault with a barrier deadlock report; returns EXEC_FAULT. */
exec_result exec_barrier_deadlock(exec_cta *cta);
/* Calls the CTA's observer for instruction `x` just executed by `w`. */
void exec_observe(exec_warp *w, const xinsn *x, uint32_t active, uint32_t mask);
/* Turns a fault record into the launch's error (PTX file:line, source line when known). */
mb_status exec_fault_error(const mb_program *prog, const exec_fault *fault, mb_error *err);

#endif

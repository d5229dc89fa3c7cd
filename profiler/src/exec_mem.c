/* The memory instruction family: ld, ldu, st, atom, red, cvta, isspacep,
 * prefetch, prefetchu, membar, fence, applypriority, discard.
 *
 * Operand layout in xinsn.op (PTX order, vectors expanded in place):
 *   ld/ldu   op[0..vec-1] destinations (XREF_NONE for '_'), op[vec] address base
 *   st       op[0] address base, op[1..vec] sources
 *   atom     op[0] destination, op[1] address base, op[2] b, op[3] c (cas)
 *   red      op[0] XREF_NONE (no destination), op[1] address base, op[2] b
 *   cvta     op[0] destination, op[1] source
 *   isspacep op[0] destination predicate, op[1] address
 * xinsn.target holds the index of the address base in op[], xinsn.aux the
 * addressing mode (AM_*), xinsn.imm the address offset (or the absolute
 * address), xinsn.space the state space the access is translated in and
 * xinsn.aux2 a family-specific word (ld: the mask of narrow destination
 * registers; atom: ATOM_PLAIN).
 *
 * Addresses
 * ---------
 * Every access goes through the translation of exec_memory.c: the handlers
 * below inline exactly the hit paths of exec_translate (an aligned access
 * inside the cached global allocation, inside the CTA's shared memory, or
 * inside the lane's local memory, recording the address for observers the
 * same way) and call exec_translate for everything else, so bounds,
 * alignment and fault messages are those of exec_translate (plus a "NULL
 * pointer" report for global and generic addresses below 64 KiB). A whole
 * warp instruction is checked before any lane touches memory, so a
 * faulting store writes nothing.
 *
 * Speed: scalar ld/st of the common widths through a register or a frame
 * symbol have fused handlers (hf_*): one branch-free, vectorisable pass
 * checks that all lanes fall, aligned, into one linearly mapped range, then
 * one loop moves the data; any other outcome reruns the instruction through
 * the general handler, which resolves lane by lane. On a miss of the
 * one-entry allocation cache the first lane's allocation is looked up and
 * cached once for the warp, so kernels alternating between buffers pay one
 * lookup per warp instruction rather than one per lane.
 *
 * State spaces as the executor models them:
 *   - .global and .const: device addresses (module .const variables are
 *     allocated in global memory); generic addresses of global memory are
 *     the device addresses themselves.
 *   - .shared: offsets in the CTA's shared memory; generic shared addresses
 *     are MB_SHARED_WINDOW + offset.
 *   - .local: offsets in the thread's local memory (its stack); generic
 *     local addresses are MB_LOCAL_WINDOW + offset. Frame objects (.local
 *     variables, .param variables declared in a body, and a .func's own
 *     parameters and return values) live in the thread's current frame at
 *     w->sp[lane] + the frame offset computed by exec_decode.c.
 *   - .param of a kernel: the launch's parameter buffer (read only); a
 *     register used as a kernel .param address holds an offset into it. In
 *     a .func, a register used as a .param address is a local offset.
 *
 * Lanes are processed in ascending order: when several lanes store to one
 * address the highest lane's value remains, and atomics of a warp are
 * applied in lane order. Global atomics use the __atomic builtins so that
 * CTAs running on several host threads at once update memory exactly.
 */
#include "exec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

/* Addressing modes (xinsn.aux for memory accesses). */
enum {
    AM_REG64, /* 64-bit register + imm */
    AM_REG32, /* 32-bit register + imm, wrapping at 32 bits */
    AM_ABS,   /* imm (a symbol's address or an immediate address) */
    AM_FRAME  /* w->sp[lane] + imm, in local memory */
};

/* xinsn.aux2 bit of atomics on .shared: no other host thread can see the
 * CTA's shared memory, so plain read-modify-write is enough. */
enum { ATOM_PLAIN = 1 };

/* Generic addresses below this are reported as NULL pointer accesses. */
#define NULL_PAGE UINT64_C(0x10000)

/* FOR_LANES with the full-warp loop unrolled (the data loops of loads and
 * stores are gathers and scatters the compiler cannot vectorise). */
#define LANES(mask, l, body)                                                                       \
    do {                                                                                           \
        if ((mask) == 0xFFFFFFFFu) {                                                               \
            _Pragma("GCC unroll 4") for (int l = 0; l < 32; l++) { body; }                         \
        } else {                                                                                   \
            for (uint32_t mm_ = (mask); mm_; mm_ &= mm_ - 1) {                                     \
                int l = __builtin_ctz(mm_);                                                        \
                body;                                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* ---------------------------------------------------------- translation */

static const char *space_word(mb_space s)
{
    switch (s) {
    case MB_SPACE_GLOBAL: return "global";
    case MB_SPACE_SHARED: return "shared";
    case MB_SPACE_LOCAL: return "local";
    case MB_SPACE_CONST: return "const";
    case MB_SPACE_PARAM: return "param";
    default: return "generic";
    }
}

/* Everything the inline paths do not resolve: exec_translate, plus a
 * clearer report for accesses through a NULL (or nearly NULL) pointer. */
static NOINLINE uint8_t *xlate_slow(exec_warp *w, const xinsn *x, int lane, uint64_t addr,
                                    uint32_t bytes, mb_space space, int is_store)
{
    if (addr < NULL_PAGE &&
        (space == MB_SPACE_NONE || space == MB_SPACE_GLOBAL || space == MB_SPACE_CONST)) {
        w->addrs[lane] = addr;
        w->access_bytes = bytes;
        w->access_space = (uint8_t)(space == MB_SPACE_NONE ? MB_SPACE_GLOBAL : space);
        exec_fault_at(w, x, lane, "NULL pointer %s: %s %s of %u bytes at 0x%" PRIx64,
                      is_store ? "store" : "load", space_word(space), is_store ? "store" : "load",
                      bytes, addr);
        return NULL;
    }
    return exec_translate(w, x, lane, addr, bytes, space, is_store);
}

/* Kernel parameter buffer: `off` is an offset into the launch's parameters. */
static NOINLINE uint8_t *xlate_kparam(exec_warp *w, const xinsn *x, int lane, uint64_t off,
                                      uint32_t bytes)
{
    const mb_launch_config *cfg = w->cta->cfg;
    w->addrs[lane] = off;
    if (off & (bytes - 1)) {
        exec_fault_at(w, x, lane, "misaligned param load of %u bytes at parameter offset 0x%" PRIx64,
                      bytes, off);
        return NULL;
    }
    if (off > cfg->param_bytes || bytes > cfg->param_bytes - off) {
        exec_fault_at(w, x, lane,
                      "out-of-bounds param load of %u bytes at parameter offset 0x%" PRIx64
                      " (kernel %s has %u bytes of parameters)",
                      bytes, off, cfg->kernel->name, cfg->param_bytes);
        return NULL;
    }
    return (uint8_t *)(uintptr_t)cfg->params + off;
}

/* Where the addresses of an access come from, loaded once per warp
 * instruction so that the lane loops only read the lane arrays. */
typedef struct addr_src {
    const uint64_t *r64;
    const uint32_t *r32;
    const uint32_t *sp;
    uint64_t imm;
} addr_src;

static ALWAYS_INLINE addr_src addr_source(exec_warp *w, const xinsn *x, const int am)
{
    addr_src a;
    a.imm = (uint64_t)x->imm;
    a.r64 = am == AM_REG64 ? xr64(w, x->op[x->target]) : NULL;
    a.r32 = am == AM_REG32 ? xr32(w, x->op[x->target]) : NULL;
    a.sp = w->sp;
    return a;
}

/* The address of lane `l` by addressing mode (am is a constant). */
static ALWAYS_INLINE uint64_t lane_addr(const addr_src *a, int l, const int am)
{
    if (am == AM_REG64)
        return a->r64[l] + a->imm;
    if (am == AM_REG32)
        return (uint32_t)(a->r32[l] + (uint32_t)a->imm);
    if (am == AM_ABS)
        return a->imm;
    return a->sp[l] + a->imm;
}

#define HIGH_BIT (UINT64_C(1) << 63)

/* The whole-warp fast path of one space: every lane's offset OFF (from its
 * address `ad`) must be aligned and lie in [0, LIM] (LIM = size - bytes, so
 * the access fits). The test is branch-free so that the loop vectorises:
 * with LIM < 2^63, off <= LIM exactly when neither off nor LIM - off has
 * its top bit set. Host pointers go to p[] (meaningful only on success). */
#define FAST_PASS(LIM, OFF, PTR, REC)                                                              \
    do {                                                                                           \
        const uint64_t lim_ = (LIM);                                                               \
        uint64_t bad_ = lim_ >= HIGH_BIT;                                                          \
        FOR_LANES(mask, l, {                                                                       \
            const uint64_t ad = lane_addr(&src, l, am);                                            \
            const uint64_t off = (OFF);                                                            \
            bad_ |= (ad & amask) | ((off | (lim_ - off)) & HIGH_BIT);                              \
            p[l] = (uint8_t *)(PTR);                                                               \
        });                                                                                        \
        if (LIKELY(!bad_)) {                                                                       \
            if (UNLIKELY(cta->record_addrs))                                                       \
                FOR_LANES(mask, l, {                                                               \
                    const uint64_t ad = lane_addr(&src, l, am);                                    \
                    w->addrs[l] = (REC);                                                           \
                });                                                                                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Host pointers of the lanes of `mask` for an access of `bytes` (a power
 * of two: the whole vector) in space `sp`; 0 after filling the fault. The
 * fast passes cover warps whose lanes all hit the cached global allocation,
 * shared memory, or local memory; anything else is resolved lane by lane
 * (exec_translate for what the inline paths do not cover). */
static ALWAYS_INLINE int xlate_t(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t bytes,
                                 int is_store, uint8_t **restrict p, const int am,
                                 const mb_space sp)
{
    exec_cta *cta = w->cta;
    const uint64_t amask = bytes - 1;
    const addr_src src = addr_source(w, x, am);
    w->access_bytes = bytes;
#define GLOBAL_PASS()                                                                              \
    do {                                                                                           \
        const uint64_t cb_ = cta->cache_base, cs_ = cta->cache_size;                               \
        const uintptr_t ch_ = (uintptr_t)cta->cache_host;                                          \
        if (cs_ >= bytes)                                                                          \
            FAST_PASS(cs_ - bytes, ad - cb_, ch_ + off, ad);                                           \
    } while (0)
    const uint64_t a0 = lane_addr(&src, __builtin_ctz(mask), am);
    if (sp == MB_SPACE_GLOBAL || sp == MB_SPACE_CONST || sp == MB_SPACE_NONE) {
        w->access_space = (uint8_t)(sp == MB_SPACE_NONE ? MB_SPACE_GLOBAL : sp);
        GLOBAL_PASS();
        /* A miss: make the first lane's allocation the cached one (as
         * exec_translate would) and try again, so that kernels alternating
         * between buffers pay one lookup per warp instruction. */
        if (a0 - cta->cache_base >= cta->cache_size &&
            (sp != MB_SPACE_NONE || (a0 - MB_SHARED_WINDOW >= MB_WINDOW_SIZE &&
                                     a0 - MB_LOCAL_WINDOW >= MB_WINDOW_SIZE))) {
            uint64_t base, size;
            uint8_t *host;
            if (exec_memory_lookup(cta->mem, a0, bytes, &base, &size, &host)) {
                cta->cache_base = base;
                cta->cache_size = size;
                cta->cache_host = host;
                GLOBAL_PASS();
            }
        }
    }
#undef GLOBAL_PASS
    if (sp == MB_SPACE_NONE) {
        /* generic: a warp entirely in the shared or the local window */
        if (a0 - MB_SHARED_WINDOW < MB_WINDOW_SIZE && cta->shared_bytes >= bytes) {
            const uintptr_t sh = (uintptr_t)cta->shared;
            w->access_space = MB_SPACE_SHARED;
            FAST_PASS(cta->shared_bytes - bytes, ad - MB_SHARED_WINDOW, sh + off, ad - MB_SHARED_WINDOW);
        } else if (a0 - MB_LOCAL_WINDOW < MB_WINDOW_SIZE && w->local_bytes >= bytes) {
            const uintptr_t lo = (uintptr_t)w->local;
            const uint64_t lb = w->local_bytes;
            w->access_space = MB_SPACE_LOCAL;
            FAST_PASS(lb - bytes, ad - MB_LOCAL_WINDOW, lo + (uint64_t)l * lb + off, ad - MB_LOCAL_WINDOW);
        }
    } else if (sp == MB_SPACE_SHARED) {
        const uintptr_t sh = (uintptr_t)cta->shared;
        w->access_space = MB_SPACE_SHARED;
        if (cta->shared_bytes >= bytes)
            FAST_PASS(cta->shared_bytes - bytes, ad, sh + off, ad);
    } else if (sp == MB_SPACE_LOCAL) {
        const uintptr_t lo = (uintptr_t)w->local;
        const uint64_t lb = w->local_bytes;
        w->access_space = MB_SPACE_LOCAL;
        if (lb >= bytes)
            FAST_PASS(lb - bytes, ad, lo + (uint64_t)l * lb + off, ad);
    } else if (sp == MB_SPACE_PARAM) {
        w->access_space = MB_SPACE_PARAM;
        FOR_LANES(mask, l, {
            p[l] = xlate_kparam(w, x, l, lane_addr(&src, l, am), bytes);
            if (!p[l])
                return 0;
        });
        return 1;
    }
    /* lane by lane */
    if (sp == MB_SPACE_NONE) {
        const uint64_t sb = cta->shared_bytes, lb = w->local_bytes;
        FOR_LANES(mask, l, {
            const uint64_t ad = lane_addr(&src, l, am);
            const uint64_t d = ad - cta->cache_base;
            const uint64_t so = ad - MB_SHARED_WINDOW;
            const uint64_t lo = ad - MB_LOCAL_WINDOW;
            if (ad & amask) {
                p[l] = NULL;
            } else if (d < cta->cache_size && bytes <= cta->cache_size - d) {
                w->addrs[l] = ad;
                w->access_space = MB_SPACE_GLOBAL;
                p[l] = cta->cache_host + d;
            } else if (so < sb && bytes <= sb - so) {
                w->addrs[l] = so;
                w->access_space = MB_SPACE_SHARED;
                p[l] = cta->shared + so;
            } else if (lo < lb && bytes <= lb - lo) {
                w->addrs[l] = lo;
                w->access_space = MB_SPACE_LOCAL;
                p[l] = w->local + (size_t)l * lb + lo;
            } else {
                p[l] = NULL;
            }
            if (!p[l]) {
                p[l] = xlate_slow(w, x, l, ad, bytes, MB_SPACE_NONE, is_store);
                if (!p[l])
                    return 0;
            }
        });
        return 1;
    }
    FOR_LANES(mask, l, {
        const uint64_t ad = lane_addr(&src, l, am);
        p[l] = xlate_slow(w, x, l, ad, bytes, sp, is_store);
        if (!p[l])
            return 0;
    });
    return 1;
}

#define XLATE_SPACES(am)                                                                           \
    switch ((mb_space)x->space) {                                                                  \
    case MB_SPACE_GLOBAL: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_GLOBAL);     \
    case MB_SPACE_CONST: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_CONST);       \
    case MB_SPACE_SHARED: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_SHARED);     \
    case MB_SPACE_LOCAL: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_LOCAL);       \
    case MB_SPACE_PARAM: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_PARAM);       \
    default: return xlate_t(w, x, mask, bytes, is_store, p, am, MB_SPACE_NONE);                    \
    }

/* Translation of any addressing mode and space (specialised loops). */
static int xlate(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t bytes, int is_store,
                 uint8_t **restrict p)
{
    switch (x->aux) {
    case AM_REG64: XLATE_SPACES(AM_REG64)
    case AM_REG32: XLATE_SPACES(AM_REG32)
    case AM_ABS: XLATE_SPACES(AM_ABS)
    default: XLATE_SPACES(AM_FRAME)
    }
}

/* A memory instruction with no lane executing. */
static exec_result mem_idle(exec_warp *w)
{
    w->access_bytes = 0;
    return EXEC_NEXT;
}

/* ------------------------------------------------------------ ld / st */

/* Loads of MT from memory into lane arrays of RT, converted by CONV (of
 * `v`; `m` is the mask of the destination register's width). */
#define DEF_LD(name, RT, MT, CONV)                                                                 \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uint8_t *p[32];                                                                            \
        if (!mask)                                                                                 \
            return mem_idle(w);                                                                    \
        if (!xlate(w, x, mask, (uint32_t)sizeof(MT) * x->vec, 0, p))                               \
            return EXEC_FAULT;                                                                     \
        const uint32_t m = x->aux2;                                                                \
        (void)m;                                                                                   \
        for (unsigned e = 0; e < x->vec; e++) {                                                    \
            if (x->op[e] == XREF_NONE)                                                             \
                continue;                                                                          \
            RT *d = (RT *)(void *)xr32(w, x->op[e]);                                               \
            const size_t o = e * sizeof(MT);                                                       \
            LANES(mask, l, {                                                                       \
                MT v;                                                                              \
                memcpy(&v, p[l] + o, sizeof(v));                                                   \
                d[l] = (CONV);                                                                     \
            });                                                                                    \
        }                                                                                          \
        return EXEC_NEXT;                                                                          \
    }

DEF_LD(h_ld_w32_u8, uint32_t, uint8_t, (uint32_t)v)
DEF_LD(h_ld_w32_s8, uint32_t, uint8_t, (uint32_t)(int32_t)(int8_t)v & m)
DEF_LD(h_ld_w32_u16, uint32_t, uint16_t, (uint32_t)v)
DEF_LD(h_ld_w32_s16, uint32_t, uint16_t, (uint32_t)(int32_t)(int16_t)v & m)
DEF_LD(h_ld_w32_32, uint32_t, uint32_t, v)
DEF_LD(h_ld_w64_u8, uint64_t, uint8_t, (uint64_t)v)
DEF_LD(h_ld_w64_s8, uint64_t, uint8_t, (uint64_t)(int64_t)(int8_t)v)
DEF_LD(h_ld_w64_u16, uint64_t, uint16_t, (uint64_t)v)
DEF_LD(h_ld_w64_s16, uint64_t, uint16_t, (uint64_t)(int64_t)(int16_t)v)
DEF_LD(h_ld_w64_u32, uint64_t, uint32_t, (uint64_t)v)
DEF_LD(h_ld_w64_s32, uint64_t, uint32_t, (uint64_t)(int64_t)(int32_t)v)
DEF_LD(h_ld_w64_64, uint64_t, uint64_t, v)

/* 128-bit loads: a .b128 register is 32 pairs of uint64_t (low half first). */
static exec_result h_ld_128(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint8_t *p[32];
    if (!mask)
        return mem_idle(w);
    if (!xlate(w, x, mask, 16u * x->vec, 0, p))
        return EXEC_FAULT;
    for (unsigned e = 0; e < x->vec; e++) {
        if (x->op[e] == XREF_NONE)
            continue;
        uint64_t *d = xr64(w, x->op[e]);
        const size_t o = e * 16;
        FOR_LANES(mask, l, memcpy(&d[2 * l], p[l] + o, 16));
    }
    return EXEC_NEXT;
}

/* Kernel parameters read at a constant offset: one read, broadcast. */
#define DEF_LDK(name, T, XR)                                                                       \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        T v;                                                                                       \
        const uint64_t off = (uint64_t)x->imm;                                                     \
        memcpy(&v, (const uint8_t *)w->cta->cfg->params + off, sizeof v);                          \
        T *d = XR(w, x->op[0]);                                                                    \
        w->access_bytes = sizeof v;                                                                \
        w->access_space = MB_SPACE_PARAM;                                                          \
        FOR_LANES(mask, l, {                                                                       \
            d[l] = v;                                                                              \
            w->addrs[l] = off;                                                                     \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }
DEF_LDK(h_ldk_32, uint32_t, xr32)
DEF_LDK(h_ldk_64, uint64_t, xr64)

/* Stores of the low sizeof(MT) bytes of lane arrays of RT. */
#define DEF_ST(name, RT, MT)                                                                       \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uint8_t *p[32];                                                                            \
        if (!mask)                                                                                 \
            return mem_idle(w);                                                                    \
        if (!xlate(w, x, mask, (uint32_t)sizeof(MT) * x->vec, 1, p))                               \
            return EXEC_FAULT;                                                                     \
        for (unsigned e = 0; e < x->vec; e++) {                                                    \
            const RT *s = (const RT *)(const void *)xr32(w, x->op[1 + e]);                         \
            const size_t o = e * sizeof(MT);                                                       \
            LANES(mask, l, {                                                                       \
                MT v = (MT)s[l];                                                                   \
                memcpy(p[l] + o, &v, sizeof(v));                                                   \
            });                                                                                    \
        }                                                                                          \
        return EXEC_NEXT;                                                                          \
    }

DEF_ST(h_st_w32_8, uint32_t, uint8_t)
DEF_ST(h_st_w32_16, uint32_t, uint16_t)
DEF_ST(h_st_w32_32, uint32_t, uint32_t)
DEF_ST(h_st_w64_8, uint64_t, uint8_t)
DEF_ST(h_st_w64_16, uint64_t, uint16_t)
DEF_ST(h_st_w64_32, uint64_t, uint32_t)
DEF_ST(h_st_w64_64, uint64_t, uint64_t)

/* ------------------------------------------------ fused scalar accesses */

/* The common scalar loads and stores in one pass over the lanes. First a
 * store-free, branch-free (vectorisable) check that every lane's access is
 * aligned and inside one linearly mapped range: the cached global
 * allocation, the CTA's shared memory, or local memory (where lane l's
 * range starts l * local_bytes further). Then the host address of lane l is
 * its address + delta + l * stride, and the data moves in a single loop.
 * When the check fails the general handler runs the instruction (it
 * resolves lane by lane and reports faults), so nothing was written. */
static ALWAYS_INLINE int fast_linear(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t bytes,
                                     const int am, const mb_space sp, uintptr_t *delta,
                                     uint64_t *stride)
{
    exec_cta *cta = w->cta;
    const addr_src src = addr_source(w, x, am);
    const uint64_t amask = bytes - 1;
    const uint64_t a0 = lane_addr(&src, __builtin_ctz(mask), am);
    for (int attempt = 0; attempt < 2; attempt++) {
        uint64_t base, size;
        uintptr_t host;
        mb_space resolved = sp;
        if (sp == MB_SPACE_NONE) /* generic: the window of the first lane */
            resolved = a0 - MB_SHARED_WINDOW < MB_WINDOW_SIZE  ? MB_SPACE_SHARED
                       : a0 - MB_LOCAL_WINDOW < MB_WINDOW_SIZE ? MB_SPACE_LOCAL
                                                               : MB_SPACE_GLOBAL;
        if (resolved == MB_SPACE_SHARED) {
            base = sp == MB_SPACE_NONE ? MB_SHARED_WINDOW : 0;
            size = cta->shared_bytes;
            host = (uintptr_t)cta->shared;
            *stride = 0;
        } else if (resolved == MB_SPACE_LOCAL) {
            base = sp == MB_SPACE_NONE ? MB_LOCAL_WINDOW : 0;
            size = w->local_bytes;
            host = (uintptr_t)w->local;
            *stride = size;
        } else { /* global or const */
            base = cta->cache_base;
            size = cta->cache_size;
            host = (uintptr_t)cta->cache_host;
            *stride = 0;
        }
        const uint64_t lim = size - bytes;
        /* off = address - base must be aligned and in [0, lim]; bases are
         * aligned (allocations to 256 bytes, windows to 4 GiB), so off's low
         * bits are the address's. OR-ing all offs and all (lim - off)s and
         * testing once keeps the loop to two subtractions and two ORs per
         * lane. */
        uint64_t acc_a = 0, acc_b = 0;
        if (am == AM_ABS) {
            acc_a = src.imm - base;
            acc_b = lim - acc_a;
        } else if (am == AM_REG64) {
            const uint64_t *r = src.r64, k1 = base - src.imm, k2 = lim + k1;
            FOR_LANES(mask, l, {
                acc_a |= r[l] - k1;
                acc_b |= k2 - r[l];
            });
        } else if (am == AM_FRAME) {
            const uint32_t *r = src.sp;
            const uint64_t k1 = base - src.imm, k2 = lim + k1;
            FOR_LANES(mask, l, {
                acc_a |= r[l] - k1;
                acc_b |= k2 - r[l];
            });
        } else {
            FOR_LANES(mask, l, {
                const uint64_t off = lane_addr(&src, l, am) - base;
                acc_a |= off;
                acc_b |= lim - off;
            });
        }
        const uint64_t bad = (size < bytes) | (lim >= HIGH_BIT) | ((acc_a | acc_b) & HIGH_BIT) |
                             (acc_a & amask);
        if (LIKELY(!bad)) {
            *delta = host - base;
            w->access_bytes = bytes;
            w->access_space = (uint8_t)resolved;
            if (UNLIKELY(cta->record_addrs)) {
                /* observers see device addresses, shared and local offsets */
                const uint64_t sub = resolved == MB_SPACE_SHARED || resolved == MB_SPACE_LOCAL ? base : 0;
                FOR_LANES(mask, l, w->addrs[l] = lane_addr(&src, l, am) - sub);
            }
            return 1;
        }
        if (resolved != MB_SPACE_GLOBAL && resolved != MB_SPACE_CONST)
            return 0;
        /* a global miss: cache the first lane's allocation and retry once */
        uint64_t nb, ns;
        uint8_t *nh;
        if (attempt || a0 - cta->cache_base < cta->cache_size ||
            !exec_memory_lookup(cta->mem, a0, bytes, &nb, &ns, &nh))
            return 0;
        cta->cache_base = nb;
        cta->cache_size = ns;
        cta->cache_host = nh;
    }
    return 0;
}

#define DEF_FAST_LD(name, am, sp, RT, MT, CONV, SLOW)                                              \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uintptr_t delta;                                                                           \
        uint64_t stride;                                                                           \
        if (UNLIKELY(!mask))                                                                       \
            return mem_idle(w);                                                                    \
        if (UNLIKELY(!fast_linear(w, x, mask, sizeof(MT), am, sp, &delta, &stride)))               \
            return SLOW(w, x, mask);                                                               \
        const addr_src src = addr_source(w, x, am);                                                \
        RT *d = (RT *)(void *)xr32(w, x->op[0]);                                                   \
        const uint32_t m = x->aux2;                                                                \
        (void)m;                                                                                   \
        LANES(mask, l, {                                                                           \
            MT v;                                                                                  \
            memcpy(&v, (const void *)(lane_addr(&src, l, am) + delta + (uint64_t)l * stride),      \
                   sizeof(v));                                                                     \
            d[l] = (CONV);                                                                         \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }

#define DEF_FAST_ST(name, am, sp, RT, MT, SLOW)                                                    \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uintptr_t delta;                                                                           \
        uint64_t stride;                                                                           \
        if (UNLIKELY(!mask))                                                                       \
            return mem_idle(w);                                                                    \
        if (UNLIKELY(!fast_linear(w, x, mask, sizeof(MT), am, sp, &delta, &stride)))               \
            return SLOW(w, x, mask);                                                               \
        const addr_src src = addr_source(w, x, am);                                                \
        const RT *s = (const RT *)(const void *)xr32(w, x->op[1]);                                 \
        LANES(mask, l, {                                                                           \
            MT v = (MT)s[l];                                                                       \
            memcpy((void *)(lane_addr(&src, l, am) + delta + (uint64_t)l * stride), &v,            \
                   sizeof(v));                                                                     \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }

/* Kinds of fused accesses: loads (RT, MT, CONV) and stores (RT, MT). */
#define FAST_LD_KINDS(X, c, am, sp)                                                                \
    X(c, am, sp, w32_u8, uint32_t, uint8_t, (uint32_t)v)                                           \
    X(c, am, sp, w32_s8, uint32_t, uint8_t, (uint32_t)(int32_t)(int8_t)v & m)                      \
    X(c, am, sp, w32_u16, uint32_t, uint16_t, (uint32_t)v)                                         \
    X(c, am, sp, w32_s16, uint32_t, uint16_t, (uint32_t)(int32_t)(int16_t)v & m)                   \
    X(c, am, sp, w32_32, uint32_t, uint32_t, v)                                                    \
    X(c, am, sp, w64_u32, uint64_t, uint32_t, (uint64_t)v)                                         \
    X(c, am, sp, w64_s32, uint64_t, uint32_t, (uint64_t)(int64_t)(int32_t)v)                       \
    X(c, am, sp, w64_64, uint64_t, uint64_t, v)
#define FAST_ST_KINDS(X, c, am, sp)                                                                \
    X(c, am, sp, w32_8, uint32_t, uint8_t)                                                         \
    X(c, am, sp, w32_16, uint32_t, uint16_t)                                                       \
    X(c, am, sp, w32_32, uint32_t, uint32_t)                                                       \
    X(c, am, sp, w64_32, uint64_t, uint32_t)                                                       \
    X(c, am, sp, w64_64, uint64_t, uint64_t)

/* Combinations of addressing mode and space with fused handlers. */
#define FAST_COMBOS(X, K)                                                                          \
    K(X, g64, AM_REG64, MB_SPACE_GLOBAL)                                                           \
    K(X, n64, AM_REG64, MB_SPACE_NONE)                                                             \
    K(X, s32, AM_REG32, MB_SPACE_SHARED)                                                           \
    K(X, s64, AM_REG64, MB_SPACE_SHARED)                                                           \
    K(X, sab, AM_ABS, MB_SPACE_SHARED)                                                             \
    K(X, l64, AM_REG64, MB_SPACE_LOCAL)                                                            \
    K(X, lfr, AM_FRAME, MB_SPACE_LOCAL)

#define MK_FAST_LD(c, am, sp, k, RT, MT, CONV) DEF_FAST_LD(hf_ld_##c##_##k, am, sp, RT, MT, CONV, h_ld_##k)
#define MK_FAST_ST(c, am, sp, k, RT, MT) DEF_FAST_ST(hf_st_##c##_##k, am, sp, RT, MT, h_st_##k)
FAST_COMBOS(MK_FAST_LD, FAST_LD_KINDS)
FAST_COMBOS(MK_FAST_ST, FAST_ST_KINDS)

/* Lookup: the fused handler for a general one, an addressing mode and a space. */
typedef struct fast_entry {
    xhandler general, fused;
    uint32_t am;
    uint8_t space;
} fast_entry;

#define FAST_ENTRY_LD(c, am, sp, k, RT, MT, CONV) {h_ld_##k, hf_ld_##c##_##k, am, sp},
#define FAST_ENTRY_ST(c, am, sp, k, RT, MT) {h_st_##k, hf_st_##c##_##k, am, sp},
static const fast_entry fast_table[] = {FAST_COMBOS(FAST_ENTRY_LD, FAST_LD_KINDS)
                                            FAST_COMBOS(FAST_ENTRY_ST, FAST_ST_KINDS)};

static xhandler fused_handler(xhandler general, uint32_t am, mb_space space)
{
    for (size_t i = 0; i < sizeof(fast_table) / sizeof(fast_table[0]); i++)
        if (fast_table[i].general == general && fast_table[i].am == am &&
            fast_table[i].space == space)
            return fast_table[i].fused;
    return general;
}

static exec_result h_st_128(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint8_t *p[32];
    if (!mask)
        return mem_idle(w);
    if (!xlate(w, x, mask, 16u * x->vec, 1, p))
        return EXEC_FAULT;
    for (unsigned e = 0; e < x->vec; e++) {
        const uint64_t *s = xr64(w, x->op[1 + e]);
        const size_t o = e * 16;
        FOR_LANES(mask, l, memcpy(p[l] + o, &s[2 * l], 16));
    }
    return EXEC_NEXT;
}

/* ------------------------------------------------------------- atomics */

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double bits_f64(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Canonical NaNs as NVIDIA GPUs produce them. */
#define F32_CANON_NAN 0x7FFFFFFFu
#define F64_CANON_NAN UINT64_C(0x7FFFFFFFFFFFFFFF)
#define F16_CANON_NAN 0x7FFFu
#define BF16_CANON_NAN 0x7FFFu

/* atom.add.f32: round to nearest even; on global memory subnormal inputs
 * and results are flushed to sign-preserving zero (PTX ISA: "current
 * implementation of atom.add.f32 on global memory flushes subnormal inputs
 * and results to sign-preserving zero; on shared memory it does not").
 * NaN results are the canonical NaN 0x7FFFFFFF. */
static uint32_t f32_ftz_bits(uint32_t u)
{
    return (u & 0x7F800000u) == 0 ? (u & 0x80000000u) : u;
}

static uint32_t add_f32(uint32_t a, uint32_t b, int ftz)
{
    if (ftz) {
        a = f32_ftz_bits(a);
        b = f32_ftz_bits(b);
    }
    float r = bits_f32(a) + bits_f32(b);
    if (r != r)
        return F32_CANON_NAN;
    uint32_t u = f32_bits(r);
    return ftz ? f32_ftz_bits(u) : u;
}

static uint64_t add_f64(uint64_t a, uint64_t b)
{
    double r = bits_f64(a) + bits_f64(b);
    return r != r ? F64_CANON_NAN : f64_bits(r);
}

/* Half precision: values convert exactly to float; a sum of two halves
 * rounded to float and then to half is correctly rounded because float has
 * at least 2p+2 bits for p = 11 (f16) and p = 8 (bf16). */
static float f16_to_f32(uint32_t h)
{
    uint32_t s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0x1F)
        return bits_f32(s | 0x7F800000u | (m << 13));
    if (e == 0) {
        float v = (float)m * 5.9604644775390625e-8f; /* m * 2^-24, exact */
        return s ? -v : v;
    }
    return bits_f32(s | ((e + 112u) << 23) | (m << 13));
}

static uint32_t f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u)
        return F16_CANON_NAN;
    if (ax >= 0x477FF000u) /* >= 65520: rounds to infinity */
        return sign | 0x7C00u;
    if (ax <= 0x33000000u) /* <= 2^-25: rounds to zero (ties to even) */
        return sign;
    if (ax < 0x38800000u) { /* below 2^-14: a subnormal half */
        uint32_t m24 = (ax & 0x7FFFFFu) | 0x800000u;
        int e = (int)(ax >> 23) - 127; /* -25 .. -15 */
        unsigned s = (unsigned)(-e - 1); /* 14 .. 24 */
        uint32_t q = m24 >> s, rem = m24 & ((1u << s) - 1), half = 1u << (s - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
        return sign | q;
    }
    uint32_t h = ((((ax >> 23) - 112u) << 10) | ((ax & 0x7FFFFFu) >> 13));
    uint32_t rem = ax & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++;
    return sign | h;
}

static uint32_t f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return BF16_CANON_NAN;
    return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}

static uint32_t add_f16(uint32_t a, uint32_t b)
{
    return f32_to_f16(f16_to_f32(a & 0xFFFFu) + f16_to_f32(b & 0xFFFFu));
}

static uint32_t add_bf16(uint32_t a, uint32_t b)
{
    return f32_to_bf16(bits_f32((a & 0xFFFFu) << 16) + bits_f32((b & 0xFFFFu) << 16));
}

static uint32_t add_f16x2(uint32_t a, uint32_t b)
{
    return add_f16(a, b) | add_f16(a >> 16, b >> 16) << 16;
}

static uint32_t add_bf16x2(uint32_t a, uint32_t b)
{
    return add_bf16(a, b) | add_bf16(a >> 16, b >> 16) << 16;
}

/* PTX inc/dec: inc(r, s) = r >= s ? 0 : r + 1; dec(r, s) = (r == 0 || r > s) ? s : r - 1 */
#define INC(o, b) ((o) >= (b) ? 0 : (o) + 1)
#define DEC(o, b) (((o) == 0 || (o) > (b)) ? (b) : (o) - 1)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* An atomic read-modify-write on MT memory with lane arrays of RT: the new
 * value is NEWV (of `o` the old value, `b` and `c` the operands, `pl` the
 * host pointer). Shared memory (ATOM_PLAIN) is only visible to the CTA's
 * host thread; anything else uses a compare-and-swap loop. */
#define DEF_ATOM_CAS(name, RT, MT, NEWV)                                                           \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uint8_t *p[32];                                                                            \
        RT sink[32];                                                                               \
        if (!mask)                                                                                 \
            return mem_idle(w);                                                                    \
        if (!xlate(w, x, mask, (uint32_t)sizeof(MT), 1, p))                                        \
            return EXEC_FAULT;                                                                     \
        const RT *bv = (const RT *)(const void *)xr32(w, x->op[2]);                                \
        const RT *cv = (const RT *)(const void *)xr32(w, x->op[3] != XREF_NONE ? x->op[3] : x->op[2]); \
        RT *d = x->op[0] != XREF_NONE ? (RT *)(void *)xr32(w, x->op[0]) : sink;                    \
        const int plain = (x->aux2 & ATOM_PLAIN) != 0;                                             \
        for (uint32_t mm = mask; mm; mm &= mm - 1) {                                               \
            int l = __builtin_ctz(mm);                                                             \
            MT *pl = (MT *)(void *)p[l];                                                           \
            const MT b = (MT)bv[l], c = (MT)cv[l];                                                 \
            (void)c;                                                                               \
            MT o;                                                                                  \
            if (plain) {                                                                           \
                o = *pl;                                                                           \
                *pl = (MT)(NEWV);                                                                  \
            } else {                                                                               \
                o = __atomic_load_n(pl, __ATOMIC_RELAXED);                                         \
                MT nv;                                                                             \
                do {                                                                               \
                    nv = (MT)(NEWV);                                                               \
                } while (!__atomic_compare_exchange_n(pl, &o, nv, 1, __ATOMIC_SEQ_CST,             \
                                                      __ATOMIC_RELAXED));                          \
            }                                                                                      \
            d[l] = (RT)o;                                                                          \
        }                                                                                          \
        return EXEC_NEXT;                                                                          \
    }

/* The same with a native fetch-and-op builtin for the atomic case. */
#define DEF_ATOM_FETCH(name, RT, MT, NEWV, BUILTIN)                                                \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        uint8_t *p[32];                                                                            \
        RT sink[32];                                                                               \
        if (!mask)                                                                                 \
            return mem_idle(w);                                                                    \
        if (!xlate(w, x, mask, (uint32_t)sizeof(MT), 1, p))                                        \
            return EXEC_FAULT;                                                                     \
        const RT *bv = (const RT *)(const void *)xr32(w, x->op[2]);                                \
        RT *d = x->op[0] != XREF_NONE ? (RT *)(void *)xr32(w, x->op[0]) : sink;                    \
        if (x->aux2 & ATOM_PLAIN) {                                                                \
            for (uint32_t mm = mask; mm; mm &= mm - 1) {                                           \
                int l = __builtin_ctz(mm);                                                         \
                MT *pl = (MT *)(void *)p[l];                                                       \
                const MT b = (MT)bv[l];                                                            \
                MT o = *pl;                                                                        \
                *pl = (MT)(NEWV);                                                                  \
                d[l] = (RT)o;                                                                      \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t mm = mask; mm; mm &= mm - 1) {                                           \
                int l = __builtin_ctz(mm);                                                         \
                d[l] = (RT)BUILTIN((MT *)(void *)p[l], (MT)bv[l], __ATOMIC_SEQ_CST);               \
            }                                                                                      \
        }                                                                                          \
        return EXEC_NEXT;                                                                          \
    }

DEF_ATOM_FETCH(h_atom_add_32, uint32_t, uint32_t, o + b, __atomic_fetch_add)
DEF_ATOM_FETCH(h_atom_and_32, uint32_t, uint32_t, o & b, __atomic_fetch_and)
DEF_ATOM_FETCH(h_atom_or_32, uint32_t, uint32_t, o | b, __atomic_fetch_or)
DEF_ATOM_FETCH(h_atom_xor_32, uint32_t, uint32_t, o ^ b, __atomic_fetch_xor)
DEF_ATOM_FETCH(h_atom_exch_32, uint32_t, uint32_t, b, __atomic_exchange_n)
DEF_ATOM_FETCH(h_atom_add_64, uint64_t, uint64_t, o + b, __atomic_fetch_add)
DEF_ATOM_FETCH(h_atom_and_64, uint64_t, uint64_t, o & b, __atomic_fetch_and)
DEF_ATOM_FETCH(h_atom_or_64, uint64_t, uint64_t, o | b, __atomic_fetch_or)
DEF_ATOM_FETCH(h_atom_xor_64, uint64_t, uint64_t, o ^ b, __atomic_fetch_xor)
DEF_ATOM_FETCH(h_atom_exch_64, uint64_t, uint64_t, b, __atomic_exchange_n)

DEF_ATOM_CAS(h_atom_minu_32, uint32_t, uint32_t, MIN(o, b))
DEF_ATOM_CAS(h_atom_maxu_32, uint32_t, uint32_t, MAX(o, b))
DEF_ATOM_CAS(h_atom_mins_32, uint32_t, uint32_t, MIN((int32_t)o, (int32_t)b))
DEF_ATOM_CAS(h_atom_maxs_32, uint32_t, uint32_t, MAX((int32_t)o, (int32_t)b))
DEF_ATOM_CAS(h_atom_inc_32, uint32_t, uint32_t, INC(o, b))
DEF_ATOM_CAS(h_atom_dec_32, uint32_t, uint32_t, DEC(o, b))
DEF_ATOM_CAS(h_atom_cas_32, uint32_t, uint32_t, o == b ? c : o)
DEF_ATOM_CAS(h_atom_minu_64, uint64_t, uint64_t, MIN(o, b))
DEF_ATOM_CAS(h_atom_maxu_64, uint64_t, uint64_t, MAX(o, b))
DEF_ATOM_CAS(h_atom_mins_64, uint64_t, uint64_t, MIN((int64_t)o, (int64_t)b))
DEF_ATOM_CAS(h_atom_maxs_64, uint64_t, uint64_t, MAX((int64_t)o, (int64_t)b))
DEF_ATOM_CAS(h_atom_inc_64, uint64_t, uint64_t, INC(o, b))
DEF_ATOM_CAS(h_atom_dec_64, uint64_t, uint64_t, DEC(o, b))
DEF_ATOM_CAS(h_atom_cas_64, uint64_t, uint64_t, o == b ? c : o)
DEF_ATOM_CAS(h_atom_cas_16, uint32_t, uint16_t, o == b ? c : o)
DEF_ATOM_CAS(h_atom_add_f64, uint64_t, uint64_t, add_f64(o, b))
DEF_ATOM_CAS(h_atom_add_f16, uint32_t, uint16_t, add_f16(o, b))
DEF_ATOM_CAS(h_atom_add_bf16, uint32_t, uint16_t, add_bf16(o, b))
DEF_ATOM_CAS(h_atom_add_f16x2, uint32_t, uint32_t, add_f16x2(o, b))
DEF_ATOM_CAS(h_atom_add_bf16x2, uint32_t, uint32_t, add_bf16x2(o, b))
/* f32 add: flushes subnormals unless the lane's location is shared memory */
DEF_ATOM_CAS(h_atom_add_f32, uint32_t, uint32_t,
             add_f32(o, b, (uintptr_t)((uint8_t *)pl - w->cta->shared) >= w->cta->shared_bytes))

/* ---------------------------------------------------------------- cvta */

static exec_result h_cvta_add64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t *s = xr64(w, x->op[1]);
    const uint64_t k = (uint64_t)x->imm;
    FOR_LANES(mask, l, d[l] = s[l] + k);
    return EXEC_NEXT;
}

static exec_result h_cvta_add32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t *s = xr32(w, x->op[1]);
    const uint32_t k = (uint32_t)x->imm;
    FOR_LANES(mask, l, d[l] = s[l] + k);
    return EXEC_NEXT;
}

/* Generic address of a frame object: window + sp + frame offset. */
static exec_result h_cvta_frame64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t k = (uint64_t)x->imm;
    FOR_LANES(mask, l, d[l] = w->sp[l] + k);
    return EXEC_NEXT;
}

static exec_result h_cvta_frame32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t k = (uint32_t)x->imm;
    FOR_LANES(mask, l, d[l] = w->sp[l] + k);
    return EXEC_NEXT;
}

/* ------------------------------------------------------------ isspacep */

static ALWAYS_INLINE uint32_t lanes_where(exec_warp *w, const xinsn *x, uint32_t mask,
                                          uint64_t lo, uint64_t size, int inside)
{
    uint32_t r = 0;
    if (x->aux) { /* 64-bit address */
        const uint64_t *a = xr64(w, x->op[1]);
        FOR_LANES(mask, l, r |= (uint32_t)((a[l] - lo < size) == inside) << l);
    } else {
        const uint32_t *a = xr32(w, x->op[1]);
        FOR_LANES(mask, l, r |= (uint32_t)(((uint64_t)a[l] - lo < size) == inside) << l);
    }
    return r;
}

static void set_pred(exec_warp *w, xref p, uint32_t mask, uint32_t value)
{
    uint32_t *pr = &w->preds[XREF_INDEX(p)];
    *pr = (*pr & ~mask) | (value & mask);
}

/* isspacep.shared / .local: the address lies in the space's generic window
 * (imm = window base); like hardware, the whole 4 GiB window counts. */
static exec_result h_isspacep_window(exec_warp *w, const xinsn *x, uint32_t mask)
{
    set_pred(w, x->op[0], mask, lanes_where(w, x, mask, (uint64_t)x->imm, MB_WINDOW_SIZE, 1));
    return EXEC_NEXT;
}

/* isspacep.global: everything outside the shared and local windows is the
 * global window (NULL included, as on hardware where .global is the
 * generic address space minus the other windows). */
static exec_result h_isspacep_global(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t sh = lanes_where(w, x, mask, MB_SHARED_WINDOW, MB_WINDOW_SIZE, 1);
    uint32_t lo = lanes_where(w, x, mask, MB_LOCAL_WINDOW, MB_WINDOW_SIZE, 1);
    set_pred(w, x->op[0], mask, ~(sh | lo));
    return EXEC_NEXT;
}

/* isspacep.const: the address lies inside a module .const variable (the
 * executor places .const data in global memory, so such addresses are also
 * .global). */
static exec_result h_isspacep_const(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const mb_program *prog = w->cta->prog;
    const mb_module *m = prog->module;
    uint32_t r = 0;
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = x->aux ? xr64(w, x->op[1])[l] : xr32(w, x->op[1])[l];
        for (uint32_t i = 0; i < m->nvars; i++) {
            const mb_var *v = &m->vars[i];
            if (v->space == MB_SPACE_CONST && prog->var_addr[i] && a - prog->var_addr[i] < v->size) {
                r |= 1u << l;
                break;
            }
        }
    }
    set_pred(w, x->op[0], mask, r);
    return EXEC_NEXT;
}

/* isspacep.param: kernel parameters have no generic addresses here. */
static exec_result h_isspacep_false(exec_warp *w, const xinsn *x, uint32_t mask)
{
    set_pred(w, x->op[0], mask, 0);
    return EXEC_NEXT;
}

/* ---------------------------------------------------- hints and fences */

/* prefetch, prefetchu, applypriority, discard: no functional effect
 * (discard leaves the data in place, one of the values it allows). */
static exec_result h_mem_hint(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)x;
    (void)mask;
    w->access_bytes = 0;
    return EXEC_NEXT;
}

/* membar/fence: execution is sequentially consistent within a CTA; a host
 * fence orders this CTA's memory accesses against CTAs on other threads. */
static exec_result h_fence(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)w;
    (void)x;
    if (mask)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return EXEC_NEXT;
}

/* -------------------------------------------------------------- decode */

typedef struct mem_mods {
    mb_space space;    /* MB_SPACE_NONE: generic */
    unsigned vec;      /* 1, 2, 4; 8 for .v8 */
    int to;            /* cvta.to */
    int cache_hint;    /* .L2::cache_hint: a trailing cache-policy operand */
    int atom_op;       /* mb_ptx_mod of the atomic operation, or 0 */
    int natom_ops;
    int cluster;       /* .shared::cluster */
} mem_mods;

static void parse_mods(const mb_insn *insn, mem_mods *mm)
{
    memset(mm, 0, sizeof(*mm));
    mm->vec = 1;
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE)
            continue;
        switch ((mb_ptx_mod)s) {
        case MB_MOD_GLOBAL: mm->space = MB_SPACE_GLOBAL; break;
        case MB_MOD_SHARED:
        case MB_MOD_SHARED_CTA: mm->space = MB_SPACE_SHARED; break;
        case MB_MOD_SHARED_CLUSTER:
            mm->space = MB_SPACE_SHARED;
            mm->cluster = 1;
            break;
        case MB_MOD_LOCAL: mm->space = MB_SPACE_LOCAL; break;
        case MB_MOD_CONST: mm->space = MB_SPACE_CONST; break;
        case MB_MOD_PARAM:
        case MB_MOD_PARAM_ENTRY:
        case MB_MOD_PARAM_FUNC: mm->space = MB_SPACE_PARAM; break;
        case MB_MOD_V2: mm->vec = 2; break;
        case MB_MOD_V4: mm->vec = 4; break;
        case MB_MOD_V8: mm->vec = 8; break;
        case MB_MOD_TO: mm->to = 1; break;
        case MB_MOD_L2_CACHE_HINT: mm->cache_hint = 1; break;
        case MB_MOD_ADD: case MB_MOD_MIN: case MB_MOD_MAX: case MB_MOD_INC: case MB_MOD_DEC:
        case MB_MOD_AND: case MB_MOD_OR: case MB_MOD_XOR: case MB_MOD_EXCH: case MB_MOD_CAS:
            mm->atom_op = s;
            mm->natom_ops++;
            break;
        default:
            /* .volatile .relaxed .acquire .release .weak .mmio .nc .ca .cg .cs
             * .lu .cv .wb .wt, scopes, .L1::/.L2:: hints, .noftz: accepted;
             * single-copy functional semantics make them no-ops. */
            break;
        }
    }
}

/* Width in bytes of register operand `o` as declared (1, 2, 4, 8, 16). */
static unsigned reg_bytes(const decode_ctx *dc, const mb_operand *o)
{
    return mb_type_size(dc->fn->regs[o->u.reg].type);
}

static int is_value_reg(const decode_ctx *dc, const mb_operand *o)
{
    return o->kind == MB_OPND_REG && dc->fn->regs[o->u.reg].type != MB_TYPE_PRED &&
           reg_bytes(dc, o) > 0;
}

static uint64_t align16(uint64_t v)
{
    return (v + 15) & ~UINT64_C(15);
}

typedef struct addr_info {
    uint32_t am;
    xref base;
    int64_t imm;
    mb_space space; /* space the access is translated in */
} addr_info;

/* Decodes address operand `o` of an access of `bytes` bytes by an
 * instruction of space `ispace` (MB_SPACE_NONE: generic). */
static mb_status decode_addr(decode_ctx *dc, const mb_insn *insn, const mb_operand *o,
                             mb_space ispace, int is_store, uint32_t bytes, addr_info *ai)
{
    const mb_function *fn = dc->fn;
    const int kernel = fn->is_entry;
    ai->base = XREF_NONE;
    ai->imm = 0;
    ai->space = ispace;
    unsigned base_kind;
    uint32_t ref;
    int64_t off;
    unsigned symkind = 0;
    if (o->kind == MB_OPND_ADDR) {
        base_kind = o->base_kind;
        off = o->offset;
        ref = base_kind == MB_OPND_SYMBOL ? o->u.sym : base_kind == MB_OPND_REG ? o->u.reg : 0;
        symkind = o->symkind;
    } else if (o->kind == MB_OPND_REG || o->kind == MB_OPND_SYMBOL) {
        base_kind = o->kind;
        off = o->kind == MB_OPND_SYMBOL ? o->offset : 0;
        ref = o->kind == MB_OPND_SYMBOL ? o->u.sym : o->u.reg;
        symkind = o->symkind;
    } else if (o->kind == MB_OPND_IMM) {
        base_kind = MB_OPND_IMM;
        off = 0;
        ref = 0;
    } else {
        return decode_unsupported(dc, insn, "unsupported address operand");
    }

    if (base_kind == MB_OPND_REG) {
        const mb_reg *r = &fn->regs[ref];
        unsigned rb = mb_type_size(r->type);
        if (r->type == MB_TYPE_PRED || (rb != 8 && rb != 4))
            return decode_unsupported(dc, insn, "an address register must be 32 or 64 bits wide");
        ai->am = rb == 8 ? AM_REG64 : AM_REG32;
        ai->base = dc->ef->reg_ref[ref];
        ai->imm = off;
        if (ispace == MB_SPACE_PARAM) {
            if (kernel && is_store)
                return decode_unsupported(dc, insn, "kernel parameters are read-only");
            /* kernel: an offset into the parameter buffer; .func: a local offset */
            ai->space = kernel ? MB_SPACE_PARAM : MB_SPACE_LOCAL;
        }
        return MB_OK;
    }
    if (base_kind == MB_OPND_IMM) {
        ai->am = AM_ABS;
        ai->imm = (int64_t)o->u.bits; /* the parser folds an offset into the address */
        if (ispace == MB_SPACE_PARAM) {
            if (kernel && is_store)
                return decode_unsupported(dc, insn, "kernel parameters are read-only");
            ai->space = kernel ? MB_SPACE_PARAM : MB_SPACE_LOCAL;
        }
        return MB_OK;
    }

    /* a symbol, plus an offset */
    mb_space sspace;
    switch ((mb_symkind)symkind) {
    case MB_SYM_GLOBAL_VAR: {
        const mb_var *v = &dc->module->vars[ref];
        sspace = v->space;
        if (sspace == MB_SPACE_SHARED) {
            uint64_t base = dc->prog->var_addr[ref];
            if (base == UINT64_MAX) /* extern .shared: the dynamic area after the static data */
                base = align16(dc->prog->static_shared_bytes);
            ai->am = AM_ABS;
            ai->imm = (int64_t)base + off;
        } else if (sspace == MB_SPACE_GLOBAL || sspace == MB_SPACE_CONST) {
            ai->am = AM_ABS;
            ai->imm = (int64_t)dc->prog->var_addr[ref] + off;
        } else {
            return decode_unsupported(dc, insn, "this variable cannot be accessed as memory");
        }
        break;
    }
    case MB_SYM_LOCAL_VAR: {
        const mb_var *v = &fn->vars[ref];
        sspace = v->space;
        if (sspace == MB_SPACE_SHARED) {
            ai->am = AM_ABS;
            ai->imm = (int64_t)dc->ef->var_offset[ref] + off;
        } else if (sspace == MB_SPACE_LOCAL || sspace == MB_SPACE_PARAM) {
            ai->am = AM_FRAME;
            ai->imm = (int64_t)dc->ef->var_offset[ref] + off;
        } else {
            return decode_unsupported(dc, insn, "this variable cannot be accessed as memory");
        }
        break;
    }
    case MB_SYM_PARAM:
        sspace = MB_SPACE_PARAM;
        if (fn->params[ref].space != MB_SPACE_PARAM)
            return decode_unsupported(dc, insn, ".reg parameters are not memory");
        if (kernel) {
            if (is_store)
                return decode_unsupported(dc, insn, "kernel parameters are read-only");
            mb_param_slot *slots = calloc((size_t)fn->nparams + 1, sizeof(mb_param_slot));
            uint32_t total = 0;
            if (!slots)
                return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            mb_status st = mb_kernel_param_layout(fn, slots, &total, dc->err);
            uint32_t at = slots[ref].offset;
            free(slots);
            if (st != MB_OK)
                return st;
            if (off < 0 || (uint64_t)at + (uint64_t)off + bytes > total)
                return decode_unsupported(dc, insn, "the access lies outside the kernel's parameters");
            ai->am = AM_ABS;
            ai->imm = (int64_t)at + off;
            ai->space = MB_SPACE_PARAM;
            if (ispace != MB_SPACE_PARAM && ispace != MB_SPACE_NONE)
                return decode_unsupported(dc, insn, "a kernel parameter is accessed outside .param");
            return MB_OK;
        }
        ai->am = AM_FRAME;
        ai->imm = (int64_t)dc->ef->param_offset[ref] + off;
        break;
    case MB_SYM_RET:
        sspace = MB_SPACE_PARAM;
        ai->am = AM_FRAME;
        ai->imm = (int64_t)dc->ef->ret_offset[ref] + off;
        break;
    default: return decode_unsupported(dc, insn, "this symbol cannot be used as an address");
    }
    if (ispace != MB_SPACE_NONE && ispace != sspace)
        return decode_unsupported(dc, insn,
                                  "the variable's state space differs from the instruction's");
    if (ai->am == AM_FRAME)
        ai->space = MB_SPACE_LOCAL;
    else
        ai->space = sspace;
    return MB_OK;
}

static void set_addr(xinsn *x, const addr_info *ai, unsigned index)
{
    x->aux = ai->am;
    x->op[index] = ai->base;
    x->target = index;
    x->imm = ai->imm;
    x->space = (uint8_t)ai->space;
}

/* Operands of the instruction once a trailing cache-policy operand is dropped. */
static unsigned value_operands(const mb_insn *insn, const mem_mods *mm)
{
    return insn->noperands - (mm->cache_hint && insn->noperands > 0 ? 1u : 0u);
}

/* The elements of a data operand: itself, or the members of a vector. */
static unsigned elements(const decode_ctx *dc, const mb_operand *o, const mb_operand **el,
                         unsigned max)
{
    if (o->kind != MB_OPND_VEC) {
        el[0] = o;
        return 1;
    }
    unsigned n = o->u.list.count;
    for (unsigned i = 0; i < n && i < max; i++)
        el[i] = &dc->fn->operands[o->u.list.first + i];
    return n;
}

static mb_status decode_ld(decode_ctx *dc, const mb_insn *insn, xinsn *x, const mem_mods *mm)
{
    mb_ptx_type type = mb_insn_type(insn, 0);
    unsigned w = mb_type_size(type);
    mb_type_kind kind = mb_type_kind_of(type);
    if (value_operands(insn, mm) != 2)
        return decode_unsupported(dc, insn, "unsupported operands");
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return decode_unsupported(dc, insn, "unsupported load type");
    if (mm->vec > 4)
        return decode_unsupported(dc, insn, ".v8 loads are not supported");
    if (mm->cluster)
        return decode_unsupported(dc, insn, "cluster shared memory is not supported");
    const mb_operand *dst = mb_insn_operand(dc->fn, insn, 0);
    const mb_operand *el[4];
    unsigned n = elements(dc, dst, el, 4);
    if (n != mm->vec || (mm->vec > 1 && dst->kind != MB_OPND_VEC))
        return decode_unsupported(dc, insn, "the destination does not match the vector width");
    if (w == 16 && mm->vec > 1)
        return decode_unsupported(dc, insn, "vectors of .b128 are not supported");
    unsigned cls = 0, rbytes = 0;
    for (unsigned i = 0; i < n; i++) {
        if (el[i]->kind == MB_OPND_SINK) {
            x->op[i] = XREF_NONE;
            continue;
        }
        if (!is_value_reg(dc, el[i]))
            return decode_unsupported(dc, insn, "a load destination must be a register");
        unsigned rb = reg_bytes(dc, el[i]);
        unsigned c = rb <= 4 ? 4 : rb;
        if (rb < w)
            return decode_unsupported(dc, insn, "the destination register is narrower than the type");
        if ((cls && c != cls) || (rbytes && rb != rbytes))
            return decode_unsupported(dc, insn, "vector elements of different widths");
        cls = c;
        rbytes = rb;
        x->op[i] = dc->ef->reg_ref[el[i]->u.reg];
    }
    if (!cls) { /* only sinks: nothing is read */
        cls = w <= 4 ? 4 : w;
        rbytes = cls;
    }
    addr_info ai;
    mb_status st = decode_addr(dc, insn, mb_insn_operand(dc->fn, insn, 1), mm->space, 0,
                               w * mm->vec, &ai);
    if (st != MB_OK)
        return st;
    set_addr(x, &ai, mm->vec);
    x->aux2 = rbytes >= 4 ? 0xFFFFFFFFu : (1u << (8 * rbytes)) - 1;
    int sgn = kind == MB_TYPE_KIND_S;
    /* Narrow values widen to the destination register: sign-extended for
     * signed types, zero-extended otherwise (PTX relaxed type rules);
     * registers narrower than 32 bits hold the value zero-extended. */
    if (cls == 4) {
        x->fn = w == 1 ? (sgn ? h_ld_w32_s8 : h_ld_w32_u8)
              : w == 2 ? (sgn ? h_ld_w32_s16 : h_ld_w32_u16)
                       : h_ld_w32_32;
    } else if (cls == 8) {
        x->fn = w == 1 ? (sgn ? h_ld_w64_s8 : h_ld_w64_u8)
              : w == 2 ? (sgn ? h_ld_w64_s16 : h_ld_w64_u16)
              : w == 4 ? (sgn ? h_ld_w64_s32 : h_ld_w64_u32)
                       : h_ld_w64_64;
    } else if (cls == 16 && w == 16) {
        x->fn = h_ld_128;
    } else {
        return decode_unsupported(dc, insn, "unsupported destination register width");
    }
    if (mm->vec == 1)
        x->fn = fused_handler(x->fn, x->aux, (mb_space)x->space);
    /* kernel parameters at a constant offset: one read for the warp */
    if (ai.space == MB_SPACE_PARAM && ai.am == AM_ABS && mm->vec == 1 && x->op[0] != XREF_NONE) {
        if (x->fn == h_ld_w32_32)
            x->fn = h_ldk_32;
        else if (x->fn == h_ld_w64_64)
            x->fn = h_ldk_64;
    }
    return MB_OK;
}

/* The bits of literal `o` stored as `type` (the low bytes of the result are
 * what a store writes). */
static uint64_t literal_as(const mb_operand *o, mb_ptx_type type)
{
    uint64_t bits = o->u.bits;
    if (type == MB_TYPE_F32 && o->kind == MB_OPND_F64)
        bits = f32_bits((float)bits_f64(bits));
    else if (type == MB_TYPE_F64 && o->kind == MB_OPND_F32)
        bits = f64_bits((double)bits_f32((uint32_t)bits));
    unsigned size = mb_type_size(type);
    return size >= 8 ? bits : bits & ((UINT64_C(1) << (8 * size)) - 1);
}

static mb_status decode_st(decode_ctx *dc, const mb_insn *insn, xinsn *x, const mem_mods *mm)
{
    mb_ptx_type type = mb_insn_type(insn, 0);
    unsigned w = mb_type_size(type);
    if (value_operands(insn, mm) != 2)
        return decode_unsupported(dc, insn, "unsupported operands");
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return decode_unsupported(dc, insn, "unsupported store type");
    if (mm->vec > 4)
        return decode_unsupported(dc, insn, ".v8 stores are not supported");
    if (mm->cluster)
        return decode_unsupported(dc, insn, "cluster shared memory is not supported");
    if (mm->space == MB_SPACE_CONST)
        return decode_unsupported(dc, insn, ".const memory is read-only");
    const mb_operand *src = mb_insn_operand(dc->fn, insn, 1);
    const mb_operand *el[4];
    unsigned n = elements(dc, src, el, 4);
    if (n != mm->vec || (mm->vec > 1 && src->kind != MB_OPND_VEC))
        return decode_unsupported(dc, insn, "the source does not match the vector width");
    if (w == 16 && mm->vec > 1)
        return decode_unsupported(dc, insn, "vectors of .b128 are not supported");
    unsigned cls = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!is_value_reg(dc, el[i]))
            continue;
        unsigned rb = reg_bytes(dc, el[i]);
        unsigned c = rb <= 4 ? 4 : rb;
        if (rb < w)
            return decode_unsupported(dc, insn, "the source register is narrower than the type");
        if (cls && c != cls)
            return decode_unsupported(dc, insn, "vector elements of different widths");
        cls = c;
    }
    if (!cls) /* immediates only */
        cls = w <= 4 ? 4 : w;
    if (cls == 16 && w != 16)
        return decode_unsupported(dc, insn, "unsupported source register width");
    for (unsigned i = 0; i < n; i++) {
        const mb_operand *o = el[i];
        if (is_value_reg(dc, o)) {
            x->op[1 + i] = dc->ef->reg_ref[o->u.reg];
            continue;
        }
        if (o->kind == MB_OPND_REG || o->kind == MB_OPND_SINK || cls == 16)
            return decode_unsupported(dc, insn, "unsupported store source");
        /* an immediate, pooled at the source width, or a symbol's address */
        mb_status st;
        if (o->kind == MB_OPND_IMM || o->kind == MB_OPND_F32 || o->kind == MB_OPND_F64)
            st = decode_const(dc, literal_as(o, type), cls == 8, &x->op[1 + i]);
        else
            st = decode_operand(dc, insn, o, cls == 8 ? MB_TYPE_B64 : MB_TYPE_B32, &x->op[1 + i]);
        if (st != MB_OK)
            return st;
    }
    addr_info ai;
    mb_status st = decode_addr(dc, insn, mb_insn_operand(dc->fn, insn, 0), mm->space, 1,
                               w * mm->vec, &ai);
    if (st != MB_OK)
        return st;
    if (ai.space == MB_SPACE_CONST)
        return decode_unsupported(dc, insn, ".const memory is read-only");
    set_addr(x, &ai, 0);
    if (cls == 4)
        x->fn = w == 1 ? h_st_w32_8 : w == 2 ? h_st_w32_16 : h_st_w32_32;
    else if (cls == 8)
        x->fn = w == 1 ? h_st_w64_8 : w == 2 ? h_st_w64_16 : w == 4 ? h_st_w64_32 : h_st_w64_64;
    else if (cls == 16)
        x->fn = h_st_128;
    else
        return decode_unsupported(dc, insn, "unsupported source register width");
    if (mm->vec == 1)
        x->fn = fused_handler(x->fn, x->aux, (mb_space)x->space);
    return MB_OK;
}

static mb_status decode_atom(decode_ctx *dc, const mb_insn *insn, xinsn *x, const mem_mods *mm)
{
    const int is_red = insn->opcode == MB_OP_RED;
    mb_ptx_type type = mb_insn_type(insn, 0);
    unsigned nops = value_operands(insn, mm);
    int op = mm->atom_op;
    if (mm->natom_ops != 1)
        return decode_unsupported(dc, insn, "an atomic needs exactly one operation");
    if (mm->vec != 1)
        return decode_unsupported(dc, insn, "vector atomics are not supported");
    if (mm->cluster)
        return decode_unsupported(dc, insn, "cluster shared memory is not supported");
    if (mm->space != MB_SPACE_NONE && mm->space != MB_SPACE_GLOBAL && mm->space != MB_SPACE_SHARED)
        return decode_unsupported(dc, insn, "atomics work on .global, .shared or generic addresses");
    if (op == MB_MOD_CAS && is_red)
        return decode_unsupported(dc, insn, "red has no .cas");
    unsigned want = (is_red ? 2u : 3u) + (op == MB_MOD_CAS ? 1u : 0u);
    if (nops != want)
        return decode_unsupported(dc, insn, "unsupported operands");
    xhandler h = NULL;
    unsigned bytes = mb_type_size(type);
    mb_type_kind kind = mb_type_kind_of(type);
    const int s = kind == MB_TYPE_KIND_S;
    if (kind == MB_TYPE_KIND_F) {
        if (op == MB_MOD_ADD) {
            switch (type) {
            case MB_TYPE_F32: h = h_atom_add_f32; break;
            case MB_TYPE_F64: h = h_atom_add_f64; break;
            case MB_TYPE_F16: h = h_atom_add_f16; break;
            case MB_TYPE_BF16: h = h_atom_add_bf16; break;
            case MB_TYPE_F16X2: h = h_atom_add_f16x2; break;
            case MB_TYPE_BF16X2: h = h_atom_add_bf16x2; break;
            default: break;
            }
        } else if (op == MB_MOD_EXCH && (type == MB_TYPE_F32 || type == MB_TYPE_F64)) {
            h = type == MB_TYPE_F32 ? h_atom_exch_32 : h_atom_exch_64;
        }
    } else if (bytes == 4 && (kind == MB_TYPE_KIND_B || kind == MB_TYPE_KIND_U || s)) {
        switch (op) {
        case MB_MOD_ADD: h = h_atom_add_32; break;
        case MB_MOD_AND: h = h_atom_and_32; break;
        case MB_MOD_OR: h = h_atom_or_32; break;
        case MB_MOD_XOR: h = h_atom_xor_32; break;
        case MB_MOD_EXCH: h = h_atom_exch_32; break;
        case MB_MOD_CAS: h = h_atom_cas_32; break;
        case MB_MOD_MIN: h = s ? h_atom_mins_32 : h_atom_minu_32; break;
        case MB_MOD_MAX: h = s ? h_atom_maxs_32 : h_atom_maxu_32; break;
        case MB_MOD_INC: h = h_atom_inc_32; break;
        case MB_MOD_DEC: h = h_atom_dec_32; break;
        default: break;
        }
    } else if (bytes == 8 && (kind == MB_TYPE_KIND_B || kind == MB_TYPE_KIND_U || s)) {
        switch (op) {
        case MB_MOD_ADD: h = h_atom_add_64; break;
        case MB_MOD_AND: h = h_atom_and_64; break;
        case MB_MOD_OR: h = h_atom_or_64; break;
        case MB_MOD_XOR: h = h_atom_xor_64; break;
        case MB_MOD_EXCH: h = h_atom_exch_64; break;
        case MB_MOD_CAS: h = h_atom_cas_64; break;
        case MB_MOD_MIN: h = s ? h_atom_mins_64 : h_atom_minu_64; break;
        case MB_MOD_MAX: h = s ? h_atom_maxs_64 : h_atom_maxu_64; break;
        case MB_MOD_INC: h = h_atom_inc_64; break;
        case MB_MOD_DEC: h = h_atom_dec_64; break;
        default: break;
        }
    } else if (type == MB_TYPE_B16 && op == MB_MOD_CAS) {
        h = h_atom_cas_16;
    }
    if (!h)
        return decode_unsupported(dc, insn, "unsupported atomic operation or type");
    unsigned a_at = is_red ? 0 : 1;
    mb_status st = MB_OK;
    if (!is_red)
        st = decode_operand(dc, insn, mb_insn_operand(dc->fn, insn, 0), type, &x->op[0]);
    if (st == MB_OK)
        st = decode_operand(dc, insn, mb_insn_operand(dc->fn, insn, a_at + 1), type, &x->op[2]);
    if (st == MB_OK && op == MB_MOD_CAS)
        st = decode_operand(dc, insn, mb_insn_operand(dc->fn, insn, a_at + 2), type, &x->op[3]);
    if (st != MB_OK)
        return st;
    if (x->op[2] == XREF_NONE || (op == MB_MOD_CAS && x->op[3] == XREF_NONE))
        return decode_unsupported(dc, insn, "an atomic operand cannot be '_'");
    addr_info ai;
    st = decode_addr(dc, insn, mb_insn_operand(dc->fn, insn, a_at), mm->space, 1, bytes, &ai);
    if (st != MB_OK)
        return st;
    if (ai.space != MB_SPACE_NONE && ai.space != MB_SPACE_GLOBAL && ai.space != MB_SPACE_SHARED)
        return decode_unsupported(dc, insn, "atomics work on .global, .shared or generic addresses");
    set_addr(x, &ai, 1);
    if (is_red)
        x->op[0] = XREF_NONE;
    x->aux2 = ai.space == MB_SPACE_SHARED ? ATOM_PLAIN : 0;
    x->fn = h;
    return MB_OK;
}

static mb_status decode_cvta(decode_ctx *dc, const mb_insn *insn, xinsn *x, const mem_mods *mm)
{
    mb_ptx_type type = mb_insn_type(insn, 0);
    if (type != MB_TYPE_U64 && type != MB_TYPE_U32 && type != MB_TYPE_B64 && type != MB_TYPE_B32 &&
        type != MB_TYPE_S64 && type != MB_TYPE_S32)
        return decode_unsupported(dc, insn, "cvta needs .u32 or .u64");
    if (insn->noperands != 2)
        return decode_unsupported(dc, insn, "unsupported operands");
    const int is64 = mb_type_size(type) == 8;
    mb_ptx_type t = is64 ? MB_TYPE_U64 : MB_TYPE_U32;
    uint64_t window;
    switch (mm->space) {
    case MB_SPACE_GLOBAL:
    case MB_SPACE_CONST: window = 0; break;
    case MB_SPACE_SHARED:
        if (mm->cluster)
            return decode_unsupported(dc, insn, "cluster shared memory is not supported");
        window = MB_SHARED_WINDOW;
        break;
    case MB_SPACE_LOCAL: window = MB_LOCAL_WINDOW; break;
    case MB_SPACE_PARAM:
        return decode_unsupported(dc, insn, "kernel parameters have no generic addresses here");
    default: return decode_unsupported(dc, insn, "cvta needs a state space");
    }
    mb_status st = decode_operand(dc, insn, mb_insn_operand(dc->fn, insn, 0), t, &x->op[0]);
    if (st != MB_OK)
        return st;
    if (x->op[0] == XREF_NONE)
        return decode_unsupported(dc, insn, "cvta needs a destination register");
    const mb_operand *a = mb_insn_operand(dc->fn, insn, 1);
    if (a->kind == MB_OPND_SYMBOL) {
        /* the generic address of a variable (plus offset) */
        if (mm->to)
            return decode_unsupported(dc, insn, "cvta.to needs a generic address, not a variable");
        addr_info ai;
        st = decode_addr(dc, insn, a, mm->space, 0, 1, &ai);
        if (st != MB_OK)
            return st;
        if (ai.space == MB_SPACE_PARAM)
            return decode_unsupported(dc, insn, "kernel parameters have no generic addresses here");
        x->imm = (int64_t)((uint64_t)ai.imm + window);
        if (ai.am == AM_FRAME) {
            x->fn = is64 ? h_cvta_frame64 : h_cvta_frame32;
            return MB_OK;
        }
        st = decode_const(dc, 0, is64, &x->op[1]);
        if (st != MB_OK)
            return st;
    } else {
        if (a->kind == MB_OPND_REG && is_value_reg(dc, a) && reg_bytes(dc, a) != (is64 ? 8u : 4u))
            return decode_unsupported(dc, insn,
                                      "cvta's source and destination must have the instruction's size");
        st = decode_operand(dc, insn, a, t, &x->op[1]);
        if (st != MB_OK)
            return st;
        /* generic = window + space address; space address = generic - window
         * (undefined by PTX outside the window: the executor wraps) */
        x->imm = (int64_t)(mm->to ? (uint64_t)0 - window : window);
    }
    x->fn = is64 ? h_cvta_add64 : h_cvta_add32;
    return MB_OK;
}

static mb_status decode_isspacep(decode_ctx *dc, const mb_insn *insn, xinsn *x,
                                 const mem_mods *mm)
{
    if (insn->noperands != 2)
        return decode_unsupported(dc, insn, "unsupported operands");
    const mb_operand *p = mb_insn_operand(dc->fn, insn, 0);
    const mb_operand *a = mb_insn_operand(dc->fn, insn, 1);
    mb_status st = decode_operand(dc, insn, p, MB_TYPE_PRED, &x->op[0]);
    if (st != MB_OK)
        return st;
    if (!XREF_IS(x->op[0], XREF_PRED))
        return decode_unsupported(dc, insn, "isspacep needs a predicate destination");
    int is64 = !(is_value_reg(dc, a) && reg_bytes(dc, a) <= 4);
    st = decode_operand(dc, insn, a, is64 ? MB_TYPE_U64 : MB_TYPE_U32, &x->op[1]);
    if (st != MB_OK)
        return st;
    x->aux = (uint32_t)is64;
    switch (mm->space) {
    case MB_SPACE_GLOBAL: x->fn = h_isspacep_global; break;
    case MB_SPACE_SHARED:
        x->fn = h_isspacep_window;
        x->imm = (int64_t)MB_SHARED_WINDOW;
        break;
    case MB_SPACE_LOCAL:
        x->fn = h_isspacep_window;
        x->imm = (int64_t)MB_LOCAL_WINDOW;
        break;
    case MB_SPACE_CONST: x->fn = h_isspacep_const; break;
    case MB_SPACE_PARAM: x->fn = h_isspacep_false; break;
    default: return decode_unsupported(dc, insn, "isspacep needs a state space");
    }
    return MB_OK;
}

mb_status decode_mem(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    mem_mods mm;
    parse_mods(insn, &mm);
    decode_common_mods(insn, x);
    x->space = (uint8_t)mm.space;
    x->vec = (uint8_t)(mm.vec > 4 ? 1 : mm.vec);
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_LD:
    case MB_OP_LDU: return decode_ld(dc, insn, x, &mm);
    case MB_OP_ST: return decode_st(dc, insn, x, &mm);
    case MB_OP_ATOM:
    case MB_OP_RED: return decode_atom(dc, insn, x, &mm);
    case MB_OP_CVTA: return decode_cvta(dc, insn, x, &mm);
    case MB_OP_ISSPACEP: return decode_isspacep(dc, insn, x, &mm);
    case MB_OP_PREFETCH:
    case MB_OP_PREFETCHU:
    case MB_OP_APPLYPRIORITY:
    case MB_OP_DISCARD: x->fn = h_mem_hint; return MB_OK;
    case MB_OP_MEMBAR:
    case MB_OP_FENCE: x->fn = h_fence; return MB_OK;
    default: return decode_unsupported(dc, insn, "not a memory instruction");
    }
}

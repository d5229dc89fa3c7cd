/* Simulated device memory, address translation and fault reports. */
#include "exec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct allocation {
    uint64_t base;
    uint64_t size;
    uint8_t *host;
    char *name;
    int external; /* host memory mapped by mb_memory_map_host(): not ours to free */
} allocation;

struct mb_memory {
    allocation *allocs; /* sorted by base: addresses only grow */
    size_t nallocs, cap;
    uint64_t next;      /* next free device address */
    uint64_t used, limit;
    exec_tex_table *textures; /* texture objects (exec_tex.c) */
};

enum { ALLOC_ALIGN = 256, GUARD_GAP = 64 * 1024 };

mb_status mb_memory_new(mb_memory **out, mb_error *err)
{
    mb_memory *mem = calloc(1, sizeof(*mem));
    if (!mem)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mem->next = MB_GLOBAL_BASE;
    mem->limit = UINT64_C(16) << 30;
    *out = mem;
    return MB_OK;
}

void mb_memory_free(mb_memory *mem)
{
    if (!mem)
        return;
    for (size_t i = 0; i < mem->nallocs; i++) {
        if (!mem->allocs[i].external)
            free(mem->allocs[i].host);
        free(mem->allocs[i].name);
    }
    free(mem->allocs);
    exec_tex_table_free(mem->textures);
    free(mem);
}

exec_tex_table **exec_memory_tex_slot(mb_memory *mem)
{
    return &mem->textures;
}

void mb_memory_set_limit(mb_memory *mem, uint64_t bytes)
{
    mem->limit = bytes;
}

mb_status mb_memory_alloc(mb_memory *mem, uint64_t bytes, const char *name, uint64_t *addr,
                          mb_error *err)
{
    if (bytes > mem->limit || mem->used > mem->limit - bytes)
        return mb_error_set(err, MB_ERR_LIMIT, "", 0, 0,
                            "allocating %" PRIu64 " bytes for '%s' exceeds the device memory "
                            "limit of %" PRIu64 " bytes (%" PRIu64 " in use)",
                            bytes, name, mem->limit, mem->used);
    if (MB_GROW(mem->allocs, mem->cap, mem->nallocs + 1) != MB_OK)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    allocation *a = &mem->allocs[mem->nallocs];
    a->host = calloc(bytes ? bytes : 1, 1);
    a->name = malloc(strlen(name) + 1);
    if (!a->host || !a->name) {
        free(a->host);
        free(a->name);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0,
                            "out of host memory allocating %" PRIu64 " bytes for '%s'", bytes, name);
    }
    strcpy(a->name, name);
    a->external = 0;
    a->base = mem->next;
    a->size = bytes;
    mem->next = (a->base + bytes + GUARD_GAP + ALLOC_ALIGN - 1) / ALLOC_ALIGN * ALLOC_ALIGN;
    mem->used += bytes;
    /* Host ranges mapped by mb_memory_map_host() may lie above: keep the order. */
    size_t at = mem->nallocs;
    while (at > 0 && mem->allocs[at - 1].base > a->base)
        at--;
    if (at < mem->nallocs) {
        allocation fresh = *a;
        memmove(&mem->allocs[at + 1], &mem->allocs[at], (mem->nallocs - at) * sizeof(allocation));
        mem->allocs[at] = fresh;
    }
    mem->nallocs++;
    *addr = mem->allocs[at].base;
    return MB_OK;
}

/* The allocation whose base is the largest not above addr, or NULL. */
static const allocation *find_below(const mb_memory *mem, uint64_t addr)
{
    size_t lo = 0, hi = mem->nallocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mem->allocs[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &mem->allocs[lo - 1] : NULL;
}

uint8_t *exec_memory_lookup(mb_memory *mem, uint64_t addr, uint64_t bytes, uint64_t *base,
                            uint64_t *size, uint8_t **host_base)
{
    const allocation *a = find_below(mem, addr);
    if (!a || addr - a->base > a->size || bytes > a->size - (addr - a->base))
        return NULL;
    *base = a->base;
    *size = a->size;
    *host_base = a->host;
    return a->host + (addr - a->base);
}

void *mb_memory_host(mb_memory *mem, uint64_t addr, uint64_t bytes)
{
    uint64_t base, size;
    uint8_t *host;
    return exec_memory_lookup(mem, addr, bytes, &base, &size, &host);
}

void mb_memory_describe(const mb_memory *mem, uint64_t addr, char *buf, size_t size)
{
    const allocation *a = find_below(mem, addr);
    if (a && addr - a->base < a->size) {
        snprintf(buf, size, "%" PRIu64 " bytes into '%s' [0x%" PRIx64 ", +%" PRIu64 ")",
                 addr - a->base, a->name, a->base, a->size);
        return;
    }
    const allocation *next = a ? a + 1 : mem->nallocs ? &mem->allocs[0] : NULL;
    if (next && next >= mem->allocs + mem->nallocs)
        next = NULL;
    uint64_t past = a ? addr - (a->base + a->size) : UINT64_MAX;
    uint64_t before = next ? next->base - addr : UINT64_MAX;
    if (a && past <= before)
        snprintf(buf, size, "%" PRIu64 " bytes past the end of '%s' [0x%" PRIx64 ", +%" PRIu64 ")",
                 past, a->name, a->base, a->size);
    else if (next)
        snprintf(buf, size, "%" PRIu64 " bytes before '%s' [0x%" PRIx64 ", +%" PRIu64 ")", before,
                 next->name, next->base, next->size);
    else
        snprintf(buf, size, "not in any allocation");
}

/* ------------------------------------------------------------- faults */

static void thread_coords(const exec_warp *w, int lane, mb_dim3 *tid)
{
    const mb_dim3 b = w->cta->cfg->block;
    uint32_t linear = w->index * 32 + (uint32_t)lane;
    tid->x = linear % b.x;
    tid->y = (linear / b.x) % b.y;
    tid->z = linear / (b.x * b.y);
}

exec_result exec_fault_at(exec_warp *w, const xinsn *x, int lane, const char *fmt, ...)
{
    exec_cta *cta = w->cta;
    if (cta->fault.set)
        return EXEC_FAULT;
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    mb_dim3 tid;
    thread_coords(w, lane < 0 ? 0 : lane, &tid);
    const mb_function *kernel = cta->cfg->kernel;
    if (lane >= 0)
        snprintf(cta->fault.msg, sizeof(cta->fault.msg),
                 "kernel %s, block (%u,%u,%u), thread (%u,%u,%u): %s", kernel->name, cta->ctaid.x,
                 cta->ctaid.y, cta->ctaid.z, tid.x, tid.y, tid.z, what);
    else
        snprintf(cta->fault.msg, sizeof(cta->fault.msg), "kernel %s, block (%u,%u,%u), warp %u: %s",
                 kernel->name, cta->ctaid.x, cta->ctaid.y, cta->ctaid.z, w->index, what);
    cta->fault.set = 1;
    cta->fault.x = x;
    cta->fault.lane = lane < 0 ? 0 : (uint32_t)lane;
    return EXEC_FAULT;
}

/* --------------------------------------------------------- translation */

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

uint8_t *exec_translate(exec_warp *w, const xinsn *x, int lane, uint64_t addr, uint32_t bytes,
                        mb_space space, int is_store)
{
    exec_cta *cta = w->cta;
    const char *verb = is_store ? "store" : "load";
    w->addrs[lane] = addr;
    w->access_bytes = bytes;
    if (bytes && (addr & (bytes - 1)) != 0) {
        char where[300] = "";
        if (space == MB_SPACE_GLOBAL || space == MB_SPACE_CONST ||
            (space == MB_SPACE_NONE && addr - MB_SHARED_WINDOW >= MB_WINDOW_SIZE &&
             addr - MB_LOCAL_WINDOW >= MB_WINDOW_SIZE)) {
            where[0] = ' ';
            where[1] = '(';
            mb_memory_describe(cta->mem, addr, where + 2, sizeof(where) - 3);
            strcat(where, ")");
        }
        exec_fault_at(w, x, lane, "misaligned %s %s of %u bytes at 0x%" PRIx64 "%s",
                      space_word(space), verb, bytes, addr, where);
        return NULL;
    }
    mb_space resolved = space;
    uint64_t off = addr;
    if (space == MB_SPACE_NONE) {
        if (addr - MB_SHARED_WINDOW < MB_WINDOW_SIZE) {
            resolved = MB_SPACE_SHARED;
            off = addr - MB_SHARED_WINDOW;
        } else if (addr - MB_LOCAL_WINDOW < MB_WINDOW_SIZE) {
            resolved = MB_SPACE_LOCAL;
            off = addr - MB_LOCAL_WINDOW;
        } else {
            resolved = MB_SPACE_GLOBAL;
        }
    }
    w->access_space = (uint8_t)resolved;
    switch (resolved) {
    case MB_SPACE_SHARED:
        w->addrs[lane] = off;
        if (off > cta->shared_bytes || bytes > cta->shared_bytes - off) {
            exec_fault_at(w, x, lane,
                          "out-of-bounds shared %s of %u bytes at shared offset 0x%" PRIx64
                          " (the CTA has %u bytes of shared memory)",
                          verb, bytes, off, cta->shared_bytes);
            return NULL;
        }
        return cta->shared + off;
    case MB_SPACE_LOCAL:
        w->addrs[lane] = off;
        if (off > w->local_bytes || bytes > w->local_bytes - off) {
            exec_fault_at(w, x, lane,
                          "out-of-bounds local %s of %u bytes at local offset 0x%" PRIx64
                          " (each thread has %u bytes of local memory and stack)",
                          verb, bytes, off, w->local_bytes);
            return NULL;
        }
        return w->local + (size_t)lane * w->local_bytes + off;
    default: {
        if (addr - cta->cache_base < cta->cache_size &&
            bytes <= cta->cache_size - (addr - cta->cache_base))
            return cta->cache_host + (addr - cta->cache_base);
        uint64_t base, size;
        uint8_t *host_base;
        uint8_t *p = exec_memory_lookup(cta->mem, addr, bytes, &base, &size, &host_base);
        if (!p) {
            char where[300];
            mb_memory_describe(cta->mem, addr, where, sizeof(where));
            exec_fault_at(w, x, lane, "out-of-bounds %s %s of %u bytes at 0x%" PRIx64 " (%s)",
                          space_word(space == MB_SPACE_NONE ? MB_SPACE_GLOBAL : space), verb,
                          bytes, addr, where);
            return NULL;
        }
        cta->cache_base = base;
        cta->cache_size = size;
        cta->cache_host = host_base;
        return p;
    }
    }
}

uint64_t mb_memory_allocation(const mb_memory *mem, uint64_t addr, uint64_t *size, const char **name)
{
    const allocation *a = find_below(mem, addr);
    if (!a || addr - a->base >= (a->size ? a->size : 1))
        return 0;
    if (size)
        *size = a->size;
    if (name)
        *name = a->name;
    return a->base;
}

/* -------------------------------------------- runtime hooks (cudart) */

mb_status mb_memory_map_host(mb_memory *mem, void *host, uint64_t bytes, const char *name,
                             mb_error *err)
{
    uint64_t base = (uint64_t)(uintptr_t)host;
    if (!host || bytes == 0 || base + bytes < base)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "cannot map host range %p of %" PRIu64 " bytes as '%s'", host, bytes,
                            name);
    /* The windows of generic addressing are not host memory the device can see. */
    if (base < MB_LOCAL_WINDOW + MB_WINDOW_SIZE && base + bytes > MB_SHARED_WINDOW)
        return mb_error_set(err, MB_ERR_UNSUPPORTED, "", 0, 0,
                            "host range %p of %" PRIu64 " bytes ('%s') overlaps the shared/local "
                            "windows of generic addressing",
                            host, bytes, name);
    const allocation *below = find_below(mem, base + bytes - 1);
    if (below && below->base + below->size > base)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "host range %p of %" PRIu64 " bytes ('%s') overlaps '%s'", host, bytes,
                            name, below->name);
    if (MB_GROW(mem->allocs, mem->cap, mem->nallocs + 1) != MB_OK)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    char *copy = malloc(strlen(name) + 1);
    if (!copy)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    strcpy(copy, name);
    size_t at = below ? (size_t)(below - mem->allocs) + 1 : 0;
    memmove(&mem->allocs[at + 1], &mem->allocs[at], (mem->nallocs - at) * sizeof(allocation));
    mem->allocs[at] = (allocation){base, bytes, host, copy, 1};
    mem->nallocs++;
    return MB_OK;
}

mb_status mb_memory_release(mb_memory *mem, uint64_t addr, mb_error *err)
{
    const allocation *a = find_below(mem, addr);
    if (!a || a->base != addr)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "0x%" PRIx64 " is not the start of an allocation", addr);
    size_t at = (size_t)(a - mem->allocs);
    if (!a->external) {
        free(a->host);
        mem->used -= a->size;
    }
    free(a->name);
    memmove(&mem->allocs[at], &mem->allocs[at + 1], (mem->nallocs - at - 1) * sizeof(allocation));
    mem->nallocs--;
    return MB_OK;
}

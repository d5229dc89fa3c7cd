/* A bump allocator: the parser allocates thousands of small objects that
 * all die with the module, so one free beats thousands. */
#include <minibench/util.h>

#include <stdlib.h>
#include <string.h>

enum { ARENA_ALIGN = 16, ARENA_CHUNK = 64 * 1024 };

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t size;
    size_t used;
    /* payload follows, aligned by the union below */
    union {
        max_align_t align;
        unsigned char bytes[1];
    } data;
} arena_chunk;

struct mb_arena {
    arena_chunk *head;
    size_t total;
};

mb_arena *mb_arena_new(void)
{
    return calloc(1, sizeof(mb_arena));
}

void mb_arena_free(mb_arena *arena)
{
    if (!arena)
        return;
    arena_chunk *c = arena->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void *mb_arena_alloc(mb_arena *arena, size_t size)
{
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (rounded < size)
        return NULL;
    arena_chunk *c = arena->head;
    if (!c || c->size - c->used < rounded) {
        size_t payload = rounded > ARENA_CHUNK ? rounded : ARENA_CHUNK;
        if (payload > SIZE_MAX - sizeof(arena_chunk))
            return NULL;
        arena_chunk *fresh = malloc(sizeof(arena_chunk) + payload);
        if (!fresh)
            return NULL;
        fresh->size = payload;
        fresh->used = 0;
        /* A large one-off allocation goes behind the current chunk so the
         * current chunk's free tail is not wasted. */
        if (c && rounded > ARENA_CHUNK) {
            fresh->next = c->next;
            c->next = fresh;
        } else {
            fresh->next = c;
            arena->head = fresh;
        }
        c = fresh;
    }
    void *p = c->data.bytes + c->used;
    c->used += rounded;
    arena->total += rounded;
    memset(p, 0, size);
    return p;
}

char *mb_arena_strndup(mb_arena *arena, const char *s, size_t len)
{
    char *p = mb_arena_alloc(arena, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *mb_arena_strdup(mb_arena *arena, const char *s)
{
    return mb_arena_strndup(arena, s, strlen(s));
}

size_t mb_arena_used(const mb_arena *arena)
{
    return arena->total;
}

/* String-keyed hash map (FNV-1a, linear probing) for symbol tables. */
#include <minibench/util.h>

#include <stdlib.h>
#include <string.h>

typedef struct strmap_slot {
    char *key; /* NULL: empty */
    size_t keylen;
    uint32_t hash;
    int value;
} strmap_slot;

struct mb_strmap {
    strmap_slot *slots;
    size_t nslots; /* power of two */
    size_t count;
};

static uint32_t hash_bytes(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

mb_strmap *mb_strmap_new(void)
{
    mb_strmap *map = calloc(1, sizeof(*map));
    if (!map)
        return NULL;
    map->nslots = 16;
    map->slots = calloc(map->nslots, sizeof(strmap_slot));
    if (!map->slots) {
        free(map);
        return NULL;
    }
    return map;
}

void mb_strmap_free(mb_strmap *map)
{
    if (!map)
        return;
    for (size_t i = 0; i < map->nslots; i++)
        free(map->slots[i].key);
    free(map->slots);
    free(map);
}

static strmap_slot *find_slot(strmap_slot *slots, size_t nslots, const char *key, size_t keylen,
                              uint32_t hash)
{
    size_t mask = nslots - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        strmap_slot *s = &slots[i];
        if (!s->key)
            return s;
        if (s->hash == hash && s->keylen == keylen && memcmp(s->key, key, keylen) == 0)
            return s;
    }
}

static mb_status rehash(mb_strmap *map)
{
    if (map->nslots > SIZE_MAX / 2 / sizeof(strmap_slot))
        return MB_ERR_NOMEM;
    size_t nslots = map->nslots * 2;
    strmap_slot *slots = calloc(nslots, sizeof(strmap_slot));
    if (!slots)
        return MB_ERR_NOMEM;
    for (size_t i = 0; i < map->nslots; i++) {
        strmap_slot *old = &map->slots[i];
        if (old->key)
            *find_slot(slots, nslots, old->key, old->keylen, old->hash) = *old;
    }
    free(map->slots);
    map->slots = slots;
    map->nslots = nslots;
    return MB_OK;
}

mb_status mb_strmap_put(mb_strmap *map, const char *key, size_t keylen, int value)
{
    if ((map->count + 1) * 4 > map->nslots * 3 && rehash(map) != MB_OK)
        return MB_ERR_NOMEM;
    uint32_t hash = hash_bytes(key, keylen);
    strmap_slot *s = find_slot(map->slots, map->nslots, key, keylen, hash);
    if (!s->key) {
        s->key = malloc(keylen + 1);
        if (!s->key)
            return MB_ERR_NOMEM;
        memcpy(s->key, key, keylen);
        s->key[keylen] = '\0';
        s->keylen = keylen;
        s->hash = hash;
        map->count++;
    }
    s->value = value;
    return MB_OK;
}

int mb_strmap_get(const mb_strmap *map, const char *key, size_t keylen)
{
    uint32_t hash = hash_bytes(key, keylen);
    strmap_slot *s = find_slot(map->slots, map->nslots, key, keylen, hash);
    return s->key ? s->value : -1;
}

size_t mb_strmap_count(const mb_strmap *map)
{
    return map->count;
}

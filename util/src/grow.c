/* Capacity doubling for the dynamic arrays used across minibench. */
#include <minibench/util.h>

#include <stdlib.h>

mb_status mb_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return MB_OK;
    size_t fresh = *cap ? *cap : 8;
    while (fresh < need) {
        if (fresh > SIZE_MAX / 2)
            return MB_ERR_NOMEM;
        fresh *= 2;
    }
    if (elem && fresh > SIZE_MAX / elem)
        return MB_ERR_NOMEM;
    void *p = realloc(*ptr, fresh * elem);
    if (!p)
        return MB_ERR_NOMEM;
    *ptr = p;
    *cap = fresh;
    return MB_OK;
}

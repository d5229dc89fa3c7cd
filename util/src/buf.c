/* A growable text buffer; allocation failure is sticky so callers check once. */
#include <minibench/util.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mb_buf_free(mb_buf *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
    buf->failed = 0;
}

void mb_buf_reset(mb_buf *buf)
{
    buf->len = 0;
    if (buf->data)
        buf->data[0] = '\0';
}

static int buf_reserve(mb_buf *buf, size_t extra)
{
    /* the common case, room already there, costs one comparison: JSON and
     * DOT output append a few bytes at a time */
    if (!buf->failed && extra < buf->cap - buf->len)
        return 1;
    if (buf->failed)
        return 0;
    if (extra > SIZE_MAX - buf->len - 1) {
        buf->failed = 1;
        return 0;
    }
    if (MB_GROW(buf->data, buf->cap, buf->len + extra + 1) != MB_OK) {
        buf->failed = 1;
        return 0;
    }
    return 1;
}

void mb_buf_append(mb_buf *buf, const char *data, size_t len)
{
    if (!buf_reserve(buf, len))
        return;
    memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void mb_buf_puts(mb_buf *buf, const char *s)
{
    mb_buf_append(buf, s, strlen(s));
}

void mb_buf_putc(mb_buf *buf, char c)
{
    if (!buf_reserve(buf, 1))
        return;
    buf->data[buf->len++] = c;
    buf->data[buf->len] = '\0';
}

void mb_buf_vprintf(mb_buf *buf, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int need = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (need < 0 || !buf_reserve(buf, (size_t)need))
        return;
    vsnprintf(buf->data + buf->len, (size_t)need + 1, fmt, ap);
    buf->len += (size_t)need;
}

void mb_buf_printf(mb_buf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mb_buf_vprintf(buf, fmt, ap);
    va_end(ap);
}

/* Error records: one message with an optional source location. */
#include <minibench/util.h>

#include <stdio.h>
#include <string.h>

const char *mb_status_name(mb_status status)
{
    switch (status) {
    case MB_OK: return "ok";
    case MB_ERR_IO: return "I/O error";
    case MB_ERR_PARSE: return "parse error";
    case MB_ERR_INVALID: return "invalid input";
    case MB_ERR_UNSUPPORTED: return "unsupported";
    case MB_ERR_NOMEM: return "out of memory";
    case MB_ERR_LIMIT: return "limit exceeded";
    case MB_ERR_FAULT: return "fault";
    }
    return "unknown status";
}

void mb_error_clear(mb_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof(*err));
}

mb_status mb_error_vset(mb_error *err, mb_status status, const char *file, int line, int col,
                        const char *fmt, va_list ap)
{
    if (!err)
        return status;
    err->status = status;
    err->line = line;
    err->col = col;
    snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    return status;
}

mb_status mb_error_set(mb_error *err, mb_status status, const char *file, int line, int col,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mb_error_vset(err, status, file, line, col, fmt, ap);
    va_end(ap);
    return status;
}

int mb_error_format(const mb_error *err, char *buf, size_t size)
{
    if (!err->file[0])
        return snprintf(buf, size, "error: %s", err->msg);
    if (err->line <= 0)
        return snprintf(buf, size, "%s: error: %s", err->file, err->msg);
    if (err->col <= 0)
        return snprintf(buf, size, "%s:%d: error: %s", err->file, err->line, err->msg);
    return snprintf(buf, size, "%s:%d:%d: error: %s", err->file, err->line, err->col, err->msg);
}

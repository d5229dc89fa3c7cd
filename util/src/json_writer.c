/* A streaming JSON writer (util.h). Profiles hold tens of thousands of
 * values; building them as a jansson tree and dumping it cost more than
 * profiling a small launch, so they are written straight into a buffer. */
#include <minibench/util.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

void mb_json_init(mb_json_writer *w, mb_buf *out, unsigned indent)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->indent = indent;
}

static void newline_and_indent(mb_json_writer *w, unsigned depth)
{
    static const char spaces[] = "                                ";
    if (!w->indent)
        return;
    mb_buf_putc(w->out, '\n');
    for (size_t n = (size_t)depth * w->indent; n;) {
        const size_t chunk = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
        mb_buf_append(w->out, spaces, chunk);
        n -= chunk;
    }
}

/* Before any value or key: the separator and line of a container member. A
 * value inside an object must follow its key. */
static void member_start(mb_json_writer *w, int is_key)
{
    if (w->after_key) {
        if (is_key)
            w->failed = 1;
        w->after_key = 0;
        return;
    }
    if (!w->depth)
        return;
    const unsigned top = w->depth - 1;
    if (w->is_object[top] != is_key)
        w->failed = 1;
    if (w->has_members[top])
        mb_buf_putc(w->out, ',');
    w->has_members[top] = 1;
    newline_and_indent(w, w->depth);
}

static void open_container(mb_json_writer *w, int object)
{
    member_start(w, 0);
    if (w->depth == MB_JSON_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    w->is_object[w->depth] = (unsigned char)object;
    w->has_members[w->depth] = 0;
    w->depth++;
    mb_buf_putc(w->out, object ? '{' : '[');
}

static void close_container(mb_json_writer *w, int object)
{
    if (!w->depth || w->is_object[w->depth - 1] != object || w->after_key) {
        w->failed = 1;
        return;
    }
    w->depth--;
    if (w->has_members[w->depth])
        newline_and_indent(w, w->depth);
    mb_buf_putc(w->out, object ? '}' : ']');
}

void mb_json_object_begin(mb_json_writer *w) { open_container(w, 1); }
void mb_json_object_end(mb_json_writer *w) { close_container(w, 1); }
void mb_json_array_begin(mb_json_writer *w) { open_container(w, 0); }
void mb_json_array_end(mb_json_writer *w) { close_container(w, 0); }

static void put_quoted(mb_buf *out, const char *s)
{
    mb_buf_putc(out, '"');
    const char *run = s;
    for (const char *p = s;; p++) {
        const unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        mb_buf_append(out, run, (size_t)(p - run));
        if (!c)
            break;
        char esc[8];
        switch (c) {
        case '"': mb_buf_puts(out, "\\\""); break;
        case '\\': mb_buf_puts(out, "\\\\"); break;
        case '\b': mb_buf_puts(out, "\\b"); break;
        case '\f': mb_buf_puts(out, "\\f"); break;
        case '\n': mb_buf_puts(out, "\\n"); break;
        case '\r': mb_buf_puts(out, "\\r"); break;
        case '\t': mb_buf_puts(out, "\\t"); break;
        default:
            snprintf(esc, sizeof(esc), "\\u%04X", c);
            mb_buf_puts(out, esc);
        }
        run = p + 1;
    }
    mb_buf_putc(out, '"');
}

void mb_json_key(mb_json_writer *w, const char *key)
{
    member_start(w, 1);
    put_quoted(w->out, key ? key : "");
    mb_buf_append(w->out, w->indent ? ": " : ":", w->indent ? 2 : 1);
    w->after_key = 1;
}

void mb_json_string(mb_json_writer *w, const char *s)
{
    if (!s) {
        mb_json_null(w);
        return;
    }
    member_start(w, 0);
    put_quoted(w->out, s);
}

void mb_json_int(mb_json_writer *w, int64_t v)
{
    member_start(w, 0);
    char digits[24];
    size_t n = sizeof(digits);
    /* the magnitude in unsigned arithmetic: -INT64_MIN does not fit */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[--n] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    if (v < 0)
        digits[--n] = '-';
    mb_buf_append(w->out, digits + n, sizeof(digits) - n);
}

void mb_json_real(mb_json_writer *w, double v, int precision)
{
    if (!isfinite(v)) {
        mb_json_null(w);
        return;
    }
    member_start(w, 0);
    char text[64];
    int len = snprintf(text, sizeof(text) - 2, "%.*g", precision > 0 ? precision : 17, v);
    if (len < 0 || (size_t)len >= sizeof(text) - 2) {
        w->failed = 1;
        return;
    }
    if (!strchr(text, '.') && !strchr(text, 'e')) {
        memcpy(text + len, ".0", 3);
        len += 2;
    }
    char *exp = strchr(text, 'e');
    if (exp) {
        char *digits = exp + 1;
        if (*digits == '-')
            digits++;
        char *first = digits;
        while (*first == '+' || (*first == '0' && first[1]))
            first++;
        memmove(digits, first, strlen(first) + 1);
        len = (int)strlen(text);
    }
    mb_buf_append(w->out, text, (size_t)len);
}

void mb_json_bool(mb_json_writer *w, int v)
{
    member_start(w, 0);
    mb_buf_puts(w->out, v ? "true" : "false");
}

void mb_json_null(mb_json_writer *w)
{
    member_start(w, 0);
    mb_buf_puts(w->out, "null");
}

int mb_json_ok(const mb_json_writer *w)
{
    return !w->failed && !w->out->failed && !w->depth && !w->after_key;
}

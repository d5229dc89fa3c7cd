/* PTX lexer. Comments, whitespace and the legacy "@@DWARF" debug lines are
 * skipped; everything else becomes a token. */
#include "ptx_lexer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ptx_lexer_init(ptx_lexer *lx, const char *src, size_t len, const char *filename)
{
    lx->src = src;
    lx->len = len;
    lx->pos = 0;
    lx->line = 1;
    lx->line_start = 0;
    lx->filename = filename;
}

static int is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%';
}

static int is_ident_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int col_of(const ptx_lexer *lx, size_t pos)
{
    return (int)(pos - lx->line_start) + 1;
}

static mb_status lex_error(ptx_lexer *lx, size_t pos, mb_error *err, const char *what)
{
    return mb_error_set(err, MB_ERR_PARSE, lx->filename, lx->line, col_of(lx, pos), "%s", what);
}

/* Skips whitespace, comments and "@@DWARF" lines; fails on an unterminated
 * block comment. */
static mb_status skip_space(ptx_lexer *lx, mb_error *err)
{
    const char *s = lx->src;
    while (lx->pos < lx->len) {
        char c = s[lx->pos];
        if (c == '\n') {
            lx->pos++;
            lx->line++;
            lx->line_start = lx->pos;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '/') {
            /* comments are text too: a NUL in one would be lost when a
             * .section holding it is printed back */
            while (lx->pos < lx->len && s[lx->pos] != '\n') {
                if (s[lx->pos] == '\0')
                    return lex_error(lx, lx->pos, err, "unexpected NUL byte in PTX text");
                lx->pos++;
            }
        } else if (c == '/' && lx->pos + 1 < lx->len && s[lx->pos + 1] == '*') {
            size_t start = lx->pos;
            int start_line = lx->line;
            size_t start_line_start = lx->line_start;
            lx->pos += 2;
            for (;;) {
                if (lx->pos + 1 >= lx->len) {
                    lx->line = start_line;
                    lx->line_start = start_line_start;
                    lx->pos = lx->len;
                    return mb_error_set(err, MB_ERR_PARSE, lx->filename, start_line,
                                        (int)(start - start_line_start) + 1,
                                        "unterminated block comment");
                }
                if (s[lx->pos] == '*' && s[lx->pos + 1] == '/') {
                    lx->pos += 2;
                    break;
                }
                if (s[lx->pos] == '\n') {
                    lx->line++;
                    lx->line_start = lx->pos + 1;
                } else if (s[lx->pos] == '\0') {
                    return lex_error(lx, lx->pos, err, "unexpected NUL byte in PTX text");
                }
                lx->pos++;
            }
        } else if (c == '@' && lx->pos + 7 <= lx->len && memcmp(s + lx->pos, "@@DWARF", 7) == 0) {
            /* kept verbatim inside a .section like comments: no NUL either */
            while (lx->pos < lx->len && s[lx->pos] != '\n') {
                if (s[lx->pos] == '\0')
                    return lex_error(lx, lx->pos, err, "unexpected NUL byte in PTX text");
                lx->pos++;
            }
        } else {
            break;
        }
    }
    return MB_OK;
}

static mb_status lex_number(ptx_lexer *lx, ptx_token *tok, mb_error *err)
{
    const char *s = lx->src;
    size_t start = lx->pos, p = lx->pos, n = lx->len;
    /* 0f / 0d: IEEE bit patterns. */
    if (s[p] == '0' && p + 1 < n && (s[p + 1] == 'f' || s[p + 1] == 'F' || s[p + 1] == 'd' ||
                                     s[p + 1] == 'D')) {
        int is_f32 = s[p + 1] == 'f' || s[p + 1] == 'F';
        size_t digits = is_f32 ? 8 : 16;
        uint64_t bits = 0;
        p += 2;
        size_t i = 0;
        for (; i < digits && p < n && hex_value(s[p]) >= 0; i++, p++)
            bits = (bits << 4) | (uint64_t)hex_value(s[p]);
        if (i != digits || (p < n && is_ident_char(s[p])))
            return lex_error(lx, start, err,
                             is_f32 ? "malformed f32 literal: expected 0f followed by 8 hex digits"
                                    : "malformed f64 literal: expected 0d followed by 16 hex digits");
        tok->kind = is_f32 ? TOK_F32 : TOK_F64;
        tok->ival = bits;
        lx->pos = p;
        return MB_OK;
    }
    /* Decimal float? */
    size_t q = p;
    while (q < n && s[q] >= '0' && s[q] <= '9')
        q++;
    if (q < n && (s[q] == '.' || s[q] == 'e' || s[q] == 'E') && !(s[p] == '0' && q == p + 1 && q < n &&
                                                                  (s[q] == 'x' || s[q] == 'X'))) {
        int is_float = 0;
        if (s[q] == '.' && q + 1 < n && s[q + 1] >= '0' && s[q + 1] <= '9')
            is_float = 1;
        if ((s[q] == 'e' || s[q] == 'E') && q + 1 < n &&
            ((s[q + 1] >= '0' && s[q + 1] <= '9') || s[q + 1] == '-' || s[q + 1] == '+'))
            is_float = 1;
        if (is_float) {
            char buf[128];
            size_t e = q;
            if (s[e] == '.') {
                e++;
                while (e < n && s[e] >= '0' && s[e] <= '9')
                    e++;
            }
            if (e < n && (s[e] == 'e' || s[e] == 'E')) {
                e++;
                if (e < n && (s[e] == '-' || s[e] == '+'))
                    e++;
                while (e < n && s[e] >= '0' && s[e] <= '9')
                    e++;
            }
            if (e - p >= sizeof(buf))
                return lex_error(lx, start, err, "floating-point literal is too long");
            memcpy(buf, s + p, e - p);
            buf[e - p] = '\0';
            tok->kind = TOK_FLOAT;
            tok->fval = strtod(buf, NULL);
            lx->pos = e;
            return MB_OK;
        }
    }
    /* Integers: hex, binary, octal, decimal; optional U suffix. */
    uint64_t v = 0;
    int overflow = 0, any = 0;
    if (s[p] == '0' && p + 1 < n && (s[p + 1] == 'x' || s[p + 1] == 'X')) {
        p += 2;
        for (; p < n && hex_value(s[p]) >= 0; p++, any = 1) {
            if (v >> 60)
                overflow = 1;
            v = (v << 4) | (uint64_t)hex_value(s[p]);
        }
    } else if (s[p] == '0' && p + 1 < n && (s[p + 1] == 'b' || s[p + 1] == 'B')) {
        p += 2;
        for (; p < n && (s[p] == '0' || s[p] == '1'); p++, any = 1) {
            if (v >> 63)
                overflow = 1;
            v = (v << 1) | (uint64_t)(s[p] - '0');
        }
    } else if (s[p] == '0') {
        p++;
        any = 1;
        for (; p < n && s[p] >= '0' && s[p] <= '7'; p++) {
            if (v >> 61)
                overflow = 1;
            v = (v << 3) | (uint64_t)(s[p] - '0');
        }
    } else {
        for (; p < n && s[p] >= '0' && s[p] <= '9'; p++, any = 1) {
            uint64_t d = (uint64_t)(s[p] - '0');
            if (v > (UINT64_MAX - d) / 10)
                overflow = 1;
            v = v * 10 + d;
        }
    }
    if (p < n && (s[p] == 'U' || s[p] == 'u'))
        p++;
    if (!any || (p < n && is_ident_char(s[p])))
        return lex_error(lx, start, err, "malformed integer literal");
    if (overflow)
        return lex_error(lx, start, err, "integer literal does not fit in 64 bits");
    tok->kind = TOK_INT;
    tok->ival = v;
    lx->pos = p;
    return MB_OK;
}

mb_status ptx_lex(ptx_lexer *lx, ptx_token *tok, mb_error *err)
{
    mb_status st = skip_space(lx, err);
    memset(tok, 0, sizeof(*tok));
    tok->line = lx->line;
    tok->col = col_of(lx, lx->pos);
    if (st != MB_OK)
        return st;
    if (lx->pos >= lx->len) {
        tok->kind = TOK_EOF;
        tok->text = lx->src + lx->len;
        return MB_OK;
    }
    const char *s = lx->src;
    size_t start = lx->pos;
    char c = s[start];
    tok->text = s + start;
    if (c == '\0')
        return lex_error(lx, start, err, "unexpected NUL byte in PTX text");
    if (is_ident_start((unsigned char)c)) {
        size_t p = start + 1;
        while (p < lx->len && is_ident_char((unsigned char)s[p]))
            p++;
        tok->kind = TOK_IDENT;
        tok->len = p - start;
        lx->pos = p;
        return MB_OK;
    }
    if (c == '.') {
        size_t p = start + 1;
        /* Modifiers carry "::" qualifiers (.L1::evict_last) and may start with a
         * digit (.2d); "::" must be followed by more name characters. */
        while (p < lx->len) {
            if (is_ident_char((unsigned char)s[p]))
                p++;
            else if (s[p] == ':' && p + 2 < lx->len && s[p + 1] == ':' &&
                     is_ident_char((unsigned char)s[p + 2]))
                p += 2;
            else
                break;
        }
        if (p == start + 1)
            return lex_error(lx, start, err, "expected a directive or modifier name after '.'");
        tok->kind = TOK_DOT;
        tok->text = s + start + 1;
        tok->len = p - start - 1;
        lx->pos = p;
        return MB_OK;
    }
    if (c >= '0' && c <= '9') {
        st = lex_number(lx, tok, err);
        tok->len = lx->pos - start;
        return st;
    }
    if (c == '"') {
        size_t p = start + 1;
        while (p < lx->len && s[p] != '"' && s[p] != '\n') {
            if (s[p] == '\\' && p + 1 < lx->len && s[p + 1] != '\n')
                p++;
            /* strings are printed back as C strings: a NUL would cut them */
            if (s[p] == '\0')
                return lex_error(lx, p, err, "unexpected NUL byte in PTX text");
            p++;
        }
        if (p >= lx->len || s[p] != '"')
            return lex_error(lx, start, err, "unterminated string literal");
        tok->kind = TOK_STRING;
        tok->text = s + start + 1;
        tok->len = p - start - 1;
        lx->pos = p + 1;
        return MB_OK;
    }
    if (strchr(",;:{}[]()<>+-!@|=*/", c)) {
        tok->kind = TOK_PUNCT;
        tok->punct = c;
        tok->len = 1;
        lx->pos = start + 1;
        return MB_OK;
    }
    if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
        return mb_error_set(err, MB_ERR_PARSE, lx->filename, lx->line, col_of(lx, start),
                            "unexpected character '%c'", c);
    return mb_error_set(err, MB_ERR_PARSE, lx->filename, lx->line, col_of(lx, start),
                        "unexpected byte 0x%02x", (unsigned char)c);
}

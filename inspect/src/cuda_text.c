/* Cutting CUDA source text at launch configurations, arguments and array bounds. */
#include "cuda_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* When s[i] starts a comment or a string or character literal, the index just past it;
 * otherwise i. Unterminated ones run to n. */
static size_t skip_opaque(const char *s, size_t n, size_t i)
{
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
        while (i < n && s[i] != '\n')
            i++;
        return i;
    }
    if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
        i += 2;
        while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
            i++;
        return i + 1 < n ? i + 2 : n;
    }
    if (s[i] == '"' || s[i] == '\'') {
        char quote = s[i++];
        while (i < n && s[i] != quote) {
            if (s[i] == '\\')
                i++;
            i++;
        }
        return i < n ? i + 1 : n;
    }
    return i;
}

static int is_open(char c) { return c == '(' || c == '[' || c == '{'; }
static int is_close(char c) { return c == ')' || c == ']' || c == '}'; }
static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

size_t cuda_text_match(const char *s, size_t n, size_t open)
{
    int depth = 0;
    size_t i = open;
    while (i < n) {
        size_t next = skip_opaque(s, n, i);
        if (next != i) {
            i = next;
            continue;
        }
        if (is_open(s[i]))
            depth++;
        else if (is_close(s[i]) && --depth == 0)
            return i;
        i++;
    }
    return n;
}

static cuda_span trim(const char *s, size_t start, size_t end)
{
    while (start < end && isspace((unsigned char)s[start]))
        start++;
    while (end > start && isspace((unsigned char)s[end - 1]))
        end--;
    return (cuda_span){start, end - start};
}

int cuda_text_split(const char *s, cuda_span in, cuda_span *pieces, int max)
{
    size_t end = in.start + in.len;
    cuda_span whole = trim(s, in.start, end);
    if (whole.len == 0)
        return 0;
    int count = 0, depth = 0;
    size_t piece_start = in.start, i = in.start;
    while (i < end) {
        size_t next = skip_opaque(s, end, i);
        if (next != i) {
            i = next;
            continue;
        }
        if (is_open(s[i])) {
            depth++;
        } else if (is_close(s[i])) {
            depth--;
        } else if (s[i] == ',' && depth == 0) {
            if (count == max)
                return -1;
            pieces[count++] = trim(s, piece_start, i);
            piece_start = i + 1;
        }
        i++;
    }
    if (count == max)
        return -1;
    pieces[count++] = trim(s, piece_start, end);
    return count;
}

/* Index of `tok` (3 characters) at bracket depth 0 in s[from..n), or n. */
static size_t find_top(const char *s, size_t n, size_t from, const char *tok)
{
    int depth = 0;
    size_t i = from;
    while (i < n) {
        size_t next = skip_opaque(s, n, i);
        if (next != i) {
            i = next;
            continue;
        }
        if (is_open(s[i]))
            depth++;
        else if (is_close(s[i]))
            depth--;
        else if (depth == 0 && i + 3 <= n && memcmp(s + i, tok, 3) == 0)
            return i;
        i++;
    }
    return n;
}

/* Reads `( ... )` starting at the first non-blank at or after i, ending at n (after blanks). */
static int paren_group(const char *s, size_t n, size_t i, cuda_span *inside)
{
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    if (i >= n || s[i] != '(')
        return -1;
    size_t close = cuda_text_match(s, n, i);
    if (close >= n)
        return -1;
    size_t rest = close + 1;
    while (rest < n && isspace((unsigned char)s[rest]))
        rest++;
    if (rest != n)
        return -1;
    *inside = (cuda_span){i + 1, close - i - 1};
    return 0;
}

int cuda_text_chevron(const char *s, size_t n, cuda_span *callee, cuda_span *config, cuda_span *args)
{
    size_t open = find_top(s, n, 0, "<<<");
    if (open >= n)
        return -1;
    size_t close = find_top(s, n, open + 3, ">>>");
    if (close >= n)
        return -1;
    *callee = trim(s, 0, open);
    if (callee->len == 0)
        return -1;
    *config = (cuda_span){open + 3, close - open - 3};
    return paren_group(s, n, close + 3, args);
}

int cuda_text_call(const char *s, size_t n, cuda_span *callee, cuda_span *args)
{
    size_t i = 0;
    while (i < n && s[i] != '(') {
        size_t next = skip_opaque(s, n, i);
        i = next != i ? next : i + 1;
    }
    if (i >= n)
        return -1;
    *callee = trim(s, 0, i);
    if (callee->len == 0)
        return -1;
    return paren_group(s, n, i, args);
}

int cuda_text_brackets(const char *s, size_t n, size_t at, cuda_span *dims, int max)
{
    int count = 0;
    size_t i = at;
    while (count < max) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i >= n || s[i] != '[')
            break;
        size_t close = cuda_text_match(s, n, i);
        if (close >= n)
            break;
        dims[count++] = trim(s, i + 1, close);
        i = close + 1;
    }
    return count;
}

int cuda_text_macro_args(const char *s, size_t n, const char *word, cuda_span *inside)
{
    size_t wlen = strlen(word);
    size_t i = 0;
    while (i < n) {
        size_t next = skip_opaque(s, n, i);
        if (next != i) {
            i = next;
            continue;
        }
        if (i + wlen <= n && memcmp(s + i, word, wlen) == 0 && (i == 0 || !is_ident(s[i - 1])) &&
            (i + wlen == n || !is_ident(s[i + wlen]))) {
            size_t j = i + wlen;
            while (j < n && isspace((unsigned char)s[j]))
                j++;
            if (j >= n || s[j] != '(')
                return -1;
            size_t close = cuda_text_match(s, n, j);
            if (close >= n)
                return -1;
            *inside = trim(s, j + 1, close);
            return 0;
        }
        i++;
    }
    return -1;
}

long long cuda_text_integer(const char *s, size_t n)
{
    char buf[64];
    if (n == 0 || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 0);
    if (errno || end == buf)
        return -1;
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (*end || v > (unsigned long long)LLONG_MAX)
        return -1;
    return (long long)v;
}

char *cuda_text_copy(mb_arena *arena, const char *s, cuda_span span)
{
    char *out = mb_arena_alloc(arena, span.len + 1);
    if (!out)
        return NULL;
    size_t o = 0, end = span.start + span.len;
    int in_blank = 0;
    size_t i = span.start;
    while (i < end) {
        size_t next = skip_opaque(s, end, i);
        int comment = next != i && s[i] == '/';
        if (isspace((unsigned char)s[i]) || comment) {
            in_blank = 1;
            i = comment ? next : i + 1;
            continue;
        }
        if (in_blank && o > 0)
            out[o++] = ' ';
        in_blank = 0;
        if (next == i)
            next = i + 1; /* one ordinary character */
        while (i < next)
            out[o++] = s[i++]; /* a literal is copied whole, blanks and all */
    }
    out[o] = '\0';
    return out;
}

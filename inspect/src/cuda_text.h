/*
 * Raw source-text scanning for the inspector: libclang gives the places,
 * these functions cut the text at them (launch configurations, argument
 * lists, array bounds, __launch_bounds__) the way a reader sees it, macros
 * unexpanded. They skip comments and string and character literals.
 */
#ifndef MB_CUDA_TEXT_H
#define MB_CUDA_TEXT_H

#include <minibench/util.h>

#include <stddef.h>

/* A byte range [start, start + len) of some text. */
typedef struct cuda_span {
    size_t start;
    size_t len;
} cuda_span;

/* Index of the bracket closing the one at s[open] ('(', '[' or '{'), or n when unclosed. */
size_t cuda_text_match(const char *s, size_t n, size_t open);

/* Splits span `in` of s at commas outside brackets into at most `max` trimmed pieces.
 * Returns the number of pieces (0 for blank text), or -1 when there are more than `max`. */
int cuda_text_split(const char *s, cuda_span in, cuda_span *pieces, int max);

/* Reads `callee <<< config >>> ( args )` from s[0..n): the spans of the three parts.
 * Returns 0, or -1 when the text does not have that shape. */
int cuda_text_chevron(const char *s, size_t n, cuda_span *callee, cuda_span *config, cuda_span *args);

/* Reads `callee ( args )` from s[0..n). Returns 0, or -1 when the text does not have that shape. */
int cuda_text_call(const char *s, size_t n, cuda_span *callee, cuda_span *args);

/* Spans of the `[...]` groups that follow position `at` (after blanks), at most `max`;
 * returns how many, each span being the text inside the brackets. */
int cuda_text_brackets(const char *s, size_t n, size_t at, cuda_span *dims, int max);

/* Finds the identifier `word` outside comments and literals in s[0..n) and, when an
 * opening parenthesis follows it, the span inside the parentheses. Returns 0 or -1. */
int cuda_text_macro_args(const char *s, size_t n, const char *word, cuda_span *inside);

/* The value of an integer literal (decimal, hex or octal, with u/l suffixes), or -1
 * when the text is anything else or does not fit. */
long long cuda_text_integer(const char *s, size_t n);

/* Copies s[span] into the arena with comments dropped and every run of blanks and
 * newlines turned into one space (literals are kept as they are); NULL when out of memory. */
char *cuda_text_copy(mb_arena *arena, const char *s, cuda_span span);

#endif

/* PTX lexer: turns source text into tokens with line and column. */
#ifndef MB_PTX_LEXER_H
#define MB_PTX_LEXER_H

#include <minibench/util.h>

#include <stddef.h>
#include <stdint.h>

typedef enum ptx_tok_kind {
    TOK_EOF,
    TOK_IDENT,     /* %r1, $L__BB0_1, _Z3fooi, sm_75 */
    TOK_DOT,       /* .global, .L1::evict_last, .2d: text excludes the dot */
    TOK_INT,       /* 42, 0x2A, 052, 0b101010, optionally with a U suffix: ival */
    TOK_FLOAT,     /* 1.5, 2e10: fval */
    TOK_F32,       /* 0f3F800000: ival holds the bits */
    TOK_F64,       /* 0d3FF0000000000000: ival holds the bits */
    TOK_STRING,    /* "text": text excludes the quotes */
    TOK_PUNCT      /* one character: , ; : { } [ ] ( ) < > + - ! @ | = */
} ptx_tok_kind;

typedef struct ptx_token {
    ptx_tok_kind kind;
    const char *text;
    size_t len;
    int line, col;
    uint64_t ival;
    double fval;
    char punct;
} ptx_token;

typedef struct ptx_lexer {
    const char *src;
    size_t len;
    size_t pos;
    int line;
    size_t line_start;
    const char *filename;
} ptx_lexer;

void ptx_lexer_init(ptx_lexer *lx, const char *src, size_t len, const char *filename);

/* Reads the next token. Returns MB_ERR_PARSE (with location) on a character
 * or literal that cannot start a token. */
mb_status ptx_lex(ptx_lexer *lx, ptx_token *tok, mb_error *err);

/* Byte offset of the lexer's position (for capturing raw text). */
static inline size_t ptx_lexer_offset(const ptx_lexer *lx) { return lx->pos; }

#endif
